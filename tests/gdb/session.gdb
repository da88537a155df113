# The check-gdb session: Debian's gdb against the gdbtarget kernel held by gdbwait.
set pagination off
set confirm off
set remotetimeout 30
echo CHECK connect\n
info registers eip
break step_inner
continue
echo CHECK backtrace\n
bt
echo CHECK counter\n
print counter
print/x $eflags
echo CHECK set answer\n
set var answer = 42
print answer
echo CHECK stepi\n
stepi
info registers eip
echo CHECK memory\n
print *(int *)0x10
x/2x 0xfffff000
delete
echo CHECK watch\n
watch counter
continue
continue
delete
echo CHECK detach\n
detach
