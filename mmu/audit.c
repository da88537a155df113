/* The MMU audit: checks every invariant of shadows, reverse maps, parents, hash and roots. */
#include "lib/printf.h"
#include "mmu/walk.h"

struct audit {
	struct mmu_vm *vm;
	char *buf;
	size_t size, used;
	unsigned errors;
	u64 writable_leaves;
};

#define FAIL(a, ...) audit_fail(a, __VA_ARGS__)

static void PRINTF_LIKE(2, 3) audit_fail(struct audit *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	a->errors++;
	if (!a->buf || a->used + 2 >= a->size)
		return;
	va_start(ap, fmt);
	n = fmt_vsnprintf(a->buf + a->used, a->size - a->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		a->used += (size_t)n < a->size - a->used ? (size_t)n : a->size - a->used - 1;
	if (a->used + 1 < a->size) {
		a->buf[a->used++] = '\n';
		a->buf[a->used] = 0;
	}
}

static u64 guest_entry(struct mmu_vm *vm, const struct mmu_page *sp, unsigned gidx)
{
	u64 e = 0;
	unsigned size = sp->role.glevels == GLEVELS_32 ? 4 : 8;

	if (vm->ops->read_gpa(vm->ctx, (sp->gfn << PAGE_SHIFT) + gidx * size, &e, size))
		return 0;
	return e;
}

static unsigned spte_rights(u64 spte)
{
	return (spte & PTE_W ? ACC_W : 0) | (spte & PTE_U ? ACC_U : 0) | (spte & PTE_NX ? 0 : ACC_X);
}

/* The guest entry a shadow entry mirrors, and the virtual address offset it stands for. */
static u64 mirrored(struct mmu_vm *vm, const struct mmu_page *sp, unsigned idx, u64 *gva_off)
{
	unsigned level = sp->role.level;

	*gva_off = 0;
	if (sp->role.glevels != GLEVELS_32)
		return guest_entry(vm, sp, idx);
	if (level == 1)
		return guest_entry(vm, sp, sp->role.quadrant * 512 + idx);
	*gva_off = (u64)(idx & 1) << 21;	/* which half of a 4 MiB guest page */
	return guest_entry(vm, sp, sp->role.quadrant * 256 + idx / 2);
}

static void check_leaf(struct audit *a, struct mmu_page *sp, unsigned idx, u64 spte)
{
	struct mmu_vm *vm = a->vm;
	u64 gfn = spte_leaf_gfn(sp, idx), off;
	const struct mmu_slot *s = vm->ops->gfn_to_slot(vm->ctx, gfn);
	unsigned allowed = sp->role.access;
	struct mmu_frame *f;

	if (!s) {
		FAIL(a, "leaf %llx[%u] maps gfn %llx in a hole", (unsigned long long)sp->gfn, idx,
		     (unsigned long long)gfn);
		return;
	}
	f = &s->frames[gfn - s->base_gfn];
	if ((spte & PTE_ADDR) != vm->ops->gfn_to_hpa(vm->ctx, s, gfn))
		FAIL(a, "leaf %llx[%u]: hpa does not match gfn %llx", (unsigned long long)sp->gfn, idx,
		     (unsigned long long)gfn);
	if (!sp->role.direct) {
		u64 ge = mirrored(vm, sp, idx, &off);
		struct walk_entry we;

		walk_entry_info(sp->role, 1, ge, 0, &we);
		if (!(ge & PTE_P) || !(ge & PTE_A) || we.gfn != gfn)
			FAIL(a, "leaf %llx[%u] = %llx but guest entry is %llx", (unsigned long long)sp->gfn,
			     idx, (unsigned long long)spte, (unsigned long long)ge);
		allowed = leaf_access(allowed & we.rights, ge & PTE_D, sp->role.cr0_wp);
	}
	if (spte_rights(spte) & ~allowed)
		FAIL(a, "leaf %llx[%u] = %llx grants %x, guest only %x", (unsigned long long)sp->gfn, idx,
		     (unsigned long long)spte, spte_rights(spte), allowed);
	if (!(spte & PTE_W))
		return;
	a->writable_leaves++;
	if (f->shadowed)
		FAIL(a, "shadowed gfn %llx mapped writable by %llx[%u]", (unsigned long long)gfn,
		     (unsigned long long)sp->gfn, idx);
	if (!pset_contains(f->rmap, &sp->spt[idx]))
		FAIL(a, "writable leaf %llx[%u] missing from rmap of %llx", (unsigned long long)sp->gfn,
		     idx, (unsigned long long)gfn);
}

/* A link must lead where the guest entry (or the large page being split) says. */
static void check_link(struct audit *a, struct mmu_page *sp, unsigned idx, u64 spte)
{
	struct mmu_vm *vm = a->vm;
	struct mmu_page *child = sp_find_hpa(vm, spte & PTE_ADDR);
	union mmu_role want = sp->role;
	u64 gfn, ge, off;
	struct walk_entry we;

	if (!child || child->invalid) {
		FAIL(a, "link %llx[%u] to a %s page", (unsigned long long)sp->gfn, idx,
		     child ? "zapped" : "missing");
		return;
	}
	child->audit_links++;
	want.level = sp->role.level - 1;
	want.quadrant = 0;
	if (sp->role.direct) {
		gfn = sp->gfn + ((u64)idx << (9 * want.level));
	} else {
		ge = mirrored(vm, sp, idx, &off);
		walk_entry_info(sp->role, sp->role.level, ge, off, &we);
		if (!(ge & PTE_P) || !(ge & PTE_A)) {
			FAIL(a, "link %llx[%u] but guest entry %llx", (unsigned long long)sp->gfn, idx,
			     (unsigned long long)ge);
			return;
		}
		if (we.large) {
			want.direct = 1;
			want.access = leaf_access(sp->role.access & we.rights, ge & PTE_D, sp->role.cr0_wp);
			gfn = we.gfn & ~(BIT(9 * want.level) - 1);
		} else {
			want.access = sp->role.access & we.rights;
			if (sp->role.glevels == GLEVELS_32)
				want.quadrant = idx & 1;
			gfn = we.gfn;
		}
	}
	/* A large page's D bit may have been set by another context's walk since the link was
	 * made: a direct child may then be stricter than the guest, never looser. */
	if (want.direct && !(child->role.access & ~want.access))
		want.access = child->role.access;
	if (child->gfn != gfn || child->role.word != want.word)
		FAIL(a, "link %llx[%u] to %llx/%x, expected %llx/%x", (unsigned long long)sp->gfn, idx,
		     (unsigned long long)child->gfn, child->role.word, (unsigned long long)gfn,
		     want.word);
	if (!pset_contains(child->parents, &sp->spt[idx]))
		FAIL(a, "link %llx[%u] missing from child's parents", (unsigned long long)sp->gfn, idx);
}

static void check_page(struct audit *a, struct mmu_page *sp)
{
	struct mmu_vm *vm = a->vm;
	struct mmu_frame *f;
	unsigned i;

	if (sp_lookup(vm, sp->gfn, sp->role) != sp)
		FAIL(a, "page %llx/%x not found in the gfn hash", (unsigned long long)sp->gfn,
		     sp->role.word);
	if (sp_find_hpa(vm, sp->hpa) != sp)
		FAIL(a, "page %llx not found in the hpa hash", (unsigned long long)sp->gfn);
	if (!sp->role.direct && (f = frame_of(vm, sp->gfn)) != NULL && f->rmap)
		FAIL(a, "shadowed gfn %llx has writable mappings", (unsigned long long)sp->gfn);
	for (i = 0; i < SPT_ENTRIES; i++) {
		u64 e = sp->spt[i];

		if (!(e & PTE_P))
			continue;
		if (sp->role.level == 1)
			check_leaf(a, sp, i, e);
		else
			check_link(a, sp, i, e);
	}
}

static void check_parents(struct audit *a, struct mmu_page *sp)
{
	u64 *p;

	if (pset_count(sp->parents) != sp->audit_links)
		FAIL(a, "page %llx/%x has %u parents recorded, %u links", (unsigned long long)sp->gfn,
		     sp->role.word, pset_count(sp->parents), sp->audit_links);
	PSET_FOR_EACH(sp->parents, it, p)
		if ((*p & (PTE_ADDR | PTE_P)) != (sp->hpa | PTE_P))
			FAIL(a, "parent entry of %llx does not point at it", (unsigned long long)sp->gfn);
	if (sp->root_count != sp->audit_roots)
		FAIL(a, "page %llx root_count %u, used by %u roots", (unsigned long long)sp->gfn,
		     sp->root_count, sp->audit_roots);
}

static void count_roots(struct audit *a)
{
	struct mmu_vcpu *v;
	unsigned i;

	for (v = a->vm->vcpus; v; v = v->next) {
		if (v->root)
			v->root->audit_roots++;
		for (i = 0; i < 4; i++) {
			struct mmu_page *sp = v->pae_sp[i];

			if (sp)
				sp->audit_roots++;
			if (v->pae_root[i] != (sp ? sp->hpa | PTE_P : 0))
				FAIL(a, "vcpu PAE root entry %u is stale", i);
			if (v->root_valid && sp && sp->invalid)
				FAIL(a, "vcpu runs on a zapped root");
		}
		if (v->root_valid && v->root && v->root->invalid)
			FAIL(a, "vcpu runs on a zapped root");
	}
}

/* Frames: the shadow counts and the reverse-map sizes. */
static void check_frames(struct audit *a)
{
	struct mmu_vm *vm = a->vm;
	const struct mmu_slot *s;
	u64 rmapped = 0, i;
	unsigned n;

	for (n = 0; (s = vm->ops->slot_at(vm->ctx, n)) != NULL; n++)
		for (i = 0; i < s->npages; i++) {
			const struct mmu_frame *f = &s->frames[i];
			u64 gfn = s->base_gfn + i;
			struct mmu_page *sp;
			u32 shadows = 0;

			rmapped += pset_count(f->rmap);
			for (sp = vm->gfn_hash[gfn_hash_idx(gfn)]; sp; sp = sp->gfn_next)
				shadows += sp->gfn == gfn && !sp->role.direct;
			if (shadows != f->shadowed)
				FAIL(a, "gfn %llx: %u shadow pages, count says %u",
				     (unsigned long long)gfn, shadows, f->shadowed);
		}
	if (rmapped != a->writable_leaves)
		FAIL(a, "rmap holds %llu entries, %llu writable leaves exist",
		     (unsigned long long)rmapped, (unsigned long long)a->writable_leaves);
}

unsigned mmu_audit(struct mmu_vm *vm, char *buf, size_t size)
{
	struct audit a = { .vm = vm, .buf = buf, .size = size };
	struct mmu_list *l;
	struct mmu_page *sp;
	u64 hashed = 0, listed = 0;
	unsigned b;

	if (buf && size)
		buf[0] = 0;
	for (l = vm->lru.next; l != &vm->lru; l = l->next) {
		sp = sp_of_lru(l);
		sp->audit_links = sp->audit_roots = 0;
		listed++;
	}
	for (b = 0; b < HASH_BUCKETS; b++)
		for (sp = vm->gfn_hash[b]; sp; sp = sp->gfn_next) {
			hashed++;
			if (gfn_hash_idx(sp->gfn) != b || sp->invalid)
				FAIL(&a, "page %llx in the wrong bucket or zapped", (unsigned long long)sp->gfn);
		}
	if (hashed != listed || listed != vm->npages)
		FAIL(&a, "%llu pages hashed, %llu listed, %llu counted", (unsigned long long)hashed,
		     (unsigned long long)listed, (unsigned long long)vm->npages);
	count_roots(&a);
	for (l = vm->lru.next; l != &vm->lru; l = l->next)
		check_page(&a, sp_of_lru(l));
	for (l = vm->lru.next; l != &vm->lru; l = l->next)
		check_parents(&a, sp_of_lru(l));
	check_frames(&a);
	return a.errors;
}
