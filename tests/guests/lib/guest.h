/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest kernel library API: boot, console, faults and probes, CPU features, pages, paging. */
#ifndef GUEST_H
#define GUEST_H

#include <stdint.h>
#include <stddef.h>
#include "pv/abi.h"
#include "pv/guest/x86.h"

typedef unsigned long ulong; /* register width: 32 or 64 bits */

/* Paging modes, also the GUEST_MODE a test image is built for (suite.mk passes -DGUEST_MODE). */
enum pmode { PM_OFF, PM_32, PM_PAE, PM_64 };
extern const char *const pmode_name[];

#define PAGE_SIZE 4096ul
#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((ulong)(a)-1))

/* Entry bits shared by all formats (NX only in 8-byte entries). */
#define PTE_P (1ull << 0)
#define PTE_W (1ull << 1)
#define PTE_U (1ull << 2)
#define PTE_A (1ull << 5)
#define PTE_D (1ull << 6)
#define PTE_PS (1ull << 7)
#define PTE_G (1ull << 8)
#define PTE_NX (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull

/* #PF error code bits. */
#define PF_P 1u
#define PF_W 2u
#define PF_U 4u
#define PF_RSVD 8u
#define PF_I 16u

#define CR0_PE (1ul << 0)
#define CR0_ET (1ul << 4)
#define CR0_NE (1ul << 5)
#define CR0_WP (1ul << 16)
#define CR0_PG (1ul << 31)
#define CR4_PSE (1ul << 4)
#define CR4_PAE (1ul << 5)
#define CR4_PGE (1ul << 7)
#define CR4_SMEP (1ul << 20)
#define CR4_SMAP (1ul << 21)
#define MSR_EFER 0xc0000080u
#define EFER_NXE (1ull << 11)

/* ---- console and results ---- */
void kputc(char c);
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Counts a failed check and prints it (only the first few, to keep logs short). */
void check_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern unsigned long checks_failed;
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			check_failed(__VA_ARGS__); \
	} while (0)
/* Umbra-only checks call this natively. */
void skip_note(const char *what);
/* Ends the guest: PASS if no check failed, else FAIL with the count. */
__attribute__((noreturn)) void finish(void);
__attribute__((noreturn)) void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Unexpected exceptions end the guest with a triple fault instead of FAIL (crash guests). */
extern int fatal_triple;
__attribute__((noreturn)) void triple_fault(void);

/* Every test provides these. */
void test_main(void);
extern const char guest_name[];

/* ---- boot information (copied at entry; the originals may be overwritten) ---- */
extern uint64_t ram_bytes;  /* usable RAM is [1 MiB, ram_bytes) beside the image */
extern int booted_by_umbra; /* EAX was UMBRA_BOOT_MAGIC */
extern char boot_cmdline[128];
/* The value of KEY=VALUE among the command line's space-separated words, or NULL. */
const char *cmdline_value(const char *key);

/* ---- CPU ---- */
struct cpuid {
	uint32_t a, b, c, d;
};
struct cpuid cpuid(uint32_t leaf, uint32_t sub);
struct features {
	int pse, pae, pge, nx, smep, smap, gb, cx8, cx16, amd;
};
extern struct features cpu;
extern int on_umbra;	 /* CPUID leaf 0x40000000 carries Umbra's signature */
extern int umbra_nested; /* ... and says the CPU does the guest's paging (mmu=tdp) */
long umbra_hypercall(ulong nr, ulong a0, ulong a1);
long umbra_hypercall4(ulong nr, ulong a0, ulong a1, ulong a2, ulong a3);
int umbra_stats(struct umbra_stats *s); /* 0 on success */

/* EFLAGS.AC without STAC/CLAC, so it also works where SMAP is not offered. */
void set_ac(int on);
void set_cr0_bits(ulong set, ulong clear);
void set_cr4_bits(ulong set, ulong clear);
void set_efer_bits(uint64_t set, uint64_t clear);
static inline volatile uint32_t *phys32(uint64_t pa)
{
	return (volatile uint32_t *)(ulong)pa;
}

/* ---- faults and probes ---- */
struct fault_rec {
	ulong vector, error, cr2, ip, flags;
};
extern volatile struct fault_rec last_fault;
extern volatile ulong fault_count;
extern volatile ulong fault_recover; /* where the handler resumes after an expected fault */
/* Supervisor accesses: 0 on success, 1 if they faulted (see last_fault). The fetch probe calls
 * va, which must hold a `ret` (0xc3). */
int probe_read(ulong va, uint32_t *val);
int probe_write(ulong va, uint32_t val);
int probe_fetch(ulong va);
/* User (CPL 3) accesses through a user code page set up by user_setup(). A fetch irets to va,
 * which must hold `int $0x80` (cd 80). */
void user_setup(ulong code_va, ulong code_pa, ulong stack_va);
int user_read(ulong va, uint32_t *val);
int user_write(ulong va, uint32_t val);
int user_fetch(ulong va);
#define USER_FETCH_BYTES 0x80cd /* little-endian "int $0x80" */
#define SUP_FETCH_BYTES 0xc3	/* "ret" */

/* ---- interrupts ----
 * Every IDT vector has a library stub: 0-31 and 0x80 as above, 32-255 (but 0x80) for hardware
 * and software interrupts. A vector with a registered handler goes to it (exceptions included,
 * instead of the fault bookkeeping above); an interrupt vector without one ends the guest. */
#ifdef __x86_64__
struct frame {
	ulong r15, r14, r13, r12, r11, r10, r9, r8, di, si, bp, bx, dx, cx, ax;
	ulong vector, error, ip, cs, flags, sp, ss;
};
#else
/* sp and ss are only there when the event changed privilege (32-bit pushes them only then). */
struct frame {
	ulong di, si, bp, sp_unused, bx, dx, cx, ax;
	ulong vector, error, ip, cs, flags, sp, ss;
};
#endif
typedef void (*irq_fn)(struct frame *f);
/* Handlers run with IF=0 (interrupt gates) on the interrupted stack; they may sti to nest. */
void set_irq_handler(int vector, irq_fn fn); /* fn 0: back to the default */
ulong trap_stub(int vector); /* the library's entry for vector, for gates in other IDTs */
#define GATE_INT 0x8e	     /* present interrupt gate, DPL 0 (type-attribute byte) */
#define GATE_TRAP 0x8f	     /* present trap gate, DPL 0 */
/* Writes gate vector of the IDT at idt: handler, type-attribute byte, IST index (long mode). */
void gate_write(void *idt, int vector, ulong handler, unsigned attr, unsigned ist);
void *idt_base(void); /* the IDT in force (SIDT) */
void idt_load(const void *base, uint16_t limit);
void tss_set_ist(int n, ulong top); /* long mode: IST n (1-7) of the library's TSS */

/* TSC ticks per ms, measured once against PIT channel 2 (mode 0, gate in port 0x61), robust to
 * host stalls; a fallback of 3 GHz without a PIT, so timeouts still end. Never printed. */
ulong tsc_per_ms(void);
int tsc_calibrated(void); /* the measurement above worked */
/* Timeouts for loops that wait on a device: a deadline ms from now, and whether it passed. */
static inline uint64_t timeout_ms(ulong ms)
{
	return read_tsc() + (uint64_t)ms * tsc_per_ms();
}
static inline int timed_out(uint64_t deadline)
{
	return (int64_t)(read_tsc() - deadline) > 0;
}
void delay_ms(ulong ms); /* busy wait (interrupts as they are) */
/* Waits until cond holds or ms pass, with interrupts on; evaluates to cond, with IF=0 again.
 * POLL_IRQ_UNTIL spins, so a lost interrupt ends in a failed check, not a hang. HLT_UNTIL
 * halts between interrupts (each must wake it), testing cond with IF=0 so an interrupt
 * between the test and the hlt still wakes it (sti's shadow covers hlt). */
#define POLL_IRQ_UNTIL(cond, ms) \
	({ \
		uint64_t end_ = timeout_ms(ms); \
		irq_on(); \
		while (!(cond) && !timed_out(end_)) \
			asm volatile("pause"); \
		irq_off(); \
		(cond); \
	})
#define HLT_UNTIL(cond, ms) \
	({ \
		uint64_t end_ = timeout_ms(ms); \
		for (irq_off(); !(cond) && !timed_out(end_); irq_off()) \
			irq_wait(); \
		(cond); \
	})

/* The 8259 pair: ICW1-ICW4 (edge, cascade on IRQ2, 8086 mode, normal EOI), vectors at
 * base_m and base_s, every IRQ masked. */
void pic_remap(uint8_t base_m, uint8_t base_s);
void pic_set_mask(uint16_t mask); /* bit n masks IRQ n (8-15 on the slave) */
void pic_send_eoi(unsigned irq);  /* non-specific EOI: the slave too for IRQ 8-15 */

/* The local APIC (xAPIC MMIO; long-mode kernels map the page themselves). */
#define LAPIC_BASE 0xfee00000u
enum {
	LAPIC_ID = 0x20,
	LAPIC_VER = 0x30,
	LAPIC_TPR = 0x80,
	LAPIC_PPR = 0xa0,
	LAPIC_EOI = 0xb0,
	LAPIC_SVR = 0xf0,
	LAPIC_ISR = 0x100,
	LAPIC_TMR = 0x180,
	LAPIC_IRR = 0x200,
	LAPIC_ESR = 0x280,
	LAPIC_ICR_LO = 0x300,
	LAPIC_ICR_HI = 0x310,
	LAPIC_LVT_TIMER = 0x320,
	LAPIC_LVT_LINT0 = 0x350,
	LAPIC_LVT_LINT1 = 0x360,
	LAPIC_LVT_ERROR = 0x370,
	LAPIC_TIMER_INIT = 0x380,
	LAPIC_TIMER_CUR = 0x390,
	LAPIC_TIMER_DIV = 0x3e0,
};
#define LVT_MASKED (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define LVT_TSC_DEADLINE (2u << 17)
static inline uint32_t apic_reg_read(uint32_t off)
{
	return *phys32(LAPIC_BASE + off);
}
static inline void apic_reg_write(uint32_t off, uint32_t v)
{
	*phys32(LAPIC_BASE + off) = v;
}
/* Bit vector of the 256-bit ISR, TMR or IRR (base one of those offsets). */
static inline int apic_vec_bit(uint32_t base, unsigned vector)
{
	return (apic_reg_read(base + (vector / 32) * 0x10) >> (vector % 32)) & 1;
}

/* ---- physical pages ---- */
ulong page_alloc(void);				   /* zeroed 4 KiB frame */
ulong page_alloc_aligned(ulong size, ulong align); /* zeroed, contiguous */
ulong page_alloc_top(void); /* first address the allocator never handed out */

/* ---- paging ---- */
struct aspace {
	enum pmode mode;
	int levels; /* 2 (32-bit), 3 (PAE), 4 (long) */
	int bytes;  /* entry size */
	ulong root; /* what CR3 holds */
};
/* The test region: its top-level entry (and below) belongs to the tests alone. */
#if defined(__x86_64__)
#define TEST_VA 0x8000000000ul
#define USER_VA 0x10000000000ul
#else
#define TEST_VA 0x40000000ul
#define USER_VA 0x80000000ul
#endif
void as_init(struct aspace *as, enum pmode mode); /* root + supervisor identity map of RAM */
/* Clones the identity part of another space (shares its tables) and leaves the rest empty. */
void as_clone_kernel(struct aspace *as, const struct aspace *from);
void as_activate(const struct aspace *as);	      /* first activation also turns paging on */
ulong level_size(const struct aspace *as, int level); /* bytes one entry at level maps */
unsigned pt_index(const struct aspace *as, uint64_t va, int level);
/* The entry for va at level (1 = PT ... levels = root), creating tables above it if create. */
void *pt_entry(const struct aspace *as, uint64_t va, int level, int create);
uint64_t pte_get(const struct aspace *as, const void *e);
void pte_set(const struct aspace *as, void *e, uint64_t v);
/* Entries of every level walked for va, ents[levels..leaf]; returns the leaf level or 0. */
int pt_walk(const struct aspace *as, uint64_t va, void *ents[5]);
/* Maps va to pa with a leaf at level (1 = 4K, 2 = 2M/4M, 3 = 1G); tables above get P|W|U. */
void *map_page(const struct aspace *as, uint64_t va, uint64_t pa, int level, uint64_t flags);
/* Flags non-leaf tables get at level l (PAE PDPTEs take P only). */
uint64_t table_flags(const struct aspace *as, int level);
int large_level_ok(const struct aspace *as, int level); /* page size offered at that level */
const char *level_name(const struct aspace *as, int level);

/* A marker value per frame so a read shows which frame a mapping reached. */
static inline uint32_t marker_of(uint64_t pa)
{
	return 0x5a000000u ^ (uint32_t)(pa >> 12) ^ 0x00a50000u;
}
void frame_mark(ulong pa);
/* Reads va (supervisor) and checks it reaches frame pa; pa = 0 expects a not-present #PF. */
void expect_maps(ulong va, ulong pa, const char *what);

/* Small deterministic PRNG for tests that need garbage. */
uint32_t rand32(void);

#endif
