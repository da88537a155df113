/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest-virtual memory access for the emulator and hypercalls; every write goes through the MMU. */
#include "vmm/gmem.h"
#include "arch/x86/fpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/virt.h"
#include "lib/string.h"
#include "mmu/mmu.h"
#include "vmm/vm.h"
#include "vmm/board.h"

static u32 access_bits(const struct x86_emu_ctx *ctx, u32 base)
{
	u32 a = base;
	if (ctx->cpl == 3)
		a |= PFERR_U;
	if (ctx->rflags & RFLAGS_AC)
		a |= MMU_ACCESS_AC;
	return a;
}

/* Translates one piece that does not cross a page; fills *fault as a #PF on failure. */
static inline bool translate(struct vcpu *v, u64 linear, u32 access, u64 *gpa,
			     struct x86_fault *fault)
{
	u32 ec;
	/* A fetch reads what the CPU ran: through the shadow entry it used, where there is one
	 * (the instruction that exited), without walking the guest's tables. */
	if ((access & PFERR_I) && !v->vm->tdp_on &&
	    mmu_shadow_fetch_gpa(&v->mmu, linear, access, gpa))
		return true;
	if (mmu_gva_to_gpa(&v->mmu, linear, access, gpa, &ec)) {
		/* A read-only shared region: the store faults as on a read-only page (vmm/shm.c). */
		const struct mmu_slot *s;
		if (!(access & PFERR_W) || !(s = memslots_find(&v->vm->mem, *gpa >> PAGE_SHIFT)) ||
		    !s->readonly)
			return true;
		ec = PFERR_P | PFERR_W | (access & PFERR_U);
	}
	*fault = (struct x86_fault){
		.vector = VEC_PF, .has_error = true, .error_code = ec, .addr = linear
	};
	return false;
}

static u64 piece_len(u64 linear, u64 left)
{
	u64 room = PAGE_SIZE - (linear & (PAGE_SIZE - 1));
	return left < room ? left : room;
}

/* Device memory in pieces the MMIO models take (at most 8 bytes). */
static void read_mmio(struct vcpu *v, u64 gpa, u8 *p, u64 n)
{
	for (u64 done = 0; done < n; done += 8)
		board_mmio_read(v, gpa + done, p + done, n - done < 8 ? (unsigned)(n - done) : 8);
}

static int copy_in(struct vcpu *v, u64 linear, void *buf, u64 len, u32 access,
		   struct x86_fault *fault)
{
	u8 *p = buf;
	while (len) {
		u64 n = piece_len(linear, len), gpa;
		if (!translate(v, linear, access, &gpa, fault))
			return X86_ACC_FAULT;
		const void *src = memslots_ptr(&v->vm->mem, gpa, n);
		if (src && (access & PFERR_I))
			memcpy(p, src, n);
		else if (src)
			memcpy_whole(p, src, n); /* an aligned operand in one read, as the CPU's */
		else if (access & PFERR_I)
			return X86_ACC_UNHANDLED; /* no executing from device memory */
		else
			read_mmio(v, gpa, p, n);
		p += n;
		linear += n;
		len -= n;
	}
	return X86_ACC_OK;
}

static int emu_fetch(const struct x86_emu_ctx *ctx, u64 linear, void *buf, unsigned len,
		     struct x86_fault *fault)
{
	return copy_in(ctx->opaque, linear, buf, len, access_bits(ctx, PFERR_I) | MMU_ACCESS_PEEK,
		       fault);
}

bool gmem_code_at_rip(struct vcpu *v, enum x86_mode mode, u8 code[4])
{
	const struct x86_emu_ctx *r = &v->hw.regs;
	u64 ip = r->rip & x86_mask(mode), linear = ip, gpa;
	struct x86_fault f;

	if (mode != X86_MODE_64) {
		if (ip + 3 > r->seg[X86_CS].limit)
			return false;
		linear = (r->seg[X86_CS].base + ip) & 0xffffffffull;
	}
	/* The CPU fetched at RIP: in 64-bit mode RIP, and the rest of its page, are canonical. */
	if (piece_len(linear, 4) != 4)
		return false;
	if (!translate(v, linear, access_bits(r, PFERR_I) | MMU_ACCESS_PEEK, &gpa, &f))
		return false;
	const void *src = memslots_ptr(&v->vm->mem, gpa, 4);
	if (src)
		memcpy(code, src, 4);
	return src != NULL;
}

static int emu_read(const struct x86_emu_ctx *ctx, u64 linear, void *buf, unsigned len,
		    struct x86_fault *fault)
{
	return copy_in(ctx->opaque, linear, buf, len, access_bits(ctx, 0), fault);
}

/* Translate every piece first, so a fault on the second page leaves memory untouched. */
static int translate_all(struct vcpu *v, u64 linear, unsigned len, u32 access, u64 gpa[2],
			 unsigned n[2], struct x86_fault *fault)
{
	n[0] = (unsigned)piece_len(linear, len);
	n[1] = len - n[0];
	if (!translate(v, linear, access, &gpa[0], fault))
		return X86_ACC_FAULT;
	if (n[1] && !translate(v, linear + n[0], access, &gpa[1], fault))
		return X86_ACC_FAULT;
	return X86_ACC_OK;
}

/* RAM through the MMU's write hook (at most 8 bytes at a time), else the MMIO models. */
static void write_gpa(struct vcpu *v, u64 gpa, const u8 *src, unsigned len)
{
	bool ram = memslots_ptr(&v->vm->mem, gpa, len) != NULL;

	while (len) {
		unsigned n = len > 8 ? 8 : len;
		u64 val = 0;
		memcpy(&val, src, n);
		if (ram)
			mmu_write(&v->vm->mmu, gpa, n, val);
		else
			board_mmio_write(v, gpa, src, n);
		gpa += n;
		src += n;
		len -= n;
	}
}

static int emu_write(const struct x86_emu_ctx *ctx, u64 linear, const void *buf, unsigned len,
		     struct x86_fault *fault)
{
	struct vcpu *v = ctx->opaque;
	u64 gpa[2];
	unsigned n[2];
	int r = translate_all(v, linear, len, access_bits(ctx, PFERR_W), gpa, n, fault);
	if (r != X86_ACC_OK)
		return r;
	write_gpa(v, gpa[0], buf, n[0]);
	if (n[1])
		write_gpa(v, gpa[1], (const u8 *)buf + n[0], n[1]);
	return X86_ACC_OK;
}

/* A locked read-modify-write on RAM is one host locked compare-exchange on the guest's frame
 * (mmu_cmpxchg), so a store of the guest's other vCPUs, running natively on other CPUs, lands
 * either before it (the compare fails, the emulator's instruction sees the new value and retries
 * or reports it, as the hardware would) or after it, never in between. That holds for an operand
 * of up to 8 bytes inside one aligned 8 (every naturally aligned one). A wider or straddling
 * operand (CMPXCHG16B, a split lock) and device memory are compared and written under the VM
 * lock only: atomic against Umbra's writers and this vCPU, not against the guest's others. The
 * translation is taken once, so the write lands where the compare read. */
static bool cmpxchg_ram(struct vcpu *v, u64 gpa, void *expected, const void *desired, unsigned len,
			int *r)
{
	u64 old = 0, want = 0;

	if (len > 8 || (gpa & 7) + len > 8 || !memslots_ptr(&v->vm->mem, gpa, len))
		return false;
	memcpy(&old, expected, len);
	memcpy(&want, desired, len);
	int e = mmu_cmpxchg(&v->vm->mmu, gpa, len, &old, want);
	if (e == MMU_EINVAL)
		return false;
	*r = e == MMU_OK ? X86_ACC_OK : X86_ACC_UNHANDLED;
	memcpy(expected, &old, len);
	return true;
}

static int emu_cmpxchg(const struct x86_emu_ctx *ctx, u64 linear, void *expected,
		       const void *desired, unsigned len, struct x86_fault *fault)
{
	struct vcpu *v = ctx->opaque;
	u64 gpa[2];
	unsigned n[2];
	u8 cur[16];
	int r = translate_all(v, linear, len, access_bits(ctx, PFERR_W), gpa, n, fault);
	if (r != X86_ACC_OK)
		return r;
	if (!n[1] && cmpxchg_ram(v, gpa[0], expected, desired, len, &r))
		return r;
	for (int i = 0; i < 2; i++) {
		u8 *dst = cur + (i ? n[0] : 0);
		const void *src = n[i] ? memslots_ptr(&v->vm->mem, gpa[i], n[i]) : NULL;
		if (src)
			memcpy(dst, src, n[i]);
		else if (n[i])
			read_mmio(v, gpa[i], dst, n[i]);
	}
	if (memcmp(cur, expected, len)) {
		memcpy(expected, cur, len);
		return X86_ACC_OK;
	}
	write_gpa(v, gpa[0], desired, n[0]);
	if (n[1])
		write_gpa(v, gpa[1], (const u8 *)desired + n[0], n[1]);
	return X86_ACC_OK;
}

/* The guest's FPU state is in the registers while its exits are handled (vmm/sched.c switches
 * it around each slice, and Umbra itself runs no FPU or SSE code): one XMM register through an
 * FXSAVE image on this stack. */
static int emu_xmm(const struct x86_emu_ctx *ctx, unsigned reg, void *buf, bool write)
{
	u8 area[512] __attribute__((aligned(16)));

	(void)ctx;
	if (reg > 15)
		return X86_ACC_UNHANDLED;
	fpu_save(area);
	if (!write) {
		memcpy(buf, area + X86_FXSAVE_XMM + 16 * reg, 16);
		return X86_ACC_OK;
	}
	memcpy(area + X86_FXSAVE_XMM + 16 * reg, buf, 16);
	fpu_restore(area);
	return X86_ACC_OK;
}

/* x87 and MMX on device memory: the form runs on the guest's live FPU state, as the XMM moves. */
static int emu_fpu(const struct x86_emu_ctx *ctx, const struct x86_fpu_req *req)
{
	(void)ctx;
	return x86_fpu_run(req);
}

/* The emulator's ctx is this vCPU's own register state: the full read fills it in place. */
static void emu_segments(const struct x86_emu_ctx *ctx)
{
	struct vcpu *v = ctx->opaque;

	virt->read_segments(&v->hw);
}

const struct x86_emu_ops gmem_emu_ops = {
	.fetch = emu_fetch,
	.read = emu_read,
	.write = emu_write,
	.cmpxchg = emu_cmpxchg,
	.xmm = emu_xmm,
	.fpu = emu_fpu,
	.segments = emu_segments,
};

/* A guest-virtual range translated once, every piece RAM: what a hypercall or the debugger
 * checked is what it then copies, though another vCPU of the guest may rewrite the page tables
 * in between (a second walk could land on device memory, or nowhere: before, the debugger
 * path then copied from NULL). */
#define SPAN_PIECES 4 /* up to 3 pages and a byte: any buffer the callers pass */
struct span {
	u64 gpa[SPAN_PIECES];
	u32 n[SPAN_PIECES];
	unsigned count;
};

static bool span_map(struct vcpu *v, u64 gva, u64 len, u32 access, struct span *s)
{
	u32 ec;

	s->count = 0;
	for (u64 off = 0; off < len; s->count++) {
		u64 n = piece_len(gva + off, len - off);
		if (s->count == SPAN_PIECES ||
		    !mmu_gva_to_gpa(&v->mmu, gva + off, access, &s->gpa[s->count], &ec) ||
		    !memslots_ptr(&v->vm->mem, s->gpa[s->count], n))
			return false;
		s->n[s->count] = (u32)n;
		off += n;
	}
	return true;
}

static void span_read(struct vcpu *v, const struct span *s, u8 *p)
{
	for (unsigned i = 0; i < s->count; p += s->n[i], i++)
		memcpy(p, memslots_ptr(&v->vm->mem, s->gpa[i], s->n[i]), s->n[i]);
}

static void span_write(struct vcpu *v, const struct span *s, const u8 *p)
{
	for (unsigned i = 0; i < s->count; p += s->n[i], i++)
		write_gpa(v, s->gpa[i], p, s->n[i]);
}

/* A hypercall read's translation. A call's arguments are mostly in a page the guest has just
 * used (its stack), which the shadow maps: its translation is the guest's walk's, taken without
 * the walk (the leaf settles a user read's rights, and a supervisor read's with SMAP set aside).
 * Supervisor callers name their buffers deliberately: SMAP guards implicit accesses. */
static inline bool read_translate(struct vcpu *v, u64 gva, bool user, u64 *gpa)
{
	u32 ec;

	if (!v->vm->tdp_on && mmu_shadow_read_gpa(&v->mmu, gva, user, gpa))
		return true;
	return mmu_gva_to_gpa(&v->mmu, gva, (user ? PFERR_U : MMU_ACCESS_AC) | MMU_ACCESS_PEEK, gpa,
			      &ec);
}

int gmem_read_virt(struct vcpu *v, u64 gva, void *buf, u64 len, bool user)
{
	u8 *p = buf;

	/* Piece by piece, each translated once and copied from where that found it: a fault half
	 * way leaves only the caller's copy partly filled, which it then drops. Hypercall buffers
	 * must be RAM: device registers are not arguments. */
	for (u64 off = 0; off < len;) {
		u64 n = piece_len(gva + off, len - off), gpa;
		const void *src;
		if (!read_translate(v, gva + off, user, &gpa) ||
		    !(src = memslots_ptr(&v->vm->mem, gpa, n)))
			return -1;
		memcpy(p + off, src, n);
		off += n;
	}
	return 0;
}

int gmem_write_virt(struct vcpu *v, u64 gva, const void *buf, u64 len, bool user)
{
	struct span s;

	/* The whole range first, so a bad buffer leaves guest memory unchanged; RAM only. */
	if (!span_map(v, gva, len, PFERR_W | (user ? PFERR_U : MMU_ACCESS_AC) | MMU_ACCESS_PEEK,
		      &s))
		return -1;
	span_write(v, &s, buf);
	return 0;
}

/* A debugger's access: any mapped RAM, whatever the page's rights (breakpoints go into code
 * pages), never device memory (a read could have side effects); a failure leaves memory as
 * it was. */
int gmem_debug_access(struct vcpu *v, u64 gva, void *buf, u64 len, bool write)
{
	struct span s;

	if (!span_map(v, gva, len, MMU_ACCESS_AC | MMU_ACCESS_PEEK, &s))
		return -1;
	if (write)
		span_write(v, &s, buf);
	else
		span_read(v, &s, buf);
	return 0;
}
