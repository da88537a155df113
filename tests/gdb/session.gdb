# The check-gdb session (one command a line; run.sh passes each as -ex so that an expected
# error does not end the session). Lines starting with "echo CHECK" mark the steps; "qemu:"
# and "bochs:" lines are for that emulator only.
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
echo CHECK stepi\n
stepi
info registers eip
echo CHECK memory\n
print/x *(int *)0x10
print *(int *)0xfffff000
print $cr0
monitor guests
delete
echo CHECK watch\n
qemu:set can-use-hw-watchpoints 0
watch counter
continue
echo CHECK watch2\n
continue
delete
bochs:echo CHECK hbreak\n
bochs:hbreak step_outer
bochs:continue
bochs:delete
echo CHECK set answer\n
set var answer = 42
print answer
echo CHECK detach\n
detach
