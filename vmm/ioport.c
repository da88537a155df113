/* Port models: a 16550 that turns each guest line into "[name] line", and isa-debug-exit at 0xf4. */
#include "vmm/ioport.h"
#include "lib/printf.h"
#include "pv/abi.h"
#include "vmm/vm.h"

#define COM1 0x3f8
#define LCR_DLAB 0x80
#define LSR_THRE_TEMT 0x60

void console_flush(struct vm *vm)
{
	if (!vm->line_len)
		return;
	vm->line[vm->line_len] = 0;
	kprintf("[%s] %s\n", vm->name, vm->line);
	vm->line_len = 0;
}

static void console_putc(struct vm *vm, char c)
{
	if (c == '\r')
		return;
	if (c == '\n') {
		if (!vm->line_len) {
			kprintf("[%s]\n", vm->name);
			return;
		}
		console_flush(vm);
		return;
	}
	/* Control characters would let a guest forge Umbra's own lines on the console. */
	if ((unsigned char)c < 0x20 && c != '\t')
		c = '?';
	vm->line[vm->line_len++] = c;
	if (vm->line_len == sizeof(vm->line) - 1)
		console_flush(vm);
}

static void note_unmodelled(struct vm *vm, u16 port)
{
	for (u32 i = 0; i < vm->n_unmodelled; i++)
		if (vm->unmodelled[i] == port)
			return;
	if (vm->n_unmodelled < VM_UNMODELLED_MAX)
		vm->unmodelled[vm->n_unmodelled++] = port;
}

static u32 com1_in(struct vm *vm, unsigned reg)
{
	bool dlab = vm->com1_lcr & LCR_DLAB;
	switch (reg) {
	case 0: return dlab ? vm->com1_dll : 0; /* no input */
	case 1: return dlab ? vm->com1_dlm : vm->com1_ier;
	case 2: return 0xc1;                     /* FIFOs enabled, no interrupt pending */
	case 3: return vm->com1_lcr;
	case 4: return vm->com1_mcr;
	case 5: return LSR_THRE_TEMT;           /* always ready to send */
	case 6: return 0xb0;                     /* DCD, DSR, CTS */
	default: return vm->com1_scr;
	}
}

static void com1_out(struct vm *vm, unsigned reg, u8 v)
{
	bool dlab = vm->com1_lcr & LCR_DLAB;
	switch (reg) {
	case 0:
		if (dlab)
			vm->com1_dll = v;
		else
			console_putc(vm, (char)v);
		break;
	case 1:
		if (dlab)
			vm->com1_dlm = v;
		else
			vm->com1_ier = v & 0x0f;
		break;
	case 3: vm->com1_lcr = v; break;
	case 4: vm->com1_mcr = v & 0x1f; break;
	case 7: vm->com1_scr = v; break;
	default: break; /* FCR, LSR, MSR writes: nothing to model */
	}
}

u32 ioport_in(struct vm *vm, u16 port, unsigned size)
{
	u32 ones = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
	if (port >= COM1 && port < COM1 + 8)
		return com1_in(vm, port - COM1) & ones;
	note_unmodelled(vm, port);
	return ones;
}

void ioport_out(struct vm *vm, u16 port, unsigned size, u32 val)
{
	(void)size;
	if (port >= COM1 && port < COM1 + 8) {
		com1_out(vm, port - COM1, (u8)val);
		return;
	}
	if (port == UMBRA_RESULT_PORT) {
		console_flush(vm);
		vm_end(vm, VM_END_RESULT, (val << 1) | 1, "result port");
		return;
	}
	note_unmodelled(vm, port);
}
