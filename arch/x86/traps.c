/* SPDX-License-Identifier: GPL-2.0-only */
/* IDT setup and the exception dump: vector, error code, RIP, CR2, registers, backtrace. */
#include "arch/x86/traps.h"
#include "arch/x86/cpu.h"
#include "arch/x86/devirq.h"
#include "arch/x86/percpu.h"
#include "arch/x86/lapic.h"
#include "lib/printf.h"
#include "lib/assert.h"

struct idt_gate {
	u16 off_lo, sel;
	u8 ist, type;
	u16 off_mid;
	u32 off_hi, zero;
} PACKED;

static struct idt_gate idt[256] __attribute__((aligned(16)));
extern const u64 trap_stubs[34];  /* exceptions 0-31, then the timer and the spurious vector */
extern const char devirq_stubs[]; /* DEVIRQ_COUNT stubs of 16 bytes */
extern char __kernel_start[], __text_end[];

struct extable_entry {
	u64 insn, fixup;
};
extern const struct extable_entry __ex_table_start[], __ex_table_end[];

static bool apply_fixup(struct trap_frame *f)
{
	/* Linker symbols bound the section: count entries rather than compare distinct objects. */
	size_t n = ((uintptr_t)__ex_table_end - (uintptr_t)__ex_table_start) /
		   sizeof(struct extable_entry);
	for (size_t i = 0; i < n; i++)
		if (__ex_table_start[i].insn == f->rip) {
			f->rip = __ex_table_start[i].fixup;
			return true;
		}
	return false;
}

static const char *const vector_names[32] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO", "#TS",
	"#NP", "#SS", "#GP", "#PF", "?15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
	"?22", "?23", "?24", "?25", "?26", "?27", "#HV", "#VC", "#SX", "?31",
};

static void set_gate(int v, u64 handler, int ist)
{
	idt[v] = (struct idt_gate){
		.off_lo = handler & 0xffff,
		.sel = GDT_KCODE,
		.ist = (u8)ist,
		.type = 0x8e,
		.off_mid = (handler >> 16) & 0xffff,
		.off_hi = handler >> 32,
	};
}

void idt_init(void)
{
	/* No IST: on SVM the CPU keeps the guest's TR between exits (svm.c's VMLOAD set), so
	 * an IST stack would be read from the guest's TSS. Umbra runs at CPL 0 only, on a stack
	 * that is always valid, so an NMI, #DF or #MC can run on the stack it interrupts. */
	for (int v = 0; v < 32; v++)
		set_gate(v, trap_stubs[v], 0);
	set_gate(TIMER_VECTOR, trap_stubs[32], 0);
	set_gate(SPURIOUS_VECTOR, trap_stubs[33], 0);
	for (int v = 0; v < DEVIRQ_COUNT; v++)
		set_gate(DEVIRQ_FIRST + v, (u64)devirq_stubs + 16 * (u64)v, 0);
}

void idt_load(void)
{
	struct {
		u16 limit;
		u64 base;
	} PACKED idtr = { sizeof(idt) - 1, (u64)idt };
	__asm__ volatile("lidt %0" ::"m"(idtr));
}

static bool is_text(u64 a)
{
	return a >= (u64)__kernel_start && a < (u64)__text_end;
}

void backtrace_from(u64 rbp)
{
	kprintf("backtrace:");
	/* Stacks live in the identity-mapped low 4 GiB; stop at anything that is not a frame. */
	for (int depth = 0; depth < 16 && rbp && !(rbp & 7) && rbp < (4ull << 30); depth++) {
		u64 ret = ((u64 *)rbp)[1];
		if (!is_text(ret))
			break;
		kprintf(" 0x%lx", ret);
		rbp = ((u64 *)rbp)[0];
	}
	kprintf("\n");
}

void trap_handler(struct trap_frame *f)
{
	const char *name = f->vector < 32 ? vector_names[f->vector] : "?";

	if (f->vector == VEC_GP && apply_fixup(f))
		return;
	/* The timer only exists to force guests off the CPU: its work is done by the exit. */
	if (f->vector == TIMER_VECTOR) {
		lapic_eoi();
		return;
	}
	if (f->vector == SPURIOUS_VECTOR)
		return;
	/* A device's MSI: recorded for vmm/, which delivers it to its guest. */
	if (devirq_is(f->vector)) {
		devirq_arrived((u8)f->vector);
		return;
	}
	/* Umbra arms no breakpoint and never sets TF, so a #DB here is a guest's, raised after
	 * the world switch (Bochs' SVM does this with a guest's pending single step). Survive it:
	 * RF keeps an instruction breakpoint from firing again, TF off ends any stepping. */
	if (f->vector == VEC_DB) {
		static u32 stray_db;
		if (__atomic_fetch_add(&stray_db, 1, __ATOMIC_RELAXED) < 4)
			kprintf("cpu%d: stray #DB at rip 0x%lx (dr6 0x%lx) ignored\n",
				this_cpu_index(), f->rip, read_dr6());
		f->rflags = (f->rflags | RFLAGS_RF) & ~(u64)RFLAGS_TF;
		return;
	}

	kprintf("UMBRA EXCEPTION: cpu=%d vector=%lu %s error=0x%lx rip=0x%lx cr2=0x%lx\n",
		this_cpu_index(), f->vector, name, f->error_code, f->rip, read_cr2());
	kprintf("  rax=%016lx rbx=%016lx rcx=%016lx rdx=%016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
	kprintf("  rsi=%016lx rdi=%016lx rbp=%016lx rsp=%016lx\n", f->rsi, f->rdi, f->rbp, f->rsp);
	kprintf("  r8 =%016lx r9 =%016lx r10=%016lx r11=%016lx\n", f->r8, f->r9, f->r10, f->r11);
	kprintf("  r12=%016lx r13=%016lx r14=%016lx r15=%016lx\n", f->r12, f->r13, f->r14, f->r15);
	kprintf("  cs=0x%lx ss=0x%lx rflags=0x%lx cr0=0x%lx cr3=0x%lx cr4=0x%lx\n", f->cs, f->ss,
		f->rflags, read_cr0(), read_cr3(), read_cr4());
	if (is_text(f->rip))
		kprintf("  at rip 0x%lx (kernel text)\n", f->rip);
	backtrace_from(f->rbp);
	panic("unexpected exception %s on cpu %d", name, this_cpu_index());
}
