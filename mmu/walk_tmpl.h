/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest walker template: included by walk.c with PTTYPE 32 (2-level) or 64 (PAE and 4-level). */

#if PTTYPE == 32
#define pt_element_t u32
#define PT_BITS 10
#define FNAME(name) walk32_##name
/* clang-format off */
#define PT_TABLE_ADDR(e) ((u64)(e) & 0xfffff000ull)
/* clang-format on */
#define PT_NX_FORMAT false
#elif PTTYPE == 64
#define pt_element_t u64
#define PT_BITS 9
#define FNAME(name) walk64_##name
/* clang-format off */
#define PT_TABLE_ADDR(e) ((e) & PTE_ADDR)
/* clang-format on */
#define PT_NX_FORMAT true
#else
#error "PTTYPE must be 32 or 64"
#endif

#define PT_SIZE sizeof(pt_element_t)

static unsigned FNAME(rights)(union mmu_role r, pt_element_t e)
{
	unsigned acc = ACC_X;

	if (e & PTE_W)
		acc |= ACC_W;
	if (e & PTE_U)
		acc |= ACC_U;
#if PTTYPE == 64
	if (r.nxe && (e & PTE_NX))
		acc &= ~ACC_X;
#else
	(void)r;
#endif
	return acc;
}

static bool FNAME(is_large)(union mmu_role r, unsigned level, pt_element_t e)
{
	if (!(e & PTE_PS) || level == 1)
		return false;
#if PTTYPE == 32
	return r.pse;
#else
	(void)r;
	return level <= 3;
#endif
}

static u64 FNAME(rsvd)(const struct mmu_vcpu *vcpu, unsigned level, bool large)
{
	const struct mmu_vm *vm = vcpu->vm;
#if PTTYPE == 32
	unsigned high = vm->cfg.maxphyaddr - 32; /* PSE-36 address bits 13.. */

	(void)level;
	if (!large)
		return 0;
	return BIT(21) | (high >= 8 ? 0 : (BIT(21) - BIT(13 + high)));
#else
	u64 m = vm->rsvd_phys;

	if (!vcpu->base_role.nxe)
		m |= PTE_NX;
	if (level == 4 || (level == 3 && vm->cfg.no_1g))
		m |= PTE_PS;
	if (large)
		m |= (BIT(12 + 9 * (level - 1)) - 1) & ~(BIT(13) - 1);
	return m;
#endif
}

/* Frame of the access inside a large page. */
static u64 FNAME(large_gfn)(unsigned level, pt_element_t e, u64 gva)
{
	u64 size = BIT(12 + PT_BITS * (level - 1));
#if PTTYPE == 32
	u64 base = ((u64)e & 0xffc00000ull) | (((u64)e >> 13) & 0xff) << 32;
#else
	u64 base = e & PTE_ADDR & ~(size - 1);
#endif
	return (base + (gva & (size - 1))) >> PAGE_SHIFT;
}

static bool FNAME(walk)(struct mmu_vcpu *vcpu, u64 gva, u32 access, struct mmu_walk *w)
{
	const struct mmu_platform_ops *ops = vcpu->vm->ops;
	void *ctx = vcpu->vm->ctx;
	pt_element_t pte[5];
	u64 pte_gpa[5];
	unsigned level, acc;
	bool large = false;

retry:
	w->top = vcpu->base_role.glevels;
	w->acc[w->top + 1] = ACC_ALL;
	level = w->top;
	w->table_gfn[level] = PT_TABLE_ADDR(vcpu->cr3) >> PAGE_SHIFT;
#if PTTYPE == 64
	if (w->top == GLEVELS_PAE) {
		u64 e = vcpu->pdptes[(gva >> 30) & 3];

		if (!(e & PTE_P))
			goto not_present;
		w->pte[3] = pte[3] = e;
		w->acc[3] = ACC_ALL;
		level = 2;
		w->table_gfn[2] = PT_TABLE_ADDR(e) >> PAGE_SHIFT;
	}
#endif
	for (;; level--) {
		unsigned idx = (gva >> (PAGE_SHIFT + PT_BITS * (level - 1))) & (BIT(PT_BITS) - 1);
		pt_element_t e = 0;

		pte_gpa[level] = (w->table_gfn[level] << PAGE_SHIFT) + idx * PT_SIZE;
		if (ops->read_gpa(ctx, pte_gpa[level], &e, PT_SIZE))
			e = 0;
		w->pte[level] = pte[level] = e;
		if (!(e & PTE_P))
			goto not_present;
		large = FNAME(is_large)(vcpu->base_role, level, e);
		if (e & FNAME(rsvd)(vcpu, level, large)) {
			w->error_code =
				walk_fault_code(vcpu, access, PT_NX_FORMAT) | PFERR_P | PFERR_RSVD;
			return false;
		}
		w->acc[level] = w->acc[level + 1] & FNAME(rights)(vcpu->base_role, e);
		if (level == 1 || large)
			break;
		w->table_gfn[level - 1] = PT_TABLE_ADDR(e) >> PAGE_SHIFT;
	}
	w->level = level;
	acc = w->acc[level];
	if (!walk_permits(vcpu, acc, access)) {
		w->error_code = walk_fault_code(vcpu, access, PT_NX_FORMAT) | PFERR_P;
		return false;
	}
	w->gfn = large ? FNAME(large_gfn)(level, pte[level], gva)
		       : PT_TABLE_ADDR(pte[1]) >> PAGE_SHIFT;

	/* Accessed on every entry used, dirty on the leaf of a write, top down like the CPU. */
	for (unsigned l = w->top; !(access & MMU_ACCESS_PEEK) && l >= level; l--) {
		pt_element_t want = pte[l] | PTE_A;

#if PTTYPE == 64
		if (w->top == GLEVELS_PAE && l == 3)
			continue;
#endif
		if (l == level && (access & PFERR_W))
			want |= PTE_D;
		if (want == pte[l])
			continue;
		u64 was = pte[l];
		if (!ops->cmpxchg_gpa(ctx, pte_gpa[l], PT_SIZE, &was, want))
			goto retry;
		audit_mark_guest_write(vcpu->vm, pte_gpa[l], PT_SIZE);
		w->pte[l] = pte[l] = want;
	}
	w->dirty = pte[level] & PTE_D;
	return true;

not_present:
	w->error_code = walk_fault_code(vcpu, access, PT_NX_FORMAT);
	return false;
}

/* What an entry at `level` means (for the audit, which checks shadows against guest tables). */
static void FNAME(entry_info)(union mmu_role r, unsigned level, u64 e, u64 gva,
			      struct walk_entry *out)
{
	out->rights = FNAME(rights)(r, (pt_element_t)e);
	out->large = FNAME(is_large)(r, level, (pt_element_t)e);
	out->gfn = out->large ? FNAME(large_gfn)(level, (pt_element_t)e, gva)
			      : PT_TABLE_ADDR((pt_element_t)e) >> PAGE_SHIFT;
}

#undef pt_element_t
#undef PT_BITS
#undef FNAME
#undef PT_TABLE_ADDR
#undef PT_NX_FORMAT
#undef PT_SIZE
