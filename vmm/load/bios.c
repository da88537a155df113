/* SPDX-License-Identifier: GPL-2.0-only */
/* The BIOS's leftovers: the real-mode IVT with tiny handlers, the BIOS data area, the PIT and 8259s as GRUB leaves them. */
#include "vmm/load/bios.h"
#include "lib/string.h"
#include "vmm/vm.h"

#define IVT_VECTORS 256
#define MASTER_BASE 0x08 /* IRQ0-7 */
#define SLAVE_BASE 0x70	 /* IRQ8-15 */
#define BDA_GPA 0x400ull

/*
 * The handlers, 16-bit code. The timer's is what a BIOS's INT 08h does, less the floppy motor
 * count: the 32-bit tick count at 0x46C, reset at a day's worth of ticks (0x1800B0, IBM's
 * figure) with the rollover flag at 0x470 set, INT 1Ch for the kernel's hook, then the EOI.
 */
static const u8 stub_iret[] = { 0xcf };
static const u8 stub_timer[] = {
	0x1e,				    /* push ds */
	0x50,				    /* push ax */
	0x31, 0xc0,			    /* xor ax, ax */
	0x8e, 0xd8,			    /* mov ds, ax */
	0x83, 0x06, 0x6c, 0x04, 0x01,	    /* add word [0x46c], 1 */
	0x83, 0x16, 0x6e, 0x04, 0x00,	    /* adc word [0x46e], 0 */
	0x83, 0x3e, 0x6e, 0x04, 0x18,	    /* cmp word [0x46e], 0x18 */
	0x72, 0x15,			    /* jb .hook */
	0x77, 0x08,			    /* ja .midnight */
	0x81, 0x3e, 0x6c, 0x04, 0xb0, 0x00, /* cmp word [0x46c], 0xb0 */
	0x72, 0x0b,			    /* jb .hook */
	0xa3, 0x6c, 0x04,		    /* .midnight: mov [0x46c], ax (0) */
	0xa3, 0x6e, 0x04,		    /* mov [0x46e], ax */
	0xc6, 0x06, 0x70, 0x04, 0x01,	    /* mov byte [0x470], 1 */
	0xcd, 0x1c,			    /* .hook: int 0x1c */
	0xb0, 0x20,			    /* mov al, 0x20 (non-specific EOI) */
	0xe6, 0x20,			    /* out 0x20, al */
	0x58,				    /* pop ax */
	0x1f,				    /* pop ds */
	0xcf,				    /* iret */
};
static const u8 stub_master[] = { 0x50, 0xb0, 0x20, 0xe6, 0x20, 0x58, 0xcf };
static const u8 stub_slave[] = { 0x50, 0xb0, 0x20, 0xe6, 0xa0, 0xe6, 0x20, 0x58, 0xcf };

/* One handler table: where each goes (offset in the stub area) and which vectors use it. */
static const struct stub {
	const u8 *code;
	u8 len;
	u16 off;
	u8 first, last; /* vectors; first > last: the default */
} stubs[] = {
	{ stub_iret, sizeof(stub_iret), 0x00, 1, 0 },
	{ stub_timer, sizeof(stub_timer), 0x10, MASTER_BASE, MASTER_BASE },
	{ stub_master, sizeof(stub_master), 0x50, MASTER_BASE + 1, MASTER_BASE + 7 },
	{ stub_slave, sizeof(stub_slave), 0x60, SLAVE_BASE, SLAVE_BASE + 7 },
};

bool bios_wanted(enum bios_choice choice, bool multiboot1)
{
	return choice == BIOS_ON || (choice == BIOS_DEFAULT && multiboot1);
}

static void put16(u8 *p, u16 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
}

void bios_write_memory(struct vm *vm)
{
	u8 *ivt = memslots_ptr(&vm->mem, 0, IVT_VECTORS * 4);
	u8 *code = memslots_ptr(&vm->mem, BIOS_STUBS_GPA, 0x100);
	u8 *bda = memslots_ptr(&vm->mem, BDA_GPA, 0x100);
	const u16 seg = (u16)((BIOS_STUBS_GPA & ~0xffffull) >> 4), base = BIOS_STUBS_GPA & 0xffff;

	if (!ivt || !code || !bda)
		return; /* a guest too small for a BIOS area gets none */
	for (unsigned i = 0; i < ARRAY_SIZE(stubs); i++)
		memcpy(code + stubs[i].off, stubs[i].code, stubs[i].len);
	for (unsigned v = 0; v < IVT_VECTORS; v++) {
		u16 off = stubs[0].off;
		for (unsigned i = 1; i < ARRAY_SIZE(stubs); i++)
			if (v >= stubs[i].first && v <= stubs[i].last)
				off = stubs[i].off;
		put16(ivt + 4 * v, (u16)(base + off));
		put16(ivt + 4 * v + 2, seg);
	}
	memset(bda, 0, 0x100);
	put16(bda + 0x00, 0x3f8);   /* COM1 */
	put16(bda + 0x13, 639);	    /* KiB below the EBDA */
	put16(bda + 0x0e, 0x9fc0);  /* the EBDA's segment */
	put16(bda + 0x10, 1u << 9); /* equipment: one serial port */
}

void bios_start_devices(struct vm *vm, u64 now_ns)
{
	static const struct {
		u16 port;
		u8 val;
	} pic_init[] = {
		{ 0x20, 0x11 }, { 0x21, MASTER_BASE }, { 0x21, 0x04 }, { 0x21, 0x01 },
		{ 0xa0, 0x11 }, { 0xa1, SLAVE_BASE },  { 0xa1, 0x02 }, { 0xa1, 0x01 },
		{ 0x21, 0xfa }, { 0xa1, 0xff }, /* IRQ0 and the cascade open */
	};
	struct board *b = &vm->board;

	for (unsigned i = 0; i < ARRAY_SIZE(pic_init); i++)
		pic_write(&b->pic, pic_init[i].port, pic_init[i].val);
	/* Channel 0, lobyte/hibyte, mode 3, binary; count 0 = 65536: 1193182 / 65536 = 18.2 Hz. */
	pit_write(&b->pit, 0x43, 0x36, now_ns);
	pit_write(&b->pit, 0x40, 0x00, now_ns);
	pit_write(&b->pit, 0x40, 0x00, now_ns);
}
