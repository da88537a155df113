/* SPDX-License-Identifier: GPL-2.0-only */
/* The gdb remote stub on COM2: one guest (gdb=NAME), served by that guest's CPU between slices. */
#include "vmm/debug/gdbstub.h"
#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/serial.h"
#include "arch/x86/tsc.h"
#include "lib/cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "vmm/debug/gdb_packet.h"
#include "vmm/gmem.h"
#include "vmm/options.h"
#include "vmm/vcpu.h"
#include "vmm/vm_lock.h"

enum { SIG_INT = 2, SIG_TRAP = 5 };
#define SWBP_MAX 64
#define POLL_NS 1000000ull /* how often a CPU looks at COM2 while nothing else wakes it */
#define INT3 0xcc

/* Where a register's value lives: S_GPR (index into gpr[]), S_SEL (segment), S_ST, S_XMM
 * (FXSAVE slots), S_FX16 / S_FX32 (FXSAVE field at byte idx), S_CR (CRn). */
enum reg_src {
	S_GPR,
	S_RIP,
	S_FLAGS,
	S_SEL,
	S_ST,
	S_FX16,
	S_FX32,
	S_FTAG,
	S_XMM,
	S_BASE,
	S_CR,
	S_EFER
};
enum reg_feature { F_CORE, F_SSE, F_SEGMENTS, F_CONTROL, F_COUNT };
enum { M32 = 1, M64 = 2, MB = 3 }; /* the modes a register exists in */

struct gdb_reg {
	const char *name;
	u8 modes, feature, src, idx;
	u8 bits;	  /* 0: the mode's word (32 or 64) */
	const char *type; /* NULL: a plain integer of that width */
};

/* Every register gdb sees, in its numbering: the order of the target description and of the
 * 'g' packet, both generated from this one table. */
/* clang-format off */
static const struct gdb_reg regs[] = {
	{ "eax", M32, F_CORE, S_GPR, X86_RAX, 0, NULL }, { "ecx", M32, F_CORE, S_GPR, X86_RCX, 0, NULL },
	{ "edx", M32, F_CORE, S_GPR, X86_RDX, 0, NULL }, { "ebx", M32, F_CORE, S_GPR, X86_RBX, 0, NULL },
	{ "esp", M32, F_CORE, S_GPR, X86_RSP, 0, "data_ptr" },
	{ "ebp", M32, F_CORE, S_GPR, X86_RBP, 0, "data_ptr" },
	{ "esi", M32, F_CORE, S_GPR, X86_RSI, 0, NULL }, { "edi", M32, F_CORE, S_GPR, X86_RDI, 0, NULL },
	{ "eip", M32, F_CORE, S_RIP, 0, 0, "code_ptr" },
	{ "rax", M64, F_CORE, S_GPR, X86_RAX, 0, NULL }, { "rbx", M64, F_CORE, S_GPR, X86_RBX, 0, NULL },
	{ "rcx", M64, F_CORE, S_GPR, X86_RCX, 0, NULL }, { "rdx", M64, F_CORE, S_GPR, X86_RDX, 0, NULL },
	{ "rsi", M64, F_CORE, S_GPR, X86_RSI, 0, NULL }, { "rdi", M64, F_CORE, S_GPR, X86_RDI, 0, NULL },
	{ "rbp", M64, F_CORE, S_GPR, X86_RBP, 0, "data_ptr" },
	{ "rsp", M64, F_CORE, S_GPR, X86_RSP, 0, "data_ptr" },
	{ "r8", M64, F_CORE, S_GPR, 8, 0, NULL }, { "r9", M64, F_CORE, S_GPR, 9, 0, NULL },
	{ "r10", M64, F_CORE, S_GPR, 10, 0, NULL }, { "r11", M64, F_CORE, S_GPR, 11, 0, NULL },
	{ "r12", M64, F_CORE, S_GPR, 12, 0, NULL }, { "r13", M64, F_CORE, S_GPR, 13, 0, NULL },
	{ "r14", M64, F_CORE, S_GPR, 14, 0, NULL }, { "r15", M64, F_CORE, S_GPR, 15, 0, NULL },
	{ "rip", M64, F_CORE, S_RIP, 0, 0, "code_ptr" },
	{ "eflags", MB, F_CORE, S_FLAGS, 0, 32, NULL },
	{ "cs", MB, F_CORE, S_SEL, X86_CS, 32, NULL }, { "ss", MB, F_CORE, S_SEL, X86_SS, 32, NULL },
	{ "ds", MB, F_CORE, S_SEL, X86_DS, 32, NULL }, { "es", MB, F_CORE, S_SEL, X86_ES, 32, NULL },
	{ "fs", MB, F_CORE, S_SEL, X86_FS, 32, NULL }, { "gs", MB, F_CORE, S_SEL, X86_GS, 32, NULL },
	{ "st0", MB, F_CORE, S_ST, 0, 80, "i387_ext" }, { "st1", MB, F_CORE, S_ST, 1, 80, "i387_ext" },
	{ "st2", MB, F_CORE, S_ST, 2, 80, "i387_ext" }, { "st3", MB, F_CORE, S_ST, 3, 80, "i387_ext" },
	{ "st4", MB, F_CORE, S_ST, 4, 80, "i387_ext" }, { "st5", MB, F_CORE, S_ST, 5, 80, "i387_ext" },
	{ "st6", MB, F_CORE, S_ST, 6, 80, "i387_ext" }, { "st7", MB, F_CORE, S_ST, 7, 80, "i387_ext" },
	/* The FXSAVE image's fields, at their byte offsets (the tag word is the abridged one). */
	{ "fctrl", MB, F_CORE, S_FX16, 0, 32, NULL }, { "fstat", MB, F_CORE, S_FX16, 2, 32, NULL },
	{ "ftag", MB, F_CORE, S_FTAG, 4, 32, NULL }, { "fiseg", MB, F_CORE, S_FX16, 12, 32, NULL },
	{ "fioff", MB, F_CORE, S_FX32, 8, 32, NULL }, { "foseg", MB, F_CORE, S_FX16, 20, 32, NULL },
	{ "fooff", MB, F_CORE, S_FX32, 16, 32, NULL }, { "fop", MB, F_CORE, S_FX16, 6, 32, NULL },
	{ "xmm0", MB, F_SSE, S_XMM, 0, 128, "vec128" }, { "xmm1", MB, F_SSE, S_XMM, 1, 128, "vec128" },
	{ "xmm2", MB, F_SSE, S_XMM, 2, 128, "vec128" }, { "xmm3", MB, F_SSE, S_XMM, 3, 128, "vec128" },
	{ "xmm4", MB, F_SSE, S_XMM, 4, 128, "vec128" }, { "xmm5", MB, F_SSE, S_XMM, 5, 128, "vec128" },
	{ "xmm6", MB, F_SSE, S_XMM, 6, 128, "vec128" }, { "xmm7", MB, F_SSE, S_XMM, 7, 128, "vec128" },
	{ "xmm8", M64, F_SSE, S_XMM, 8, 128, "vec128" }, { "xmm9", M64, F_SSE, S_XMM, 9, 128, "vec128" },
	{ "xmm10", M64, F_SSE, S_XMM, 10, 128, "vec128" },
	{ "xmm11", M64, F_SSE, S_XMM, 11, 128, "vec128" },
	{ "xmm12", M64, F_SSE, S_XMM, 12, 128, "vec128" },
	{ "xmm13", M64, F_SSE, S_XMM, 13, 128, "vec128" },
	{ "xmm14", M64, F_SSE, S_XMM, 14, 128, "vec128" },
	{ "xmm15", M64, F_SSE, S_XMM, 15, 128, "vec128" },
	{ "mxcsr", MB, F_SSE, S_FX32, 24, 32, NULL },
	{ "fs_base", M64, F_SEGMENTS, S_BASE, X86_FS, 64, NULL },
	{ "gs_base", M64, F_SEGMENTS, S_BASE, X86_GS, 64, NULL },
	{ "cr0", MB, F_CONTROL, S_CR, 0, 0, NULL }, { "cr2", MB, F_CONTROL, S_CR, 2, 0, NULL },
	{ "cr3", MB, F_CONTROL, S_CR, 3, 0, NULL }, { "cr4", MB, F_CONTROL, S_CR, 4, 0, NULL },
	{ "efer", MB, F_CONTROL, S_EFER, 0, 64, NULL },
};
/* clang-format on */
#define NREGS (sizeof(regs) / sizeof(regs[0]))

static const char *const feature_names[F_COUNT] = {
	"org.gnu.gdb.i386.core",
	"org.gnu.gdb.i386.sse",
	"org.gnu.gdb.i386.segments",
	"org.umbra.x86.control",
};

/* A hardware breakpoint (type 1) or watchpoint (2 write, 4 access) in debug register slot. */
struct hwbp {
	u64 addr;
	u8 type, len;
	bool used;
};

struct swbp {
	u64 addr;
	u8 orig;
	bool used;
};

static struct {
	struct vm *vm;			/* the target; NULL: no stub */
	bool (*rcmd)(const char *line); /* where gdb's "monitor CMD" goes (gdbstub_init) */
	struct gdb_rx rx;
	char reply[GDB_PACKET_MAX];
	u32 reply_len;
	char out[2 * GDB_PACKET_MAX + 8]; /* the last framed reply, for a '-' */
	u32 out_len;
	bool lm;	 /* the register layout is x86-64's (else i386's) */
	bool report_due; /* a stop gdb has not been told of yet */
	int signal;
	const char *why; /* the stop reason's key ("swbreak:;"), or "" */
	bool guest_tf;	 /* RFLAGS.TF as the guest had it before gdb's step */
	bool mtf;	 /* the step runs on the monitor trap flag, not TF */
	bool step_told;	 /* the log said how gdb steps */
	u64 stop_tsc;
	struct swbp bp[SWBP_MAX];
	struct hwbp hw[4];
	char why_buf[40];
	char xml[8192];
	u32 xml_len;
} gdb;

bool gdbstub_attached(const struct vm *vm)
{
	return vm && gdb.vm == vm;
}

/* ---- replies ---- */

static void put(const char *s)
{
	u32 n = (u32)strlen(s);
	if (n > sizeof(gdb.reply) - gdb.reply_len)
		n = sizeof(gdb.reply) - gdb.reply_len;
	memcpy(gdb.reply + gdb.reply_len, s, n);
	gdb.reply_len += n;
}

static void putf(const char *fmt, ...) PRINTF_LIKE(1, 2);
static void putf(const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(buf);
}

static void put_hex(const void *bytes, u32 len)
{
	if (2 * len > sizeof(gdb.reply) - gdb.reply_len)
		len = (u32)(sizeof(gdb.reply) - gdb.reply_len) / 2;
	gdb_to_hex(gdb.reply + gdb.reply_len, bytes, len);
	gdb.reply_len += 2 * len;
}

static void transmit(void)
{
	for (u32 i = 0; i < gdb.out_len; i++)
		serial2_putc((u8)gdb.out[i]);
}

static void send_reply(void)
{
	gdb.out_len = gdb_frame(gdb.out, sizeof(gdb.out), gdb.reply, gdb.reply_len);
	gdb.reply_len = 0;
	transmit();
}

/* ---- registers ---- */

static u32 reg_bytes(const struct gdb_reg *r)
{
	return (r->bits ? r->bits : gdb.lm ? 64 : 32) / 8;
}

static bool in_layout(const struct gdb_reg *r)
{
	return r->modes & (gdb.lm ? M64 : M32);
}

/* A little-endian field of the FXSAVE image. */
static u64 fpu_le(const u8 *p, unsigned n)
{
	u64 val = 0;
	for (unsigned i = 0; i < n; i++)
		val |= (u64)p[i] << (8 * i);
	return val;
}

/* Fills buf (little endian, 16 bytes at most) with the register's value. */
static void reg_read(struct vcpu *v, const struct gdb_reg *r, u8 *buf)
{
	const struct x86_emu_ctx *c = &v->hw.regs;
	u64 val = 0;

	memset(buf, 0, 16);
	switch (r->src) {
	case S_GPR:
		val = c->gpr[r->idx];
		break;
	case S_RIP:
		val = c->rip;
		break;
	case S_FLAGS:
		val = c->rflags;
		break;
	case S_SEL:
		val = c->seg[r->idx].sel;
		break;
	case S_BASE:
		val = c->seg[r->idx].base;
		break;
	case S_CR:
		val = r->idx == 0 ? c->cr0 : r->idx == 2 ? c->cr2 : r->idx == 3 ? c->cr3 : c->cr4;
		break;
	case S_EFER:
		val = c->efer;
		break;
	case S_ST:
		memcpy(buf, v->fpu + 32 + 16 * r->idx, 10);
		return;
	case S_XMM:
		memcpy(buf, v->fpu + 160 + 16 * r->idx, 16);
		return;
	case S_FX16:
		val = fpu_le(v->fpu + r->idx, 2);
		break;
	case S_FX32:
		val = fpu_le(v->fpu + r->idx, 4);
		break;
	case S_FTAG: {
		/* The full tag word from FXSAVE's abridged one: empty (3) or valid (0). */
		u8 abridged = v->fpu[r->idx];
		for (int i = 0; i < 8; i++)
			val |= (abridged >> i & 1) ? 0 : 3ull << (2 * i);
		break;
	}
	}
	memcpy(buf, &val, 8);
}

/* Only what the guest could set itself with no side effect Umbra must see is writable: GPRs,
 * RIP and RFLAGS. false for the others. */
static bool reg_write(struct vcpu *v, const struct gdb_reg *r, const u8 *buf)
{
	u64 val = 0;
	memcpy(&val, buf, reg_bytes(r) < 8 ? reg_bytes(r) : 8);
	switch (r->src) {
	case S_GPR:
		v->hw.regs.gpr[r->idx] =
			gdb.lm ? val : (v->hw.regs.gpr[r->idx] & ~0xffffffffull) | (u32)val;
		return true;
	case S_RIP:
		v->hw.regs.rip = gdb.lm ? val : (u32)val;
		return true;
	case S_FLAGS:
		/* Bit 1 is always set; the rest the guest's POPF could not set stays as it is. */
		v->hw.regs.rflags = ((u32)val & 0x3f7fd5) | 2;
		return true;
	default:
		return false;
	}
}

/* ---- the target description ---- */

static void xml_add(const char *fmt, ...) PRINTF_LIKE(1, 2);
static void xml_add(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(gdb.xml + gdb.xml_len, sizeof(gdb.xml) - gdb.xml_len, fmt, ap);
	va_end(ap);
	if (n > 0 && (u32)n < sizeof(gdb.xml) - gdb.xml_len)
		gdb.xml_len += (u32)n;
}

static void build_xml(void)
{
	u32 regnum = 0;

	gdb.xml_len = 0;
	xml_add("<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
		"<target version=\"1.0\"><architecture>%s</architecture>",
		gdb.lm ? "i386:x86-64" : "i386");
	for (int f = 0; f < F_COUNT; f++) {
		bool open = false;
		for (u32 i = 0; i < NREGS; i++) {
			const struct gdb_reg *r = &regs[i];
			if (r->feature != f || !in_layout(r))
				continue;
			if (!open) {
				xml_add("<feature name=\"%s\">", feature_names[f]);
				if (f == F_SSE)
					xml_add("<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>"
						"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>"
						"<union id=\"vec128\"><field name=\"v4_int32\" "
						"type=\"v4i32\"/><field name=\"v2_int64\" "
						"type=\"v2i64\"/><field name=\"uint128\" "
						"type=\"uint128\"/></union>");
				open = true;
			}
			u32 bits = reg_bytes(r) * 8;
			if (r->bits == 80)
				bits = 80;
			xml_add("<reg name=\"%s\" bitsize=\"%u\" regnum=\"%u\" type=\"%s%s\"/>",
				r->name, bits, regnum++, r->type ? r->type : "int",
				r->type	     ? ""
				: bits == 64 ? "64"
					     : "32");
		}
		if (open)
			xml_add("</feature>");
	}
	xml_add("</target>");
}

/* ---- software breakpoints ---- */

static struct swbp *bp_find(u64 addr)
{
	for (int i = 0; i < SWBP_MAX; i++)
		if (gdb.bp[i].used && gdb.bp[i].addr == addr)
			return &gdb.bp[i];
	return NULL;
}

static const char *bp_insert(struct vcpu *v, u64 addr)
{
	u8 orig, int3 = INT3;

	if (bp_find(addr))
		return "OK";
	struct swbp *b = NULL;
	for (int i = 0; i < SWBP_MAX && !b; i++)
		if (!gdb.bp[i].used)
			b = &gdb.bp[i];
	if (!b)
		return "E28"; /* ENOSPC */
	if (gmem_debug_access(v, addr, &orig, 1, false) < 0 ||
	    gmem_debug_access(v, addr, &int3, 1, true) < 0)
		return "E0e"; /* EFAULT */
	*b = (struct swbp){ .addr = addr, .orig = orig, .used = true };
	return "OK";
}

static const char *bp_remove(struct vcpu *v, u64 addr)
{
	struct swbp *b = bp_find(addr);
	if (!b)
		return "OK";
	/* The page may be gone by now: the entry goes anyway (gdb will not ask again). */
	gmem_debug_access(v, addr, &b->orig, 1, true);
	b->used = false;
	return "OK";
}

static void bp_remove_all(struct vcpu *v)
{
	for (int i = 0; i < SWBP_MAX; i++)
		if (gdb.bp[i].used)
			bp_remove(v, gdb.bp[i].addr);
}

/* ---- hardware breakpoints and watchpoints ---- */

/* DR7 for gdb's slots: local enable, R/W (00 exec, 01 write, 11 access), LEN, exact (LE). */
static void hw_apply(struct vcpu *v)
{
	u64 dr[4] = { 0 }, dr7 = 0;
	bool any = false;
	for (int i = 0; i < 4; i++) {
		const struct hwbp *h = &gdb.hw[i];
		if (!h->used)
			continue;
		u64 rw = h->type == 1 ? 0 : h->type == 2 ? 1 : 3;
		u64 len = h->type == 1	? 0
			  : h->len == 1 ? 0
			  : h->len == 2 ? 1
			  : h->len == 8 ? 2
					: 3;
		dr[i] = h->addr;
		dr7 |= BIT(2 * i) | (rw << (16 + 4 * i)) | (len << (18 + 4 * i));
		any = true;
	}
	vcpu_dr_debugger(v, any, dr, any ? dr7 | BIT(8) | BIT(10) : 0);
}

static const char *hw_insert(struct vcpu *v, u64 type, u64 addr, u64 len)
{
	if (type == 1)
		len = 1;
	if ((len != 1 && len != 2 && len != 4 && len != 8) || (addr & (len - 1)))
		return "E16"; /* the CPU watches aligned 1, 2, 4 or 8 bytes */
	for (int i = 0; i < 4; i++)
		if (!gdb.hw[i].used) {
			gdb.hw[i] = (struct hwbp){
				.addr = addr, .type = (u8)type, .len = (u8)len, .used = true
			};
			hw_apply(v);
			return "OK";
		}
	return "E1c"; /* ENOSPC: four debug registers */
}

static const char *hw_remove(struct vcpu *v, u64 type, u64 addr)
{
	for (int i = 0; i < 4; i++)
		if (gdb.hw[i].used && gdb.hw[i].type == type && gdb.hw[i].addr == addr) {
			gdb.hw[i].used = false;
			hw_apply(v);
			break;
		}
	return "OK";
}

/* ---- run control ---- */

static void stop(struct vcpu *v, int signal, const char *why)
{
	if (v->debug_step && gdb.mtf)
		virt->single_step(&v->hw, false);
	else if (v->debug_step)
		v->hw.regs.rflags =
			(v->hw.regs.rflags & ~(u64)RFLAGS_TF) | (gdb.guest_tf ? RFLAGS_TF : 0);
	v->debug_step = false;
	v->debug_stop = true;
	gdb.signal = signal;
	gdb.why = why;
	gdb.report_due = true;
	gdb.stop_tsc = rdtsc();
}

static void resume(struct vcpu *v, bool step)
{
	struct vm *vm = v->vm;
	/* Time held by the debugger does not count against the guest's budget. */
	if (vm->end_tsc != ~0ull)
		vm->end_tsc += rdtsc() - gdb.stop_tsc;
	if (step) {
		/* The monitor trap flag where the CPU has it: the guest sees nothing (TF would show
		 * in a PUSHF and in the frame of an exception taken by the step). */
		gdb.mtf = virt->single_step(&v->hw, true);
		if (!gdb.mtf) {
			gdb.guest_tf = v->hw.regs.rflags & RFLAGS_TF;
			v->hw.regs.rflags |= RFLAGS_TF;
		}
		if (!gdb.step_told)
			kprintf("umbra: gdb steps %s with %s\n", v->vm->name,
				gdb.mtf ? "the monitor trap flag" : "RFLAGS.TF");
		gdb.step_told = true;
		v->debug_step = true;
	}
	gdb.report_due = false;
	v->debug_stop = false;
}

static void put_stop_reply(void)
{
	putf("T%02xthread:1;%s", gdb.signal, gdb.why);
}

/* Stops the guest unless it is stopped, and answers with the stop (which is then told). */
static void stop_and_reply(struct vcpu *v, int signal)
{
	if (!v->debug_stop)
		stop(v, signal, "");
	put_stop_reply();
	gdb.report_due = false;
}

bool gdbstub_debug_exit(struct vcpu *v, u8 vector, u64 dr6)
{
	if (!gdbstub_attached(v->vm))
		return false;
	if (vector == VEC_BP) {
		virt->read_segments(&v->hw);
		u64 linear = v->hw.regs.seg[X86_CS].base + v->hw.regs.rip;
		if (!(v->hw.regs.efer & EFER_LMA))
			linear = (u32)linear;
		if (!bp_find(linear))
			return false;
		stop(v, SIG_TRAP, "swbreak:;");
		return true;
	}
	if (vector == VEC_DB && v->debug_dr_own) {
		/* Which of gdb's slots hit: from the exit, or DR6 where the CPU set it. */
		u64 hits = (dr6 | virt->get_dr(&v->hw, 6)) & DR6_B0_B3;
		virt->set_dr(&v->hw, 6, DR6_INIT);
		for (int i = 0; i < 4; i++) {
			const struct hwbp *h = &gdb.hw[i];
			if (!h->used || !(hits & BIT(i)))
				continue;
			if (h->type == 1)
				fmt_snprintf(gdb.why_buf, sizeof(gdb.why_buf), "hwbreak:;");
			else
				fmt_snprintf(gdb.why_buf, sizeof(gdb.why_buf), "%s:%lx;",
					     h->type == 2 ? "watch" : "awatch", h->addr);
			stop(v, SIG_TRAP, gdb.why_buf);
			/* An instruction breakpoint is a fault: RF lets it run once resumed. */
			if (h->type == 1)
				v->hw.regs.rflags |= RFLAGS_RF;
			return true;
		}
	}
	if (vector == VEC_DB && v->debug_step) {
		stop(v, SIG_TRAP, "");
		return true;
	}
	return false;
}

/* ---- commands ---- */

static void cmd_read_regs(struct vcpu *v)
{
	u8 buf[16];
	virt->read_segments(&v->hw);
	for (u32 i = 0; i < NREGS; i++) {
		if (!in_layout(&regs[i]))
			continue;
		reg_read(v, &regs[i], buf);
		put_hex(buf, regs[i].bits == 80 ? 10 : reg_bytes(&regs[i]));
	}
}

static u32 reg_size(const struct gdb_reg *r)
{
	return r->bits == 80 ? 10 : reg_bytes(r);
}

static void cmd_write_regs(struct vcpu *v, const char *p)
{
	u8 buf[16];
	u32 len = (u32)strlen(p), need = 0;

	/* Checked whole first, so a bad packet changes nothing. A packet shorter than the layout
	 * sets the registers it has in full. */
	for (u32 i = 0; i < len; i++)
		if (hex_digit(p[i]) < 0)
			len = 0;
	for (u32 i = 0; i < NREGS && need < len; i++)
		if (in_layout(&regs[i]))
			need += 2 * reg_size(&regs[i]);
	if (!len || need != len) {
		put("E16");
		return;
	}
	for (u32 i = 0; i < NREGS && *p; i++) {
		if (!in_layout(&regs[i]))
			continue;
		u32 n = reg_size(&regs[i]);
		gdb_from_hex(buf, p, n);
		reg_write(v, &regs[i], buf);
		p += 2 * n;
	}
	put("OK");
}

/* The n-th register of the layout, or NULL. */
static const struct gdb_reg *reg_nth(u64 n)
{
	for (u32 i = 0; i < NREGS; i++)
		if (in_layout(&regs[i]) && n-- == 0)
			return &regs[i];
	return NULL;
}

static void cmd_read_reg(struct vcpu *v, const char *p)
{
	u64 n;
	u8 buf[16];
	const struct gdb_reg *r;
	if (gdb_parse_hex(&p, &n) <= 0 || *p || !(r = reg_nth(n))) {
		put("E16");
		return;
	}
	virt->read_segments(&v->hw);
	reg_read(v, r, buf);
	put_hex(buf, reg_size(r));
}

static void cmd_write_reg(struct vcpu *v, const char *p)
{
	u64 n;
	u8 buf[16];
	const struct gdb_reg *r;
	if (gdb_parse_hex(&p, &n) <= 0 || *p++ != '=' || !(r = reg_nth(n)) ||
	    strlen(p) != 2 * reg_size(r) || !gdb_from_hex(buf, p, reg_size(r))) {
		put("E16");
		return;
	}
	put(reg_write(v, r, buf) ? "OK" : "E01");
}

/* "ADDR,LEN" and what follows it. */
static bool parse_range(const char **p, u64 *addr, u64 *len)
{
	return gdb_parse_hex(p, addr) > 0 && *(*p)++ == ',' && gdb_parse_hex(p, len) > 0;
}

static void cmd_read_mem(struct vcpu *v, const char *p)
{
	u64 addr, len;
	u8 buf[GDB_PACKET_MAX / 2];

	if (!parse_range(&p, &addr, &len) || *p) {
		put("E16");
		return;
	}
	if (len > sizeof(buf))
		len = sizeof(buf); /* gdb reads the rest in a second packet */
	if (gmem_debug_access(v, addr, buf, len, false) < 0) {
		put("E0e");
		return;
	}
	/* gdb sees the memory as it was: its breakpoints stay hidden. */
	for (int i = 0; i < SWBP_MAX; i++)
		if (gdb.bp[i].used && gdb.bp[i].addr - addr < len)
			buf[gdb.bp[i].addr - addr] = gdb.bp[i].orig;
	put_hex(buf, (u32)len);
}

static void cmd_write_mem(struct vcpu *v, const char *p)
{
	u64 addr, len;
	u8 buf[GDB_PACKET_MAX / 2];

	if (!parse_range(&p, &addr, &len) || *p++ != ':' || len > sizeof(buf) ||
	    strlen(p) != 2 * len || !gdb_from_hex(buf, p, (u32)len)) {
		put("E16");
		return;
	}
	/* A write over a breakpoint changes what it will restore; the INT3 stays. */
	for (int i = 0; i < SWBP_MAX; i++)
		if (gdb.bp[i].used && gdb.bp[i].addr - addr < len) {
			gdb.bp[i].orig = buf[gdb.bp[i].addr - addr];
			buf[gdb.bp[i].addr - addr] = INT3;
		}
	put(gmem_debug_access(v, addr, buf, len, true) < 0 ? "E0e" : "OK");
}

static void cmd_breakpoint(struct vcpu *v, const char *p, bool insert)
{
	u64 type, addr, kind;
	if (gdb_parse_hex(&p, &type) <= 0 || *p++ != ',' || !parse_range(&p, &addr, &kind)) {
		put("E16");
		return;
	}
	if (type == 0)
		put(insert ? bp_insert(v, addr) : bp_remove(v, addr));
	else if (type == 1 || type == 2 || type == 4)
		put(insert ? hw_insert(v, type, addr, kind) : hw_remove(v, type, addr));
	/* else (3, read watchpoints: x86 has none) empty, "not supported" */
}

static void cmd_xfer(const char *p)
{
	static const char prefix[] = "features:read:target.xml:";
	u64 off, len;
	if (strncmp(p, prefix, sizeof(prefix) - 1)) {
		put("E00");
		return;
	}
	p += sizeof(prefix) - 1;
	if (!parse_range(&p, &off, &len) || *p) {
		put("E16");
		return;
	}
	if (off >= gdb.xml_len) {
		put("l");
		return;
	}
	u64 room = sizeof(gdb.reply) / 2 - 1; /* escaping may double it */
	u64 n = gdb.xml_len - off;
	if (n > len)
		n = len;
	if (n > room)
		n = room;
	put(off + n < gdb.xml_len ? "m" : "l");
	memcpy(gdb.reply + gdb.reply_len, gdb.xml + off, n);
	gdb.reply_len += (u32)n;
}

/* Continue or step, from 'c', 's', 'C', 'S' or a vCont action. Returns whether it resumed. */
static void do_resume(struct vcpu *v, char action, const char *addr)
{
	u64 a;
	if (addr && gdb_parse_hex(&addr, &a) > 0)
		v->hw.regs.rip = a;
	resume(v, action == 's' || action == 'S');
}

static void cmd_vcont(struct vcpu *v, const char *p)
{
	if (!strcmp(p, "?")) {
		put("vCont;c;C;s;S;t");
		return;
	}
	if (*p++ != ';') {
		put("E16");
		return;
	}
	/* One vCPU: the first action applies to it. */
	char action = *p;
	switch (action) {
	case 'c':
	case 'C':
	case 's':
	case 'S':
		do_resume(v, action, NULL);
		return;
	case 't':
		stop_and_reply(v, SIG_INT);
		return;
	default:
		put("E16");
	}
}

static void detach(struct vcpu *v)
{
	bp_remove_all(v);
	memset(gdb.hw, 0, sizeof(gdb.hw));
	hw_apply(v);
	if (v->debug_stop)
		resume(v, false);
	kprintf("umbra: gdb detached from %s; it runs on\n", v->vm->name);
}

/* One packet; the reply (possibly empty: "not supported") is sent unless the guest resumed. */
static void handle_packet(struct vcpu *v, const char *p)
{
	bool was_stopped = v->debug_stop;

	gdb.reply_len = 0;
	if (!was_stopped && p[0] != '?' && strncmp(p, "vCont", 5) && p[0] != 'q') {
		/* Commands need a stopped guest: gdb sends them only after a stop reply. */
		put("E10");
		send_reply();
		return;
	}
	switch (p[0]) {
	case '?':
		/* A gdb that connects to a running guest stops it, as attaching does. */
		stop_and_reply(v, SIG_TRAP);
		break;
	case 'g':
		cmd_read_regs(v);
		break;
	case 'G':
		cmd_write_regs(v, p + 1);
		break;
	case 'p':
		cmd_read_reg(v, p + 1);
		break;
	case 'P':
		cmd_write_reg(v, p + 1);
		break;
	case 'm':
		cmd_read_mem(v, p + 1);
		break;
	case 'M':
		cmd_write_mem(v, p + 1);
		break;
	case 'Z':
		cmd_breakpoint(v, p + 1, true);
		break;
	case 'z':
		cmd_breakpoint(v, p + 1, false);
		break;
	case 'c':
	case 's':
		do_resume(v, p[0], p + 1);
		return;
	case 'C':
	case 'S': {
		/* The signal means nothing to a guest: continue or step without it. */
		const char *semi = strchr(p, ';');
		do_resume(v, p[0], semi ? semi + 1 : NULL);
		return;
	}
	case 'v':
		if (!strncmp(p, "vCont", 5)) {
			cmd_vcont(v, p + 5);
			if (!v->debug_stop)
				return;
		} else if (!strncmp(p, "vKill", 5)) {
			detach(v);
			put("OK");
		}
		break;
	case 'D':
		put("OK");
		send_reply();
		detach(v);
		return;
	case 'k':
		/* Umbra's guests are not gdb's to kill: kill detaches (README). */
		detach(v);
		return;
	case 'H':
	case 'T':
		put("OK");
		break;
	case 'q':
		if (!strncmp(p, "qSupported", 10)) {
			/* The layout is fixed for the connection: the guest's mode now, unless
			 * gdbarch= names one (a 64-bit kernel that boots in 32-bit mode). */
			gdb.lm =
				options.gdbarch ? options.gdbarch == 2 : v->hw.regs.efer & EFER_LMA;
			build_xml();
			putf("PacketSize=%x;qXfer:features:read+;swbreak+;hwbreak+;vContSupported+",
			     GDB_PACKET_MAX);
		} else if (!strncmp(p, "qXfer:", 6)) {
			cmd_xfer(p + 6);
		} else if (!strncmp(p, "qRcmd,", 6)) {
			/* gdb's "monitor CMD": queued for the monitor, whose answer goes to
			 * Umbra's console (the stub holds the guest's lock, the monitor takes it). */
			char line[64];
			u32 n = (u32)strlen(p + 6) / 2;
			if (n >= sizeof(line) || !gdb_from_hex(line, p + 6, n))
				put("E16");
			else {
				line[n] = 0;
				put(gdb.rcmd && gdb.rcmd(line) ? "OK" : "E10");
			}
		} else if (!strcmp(p, "qAttached")) {
			put("1");
		} else if (!strcmp(p, "qC")) {
			put("QC1");
		} else if (!strcmp(p, "qfThreadInfo")) {
			put("m1");
		} else if (!strcmp(p, "qsThreadInfo")) {
			put("l");
		}
		break;
	default:
		break;
	}
	send_reply();
}

/* ---- the stub's life ---- */

void gdbstub_init(const char *name, bool wait, bool (*rcmd)(const char *line))
{
	struct vm *vm = vm_by_name(name);
	if (!vm) {
		kprintf("umbra: gdb=%s names no guest; no gdb stub\n", name);
		return;
	}
	serial2_init();
	gdb_rx_reset(&gdb.rx);
	gdb.vm = vm;
	gdb.rcmd = rcmd;
	vm->vcpus[0].hw.exc_debug = BIT(3); /* INT3 exits while gdb may have breakpoints */
	if (wait) {
		vm->vcpus[0].debug_stop = true;
		gdb.signal = SIG_TRAP;
		gdb.why = "";
	}
	kprintf("umbra: gdb stub for %s on COM2%s\n", name,
		wait ? ", stopped before its first instruction" : "");
}

bool gdbstub_poll(struct vm *vm, u64 *wake)
{
	if (!gdbstub_attached(vm))
		return false;
	struct vcpu *v = &vm->vcpus[0];
	int c;
	vm_lock(vm);
	if (v->debug_stop && !gdb.stop_tsc)
		gdb.stop_tsc = rdtsc(); /* gdbwait: held from its start */
	/* A bounded batch: a flood on COM2 cannot keep the CPU from its other guests. */
	for (int n = 0; n < 4 * GDB_PACKET_MAX && (c = serial2_getc()) >= 0; n++) {
		switch (gdb_rx_byte(&gdb.rx, (u8)c)) {
		case GDB_RX_PACKET:
			serial2_putc('+');
			handle_packet(v, gdb.rx.buf);
			break;
		case GDB_RX_BAD:
			serial2_putc('-');
			break;
		case GDB_RX_NACK:
			transmit();
			break;
		case GDB_RX_INTERRUPT:
			if (!v->debug_stop)
				stop(v, SIG_INT, "");
			break;
		case GDB_RX_NONE:
			break;
		}
	}
	/* A stop that happened while gdb waited (breakpoint, step, Ctrl-C): tell it now. */
	if (v->debug_stop && gdb.report_due) {
		gdb.reply_len = 0;
		put_stop_reply();
		send_reply();
		gdb.report_due = false;
	}
	vm_unlock(vm);
	*wake = deadline_min(*wake, rdtsc() + ns_to_tsc(POLL_NS));
	return v->debug_stop;
}

void gdbstub_guest_ended(struct vm *vm)
{
	if (!gdbstub_attached(vm))
		return;
	/* gdb waiting for a stop learns that the guest is gone (W with the value the guest wrote
	 * to its result port, else X with SIGKILL); the stub is done. */
	if (!vm->vcpus[0].debug_stop) {
		gdb.reply_len = 0;
		if (vm->end == VM_END_RESULT)
			putf("W%02x", (vm->status >> 1) & 0xff);
		else
			put("X09");
		send_reply();
	}
	gdb.vm = NULL;
}
