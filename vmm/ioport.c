/* Port models: a 16550 that turns each guest line into "[name] line", and isa-debug-exit at 0xf4. */
#include "vmm/ioport.h"
#include "arch/x86/serial.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "pv/abi.h"
#include "vmm/vm.h"

#define COM1 0x3f8
#define LCR_DLAB 0x80
#define LSR_THRE_TEMT 0x60
#define FCR_ENABLE 0x01
#define ICW1_IC4 0x01  /* ICW4 follows */
#define ICW1_SNGL 0x02 /* single PIC: no ICW3 */
#define RTC_B_DM 0x04   /* binary, not BCD */
#define RTC_B_24H 0x02

/* Device state beyond what struct vm holds, one entry per VM: the FIFO switch, how far each
 * PIC's initialisation is, and the CMOS bytes a guest may write (clock control and RAM). */
static struct dev_state {
	u8 fcr, icw1[2], cmos[128];
	bool cmos_set;
} devs[MAX_VMS];

static struct dev_state *dev_of(struct vm *vm)
{
	return &devs[vm - vms];
}

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

/* Umbra's serial input goes to the guest with the focus: the first one. */
static bool com1_rx_ready(struct vm *vm)
{
	if (!vm->com1_rx_full && vm == &vms[0]) {
		int c = serial_getc();
		if (c >= 0) {
			vm->com1_rx = (u8)c;
			vm->com1_rx_full = true;
		}
	}
	return vm->com1_rx_full;
}

static u32 com1_in(struct vm *vm, unsigned reg)
{
	bool dlab = vm->com1_lcr & LCR_DLAB;
	switch (reg) {
	case 0:
		if (dlab)
			return vm->com1_dll;
		if (!com1_rx_ready(vm))
			return 0;
		vm->com1_rx_full = false;
		return vm->com1_rx;
	case 1: return dlab ? vm->com1_dlm : vm->com1_ier;
	case 2: /* no interrupt pending; bits 6-7 tell whether the FIFOs are on */
		return (dev_of(vm)->fcr & FCR_ENABLE) ? 0xc1 : 0x01;
	case 3: return vm->com1_lcr;
	case 4: return vm->com1_mcr;
	case 5: return LSR_THRE_TEMT | (com1_rx_ready(vm) ? 1 : 0); /* always ready to send */
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
	case 2: dev_of(vm)->fcr = v & FCR_ENABLE; break;
	case 3: vm->com1_lcr = v; break;
	case 4: vm->com1_mcr = v & 0x1f; break;
	case 7: vm->com1_scr = v; break;
	default: break; /* LSR, MSR writes: nothing to model */
	}
}

/* ---- 8259 PICs: initialisation words accepted, the interrupt masks kept ---- */
static bool is_pic(u16 port) { return (port & ~1) == 0x20 || (port & ~1) == 0xa0; }

static u32 pic_in(struct vm *vm, u16 port)
{
	int n = port >= 0xa0;
	return (port & 1) ? vm->pic_mask[n] : 0; /* IRR/ISR: nothing pending */
}

/* The initialisation word that follows step (2 = ICW2 next, 3 = ICW3, 4 = ICW4, 0 = done):
 * ICW3 only with cascading, ICW4 only if ICW1 asked for it. */
static u8 pic_next_step(u8 icw1, u8 step)
{
	if (step > 4)
		return 0;
	if (step == 3 && (icw1 & ICW1_SNGL))
		step = 4;
	if (step == 4 && !(icw1 & ICW1_IC4))
		step = 0;
	return step;
}

static void pic_out(struct vm *vm, u16 port, u8 v)
{
	int n = port >= 0xa0;
	if (!(port & 1)) {
		if (v & 0x10) {
			/* ICW1 starts over: the mask is cleared, ICW2 comes next on the data port. */
			dev_of(vm)->icw1[n] = v;
			vm->pic_mask[n] = 0;
			vm->pic_icw_step[n] = 2;
		}
		return; /* OCW2/OCW3: no interrupt is ever pending or in service */
	}
	if (vm->pic_icw_step[n]) {
		vm->pic_icw_step[n] = pic_next_step(dev_of(vm)->icw1[n], vm->pic_icw_step[n] + 1);
		return;
	}
	vm->pic_mask[n] = v;
}

/* ---- CMOS/RTC: the time since boot on a fixed date, and the memory size ---- */
static u8 *cmos_ram(struct vm *vm)
{
	struct dev_state *d = dev_of(vm);
	if (!d->cmos_set) {
		d->cmos_set = true;
		d->cmos[0x0a] = 0x26; /* 32.768 kHz time base, 1024 Hz rate, no update in progress */
		d->cmos[0x0b] = RTC_B_24H;
	}
	return d->cmos;
}

/* A clock field in the format register B selects. */
static u8 rtc_field(struct vm *vm, unsigned v)
{
	return (cmos_ram(vm)[0x0b] & RTC_B_DM) ? (u8)v : (u8)(((v / 10) << 4) | (v % 10));
}

static u8 rtc_hour(struct vm *vm, unsigned h)
{
	if (cmos_ram(vm)[0x0b] & RTC_B_24H)
		return rtc_field(vm, h);
	return (u8)(rtc_field(vm, h % 12 ? h % 12 : 12) | (h >= 12 ? 0x80 : 0));
}

static u32 cmos_in(struct vm *vm)
{
	u64 secs = monotonic_ns() / 1000000000ull;
	u64 ext_kb = vm->mem.bytes > (1u << 20) ? (vm->mem.bytes >> 10) - 1024 : 0;
	u64 above16 = vm->mem.bytes > (16u << 20) ? (vm->mem.bytes - (16u << 20)) >> 16 : 0;

	if (ext_kb > 0xfc00)
		ext_kb = 0xfc00; /* the 16-bit field saturates at 63 MiB, as on a PC */
	switch (vm->cmos_index) {
	case 0x00: return rtc_field(vm, secs % 60);
	case 0x02: return rtc_field(vm, (secs / 60) % 60);
	case 0x04: return rtc_hour(vm, (secs / 3600) % 24);
	case 0x06: return 5;            /* day of week */
	case 0x07: return rtc_field(vm, 1); /* 2027-01-01: Umbra's epoch */
	case 0x08: return rtc_field(vm, 1);
	case 0x09: return rtc_field(vm, 27);
	case 0x32: return rtc_field(vm, 20);
	case 0x0c: return 0;            /* no interrupt flags */
	case 0x0d: return 0x80;         /* battery good */
	case 0x15: return 640 & 0xff;   /* base memory, KiB */
	case 0x16: return 640 >> 8;
	case 0x17: case 0x30: return ext_kb & 0xff;
	case 0x18: case 0x31: return (ext_kb >> 8) & 0xff;
	case 0x34: return above16 & 0xff;
	case 0x35: return (above16 >> 8) & 0xff;
	default: return cmos_ram(vm)[vm->cmos_index]; /* A, B and the RAM bytes */
	}
}

u32 ioport_in(struct vm *vm, u16 port, unsigned size)
{
	u32 ones = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
	if (port >= COM1 && port < COM1 + 8)
		return com1_in(vm, port - COM1) & ones;
	if (is_pic(port))
		return pic_in(vm, port);
	if (port == 0x70)
		return vm->cmos_index;
	if (port == 0x71)
		return cmos_in(vm);
	if (port == 0xcf8 && size == 4)
		return vm->pci_addr;
	if (port >= 0xcfc && port <= 0xcff)
		return ones; /* no PCI devices: every function reads as absent */
	note_unmodelled(vm, port);
	return ones;
}

void ioport_out(struct vm *vm, u16 port, unsigned size, u32 val)
{
	if (port >= COM1 && port < COM1 + 8) {
		com1_out(vm, port - COM1, (u8)val);
		return;
	}
	if (is_pic(port)) {
		pic_out(vm, port, (u8)val);
		return;
	}
	if (port == 0x70) {
		vm->cmos_index = val & 0x7f; /* bit 7 is the NMI mask */
		return;
	}
	if (port == 0x71) {
		/* The clock itself, C and D are not set this way; A's update flag is read-only. */
		u8 i = vm->cmos_index;
		if (i == 0x0a)
			cmos_ram(vm)[i] = (u8)(val & 0x7f);
		else if (i == 0x0b || i >= 0x0e)
			cmos_ram(vm)[i] = (u8)val;
		return;
	}
	if (port == 0x80 || (port >= 0xcfc && port <= 0xcff))
		return; /* POST codes, PCI data: accepted and dropped */
	if (port == 0xcf8 && size == 4) {
		vm->pci_addr = val & 0x80fffffcu;
		return;
	}
	if (port == UMBRA_RESULT_PORT) {
		console_flush(vm);
		vm_end(vm, VM_END_RESULT, (val << 1) | 1, "result port");
		return;
	}
	note_unmodelled(vm, port);
}
