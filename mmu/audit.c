/* SPDX-License-Identifier: GPL-2.0-only */
/* The MMU audit: checks every invariant of shadows, reverse maps, parents, hash and roots. */
#include "lib/printf.h"
#include "mmu/walk.h"

/*
 * Two forms. mmu_audit checks everything. mmu_audit_incremental checks only what changed since
 * the last audit, and is as strong because every invariant below is a conjunction of
 * predicates on one shadow entry, one page's page-level state or one frame, and each of the
 * few functions that change shadow state (sp_get, sp_link, sp_drop_spte, sp_zap, sp_put_root,
 * vcpu_load_root, spte_set_leaf, spte_clear_leaf, rmap_write_protect) or guest page-table
 * memory (mmu_write, the walker's A/D update) marks the items whose predicates read what it
 * changed: the entry, the page whose parent set or root count changed, the frame whose rmap or
 * shadow count changed, the entries mirroring a written guest entry. The full audit's counts
 * (parents = links, rmap size = writable leaves) become two-sided membership checks: every
 * link is in its child's parent set and every parent-set member is a live link to the child
 * (likewise writable leaves and rmaps), which for sets is the same as equal counts. What lies
 * outside this model (a guest table changed behind mmu_write's back, a corrupted set) is left
 * to the full audit, run every vm->audit_full_every calls and at the end.
 */

struct audit {
	struct mmu_vm *vm;
	char *buf;
	size_t size, used;
	unsigned errors;
	u64 writable_leaves;
	/* The full audit reads each guest table in windows (one read_gpa call per window, not
	 * per entry): the single largest cost of the per-entry checks. */
	bool windowed;
	u64 win_gpa; /* of win; ~0 when empty */
	u8 win[512];
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

static u64 guest_entry(struct audit *a, const struct mmu_page *sp, unsigned gidx)
{
	struct mmu_vm *vm = a->vm;
	unsigned size = sp->role.glevels == GLEVELS_32 ? 4 : 8;
	u64 e = 0, gpa = (sp->gfn << PAGE_SHIFT) + gidx * size,
	    base = gpa & ~(u64)(sizeof(a->win) - 1);

	if (!a->windowed) {
		if (vm->ops->read_gpa(vm->ctx, gpa, &e, size))
			return 0;
		return e;
	}
	if (a->win_gpa != base) {
		a->win_gpa = base;
		if (vm->ops->read_gpa(vm->ctx, base, a->win, sizeof(a->win)))
			memset(a->win, 0, sizeof(a->win));
	}
	if (size == 8) {
		memcpy(&e, a->win + (gpa - base), 8);
	} else {
		u32 e32;

		memcpy(&e32, a->win + (gpa - base), 4);
		e = e32;
	}
	return e;
}

static unsigned spte_rights(u64 spte)
{
	return (spte & PTE_W ? ACC_W : 0) | (spte & PTE_U ? ACC_U : 0) |
	       (spte & PTE_NX ? 0 : ACC_X);
}

/* The guest entry a shadow entry mirrors, and the virtual address offset it stands for. */
static u64 mirrored(struct audit *a, const struct mmu_page *sp, unsigned idx, u64 *gva_off)
{
	unsigned level = sp->role.level;

	*gva_off = 0;
	if (sp->role.glevels != GLEVELS_32)
		return guest_entry(a, sp, idx);
	if (level == 1)
		return guest_entry(a, sp, sp->role.quadrant * 512 + idx);
	*gva_off = (u64)(idx & 1) << 21; /* which half of a 4 MiB guest page */
	return guest_entry(a, sp, sp->role.quadrant * 256 + idx / 2);
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
		FAIL(a, "leaf %llx[%u]: hpa does not match gfn %llx", (unsigned long long)sp->gfn,
		     idx, (unsigned long long)gfn);
	if (!(spte & PTE_PCD) != !slot_uncached(s) || !(spte & PTE_PWT) != !slot_uncached(s))
		FAIL(a, "leaf %llx[%u]: gfn %llx %s", (unsigned long long)sp->gfn, idx,
		     (unsigned long long)gfn,
		     slot_uncached(s) ? "is device memory, mapped cached"
				      : "is memory, mapped uncached");
	if ((spte & PTE_W) && s->readonly)
		FAIL(a, "leaf %llx[%u]: gfn %llx is read-only, mapped writable",
		     (unsigned long long)sp->gfn, idx, (unsigned long long)gfn);
	if (sp->unsync) {
		/* The guest writes this table natively: its entries may be older than the guest's
		 * (until the next resync, which marks them all for the audit), but never looser
		 * than the guest's entries above it allow (with CR0.WP = 0 a supervisor leaf is
		 * writable whatever its W bit). */
		allowed = leaf_access(allowed, true, sp->role.cr0_wp);
		if (!(spte & PTE_U))
			allowed = leaf_access(allowed & ~ACC_U, true, sp->role.cr0_wp);
	} else if (!sp->role.direct) {
		u64 ge = mirrored(a, sp, idx, &off);
		struct walk_entry we;

		walk_entry_info(sp->role, 1, ge, 0, &we);
		if (!(ge & PTE_P) || !(ge & PTE_A) || we.gfn != gfn)
			FAIL(a, "leaf %llx[%u] = %llx but guest entry is %llx",
			     (unsigned long long)sp->gfn, idx, (unsigned long long)spte,
			     (unsigned long long)ge);
		allowed = leaf_access(allowed & we.rights, ge & PTE_D, sp->role.cr0_wp);
	}
	if (spte_rights(spte) & ~allowed)
		FAIL(a, "leaf %llx[%u] = %llx grants %x, guest only %x",
		     (unsigned long long)sp->gfn, idx, (unsigned long long)spte, spte_rights(spte),
		     allowed);
	if (!(spte & PTE_W))
		return;
	a->writable_leaves++;
	if (f->shadowed && !f->unsync)
		FAIL(a, "shadowed gfn %llx mapped writable by %llx[%u]", (unsigned long long)gfn,
		     (unsigned long long)sp->gfn, idx);
	if (!pset_contains(f->rmap, &sp->spt[idx]))
		FAIL(a, "writable leaf %llx[%u] missing from rmap of %llx",
		     (unsigned long long)sp->gfn, idx, (unsigned long long)gfn);
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
		ge = mirrored(a, sp, idx, &off);
		walk_entry_info(sp->role, sp->role.level, ge, off, &we);
		if (!(ge & PTE_P) || !(ge & PTE_A)) {
			FAIL(a, "link %llx[%u] but guest entry %llx", (unsigned long long)sp->gfn,
			     idx, (unsigned long long)ge);
			return;
		}
		if (we.large) {
			want.direct = 1;
			want.access = leaf_access(sp->role.access & we.rights, ge & PTE_D,
						  sp->role.cr0_wp);
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
		FAIL(a, "link %llx[%u] to %llx/%x, expected %llx/%x", (unsigned long long)sp->gfn,
		     idx, (unsigned long long)child->gfn, child->role.word, (unsigned long long)gfn,
		     want.word);
	if (!pset_contains(child->parents, &sp->spt[idx]))
		FAIL(a, "link %llx[%u] missing from child's parents", (unsigned long long)sp->gfn,
		     idx);
}

static void check_entry(struct audit *a, struct mmu_page *sp, unsigned idx)
{
	u64 e = sp->spt[idx];

	if (!(e & PTE_P))
		return;
	if (sp->role.level == 1)
		check_leaf(a, sp, idx, e);
	else
		check_link(a, sp, idx, e);
}

static void check_page_state(struct audit *a, struct mmu_page *sp)
{
	struct mmu_vm *vm = a->vm;
	struct mmu_frame *f;

	if (sp_lookup(vm, sp->gfn, sp->role) != sp)
		FAIL(a, "page %llx/%x not found in the gfn hash", (unsigned long long)sp->gfn,
		     sp->role.word);
	if (sp_find_hpa(vm, sp->hpa) != sp || sp_of_sptep(vm, sp->spt) != sp)
		FAIL(a, "page %llx not found in the hpa or va hash", (unsigned long long)sp->gfn);
	if (sp->role.direct || !(f = table_frame_of(vm, sp->gfn)))
		return;
	if (f->rmap && !f->unsync)
		FAIL(a, "shadowed gfn %llx has writable mappings", (unsigned long long)sp->gfn);
	/* Out of sync: a leaf table, its frame's only shadow, and the frame knows it. */
	if (sp->unsync != !!f->unsync || (sp->unsync && (sp->role.level != 1 || f->shadowed != 1)))
		FAIL(a, "page %llx/%x unsync %d, frame unsync %u shadowed %u",
		     (unsigned long long)sp->gfn, sp->role.word, sp->unsync, f->unsync,
		     f->shadowed);
}

static void check_page(struct audit *a, struct mmu_page *sp)
{
	unsigned i;

	check_page_state(a, sp);
	for (i = 0; i < SPT_ENTRIES; i++)
		check_entry(a, sp, i);
}

static void check_parents(struct audit *a, struct mmu_page *sp)
{
	u64 *p;

	if (pset_count(sp->parents) != sp->audit_links)
		FAIL(a, "page %llx/%x has %u parents recorded, %u links",
		     (unsigned long long)sp->gfn, sp->role.word, pset_count(sp->parents),
		     sp->audit_links);
	PSET_FOR_EACH(sp->parents, it, p)
	if ((*p & (PTE_ADDR | PTE_P)) != (sp->hpa | PTE_P))
		FAIL(a, "parent entry of %llx does not point at it", (unsigned long long)sp->gfn);
	if (sp->root_count != sp->audit_roots)
		FAIL(a, "page %llx root_count %u, used by %u roots", (unsigned long long)sp->gfn,
		     sp->root_count, sp->audit_roots);
}

/* A vCPU with a valid root runs on the shadow of its own CR3 in its own mode (roots are per
 * vCPU; the pages may be shared with the vCPUs on the same address space). */
static void check_root_key(struct audit *a, const struct mmu_vcpu *v)
{
	bool pae = v->base_role.glevels != GLEVELS_LONG;

	for (unsigned i = 0; i < (pae ? 4u : 1u); i++) {
		const struct mmu_page *sp = pae ? v->pae_sp[i] : v->root;
		union mmu_role role;
		u64 gfn;
		bool want = vcpu_root_key(v, i, &gfn, &role);

		if (want ? !sp || sp->gfn != gfn || sp->role.word != role.word : sp != NULL)
			FAIL(a, "vcpu root %u is %llx, not the shadow of its CR3 %llx (glevels %u)",
			     i, sp ? (unsigned long long)sp->gfn : ~0ull,
			     (unsigned long long)v->cr3, v->base_role.glevels);
	}
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
			/* The CPU may set reserved bits (QEMU TCG sets A) between entries;
			 * mmu_load clears them before the next (mmu.c: pae_root_scrub). */
			if ((v->pae_root[i] & ~PDPTE_RSVD_FIXED) != (sp ? sp->hpa | PTE_P : 0))
				FAIL(a, "vcpu PAE root entry %u is %llx, not %llx (glevels %u)", i,
				     (unsigned long long)v->pae_root[i],
				     (unsigned long long)(sp ? sp->hpa | PTE_P : 0),
				     v->base_role.glevels);
			if (v->root_valid && sp && sp->invalid)
				FAIL(a, "vcpu runs on a zapped root");
		}
		if (v->root_valid && v->root && v->root->invalid)
			FAIL(a, "vcpu runs on a zapped root");
		if (v->root_valid && v->root_hpa != (v->root ? v->root->hpa : v->pae_root_hpa))
			FAIL(a, "vcpu's root_hpa %llx is not its root's page",
			     (unsigned long long)v->root_hpa);
		u64 gva, memo_gpa, shadow_gpa;
		for (int fetch = 0; fetch < 2; fetch++)
			if (!mmu_shadow_memo_ok(v, fetch, &gva, &memo_gpa, &shadow_gpa))
				FAIL(a, "vcpu's %s memo maps %llx to %llx, the shadow to %llx",
				     fetch ? "fetch" : "read", (unsigned long long)gva,
				     (unsigned long long)memo_gpa, (unsigned long long)shadow_gpa);
		if (v->root_valid)
			check_root_key(a, v);
	}
}

static u32 frame_shadows(struct mmu_vm *vm, u64 gfn)
{
	struct mmu_page *sp;
	u32 n = 0;

	for (sp = vm->gfn_hash[gfn_hash_idx(gfn)]; sp; sp = sp->gfn_next)
		n += sp->gfn == gfn && !sp->role.direct;
	return n;
}

static void check_shadow_count(struct audit *a, u64 gfn, const struct mmu_frame *f)
{
	u32 shadows = frame_shadows(a->vm, gfn);

	if (shadows != f->shadowed)
		FAIL(a, "gfn %llx: %u shadow pages, count says %u", (unsigned long long)gfn,
		     shadows, f->shadowed);
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
			rmapped += pset_count(s->frames[i].rmap);
			if (s->device && s->frames[i].shadowed)
				FAIL(a, "gfn %llx is device memory, shadowed as a page table",
				     (unsigned long long)(s->base_gfn + i));
			if (!s->device)
				check_shadow_count(a, s->base_gfn + i, &s->frames[i]);
			if (s->frames[i].unsync && s->frames[i].shadowed != 1)
				FAIL(a, "gfn %llx out of sync with %u shadows",
				     (unsigned long long)(s->base_gfn + i), s->frames[i].shadowed);
		}
	if (rmapped != a->writable_leaves)
		FAIL(a, "rmap holds %llu entries, %llu writable leaves exist",
		     (unsigned long long)rmapped, (unsigned long long)a->writable_leaves);
}

/* Every live page is hashed and listed once; resets the per-page scratch counts. */
static void check_counts(struct audit *a)
{
	struct mmu_vm *vm = a->vm;
	struct list_head *l;
	struct mmu_page *sp;
	u64 hashed = 0, listed = 0, unsync = 0, unsync_listed = 0;
	unsigned b;

	for (l = vm->lru.next; l != &vm->lru; l = l->next) {
		sp = sp_of_lru(l);
		sp->audit_links = sp->audit_roots = 0;
		listed++;
		unsync += sp->unsync;
	}
	for (l = vm->unsync_pages.next; l != &vm->unsync_pages; l = l->next) {
		sp = container_of(l, struct mmu_page, unsync_link);
		unsync_listed++;
		if (!sp->unsync || sp->invalid)
			FAIL(a, "page %llx on the out-of-sync list is %s",
			     (unsigned long long)sp->gfn, sp->invalid ? "zapped" : "in sync");
	}
	if (unsync != unsync_listed || unsync != vm->nunsync)
		FAIL(a, "%llu pages out of sync, %llu listed, %u counted",
		     (unsigned long long)unsync, (unsigned long long)unsync_listed, vm->nunsync);
	for (b = 0; b < HASH_BUCKETS; b++)
		for (sp = vm->gfn_hash[b]; sp; sp = sp->gfn_next) {
			hashed++;
			if (gfn_hash_idx(sp->gfn) != b || sp->invalid)
				FAIL(a, "page %llx in the wrong bucket or zapped",
				     (unsigned long long)sp->gfn);
		}
	if (hashed != listed || listed != vm->npages)
		FAIL(a, "%llu pages hashed, %llu listed, %llu counted", (unsigned long long)hashed,
		     (unsigned long long)listed, (unsigned long long)vm->npages);
}

/* Forget the changes recorded since the last audit. */
static void audit_reset(struct mmu_vm *vm)
{
	while (vm->audit_pages.next != &vm->audit_pages) {
		struct mmu_page *sp =
			container_of(vm->audit_pages.next, struct mmu_page, audit_link);

		memset(sp->audit_entries, 0, sizeof(sp->audit_entries));
		sp->audit_page = false;
		audit_forget_page(vm, sp);
	}
	/* A device slot may have gone since a frame was listed (its BAR moved). */
	while (vm->audit_nframes) {
		struct mmu_frame *f = frame_of(vm, vm->audit_frames[--vm->audit_nframes]);
		if (f)
			f->audit_dirty = 0;
	}
	vm->audit_overflow = vm->audit_pages_changed = false;
}

static void audit_start(struct audit *a, struct mmu_vm *vm, char *buf, size_t size)
{
	/* Not a memset: the window is filled before use. */
	a->vm = vm;
	a->buf = buf;
	a->size = size;
	a->used = 0;
	a->errors = 0;
	a->writable_leaves = 0;
	a->windowed = false;
	if (buf && size)
		buf[0] = 0;
}

unsigned mmu_audit(struct mmu_vm *vm, char *buf, size_t size)
{
	struct audit a;
	struct list_head *l;

	audit_start(&a, vm, buf, size);
	a.windowed = true;
	a.win_gpa = ~0ull;
	check_counts(&a);
	count_roots(&a);
	for (l = vm->lru.next; l != &vm->lru; l = l->next)
		check_page(&a, sp_of_lru(l));
	for (l = vm->lru.next; l != &vm->lru; l = l->next)
		check_parents(&a, sp_of_lru(l));
	check_frames(&a);
	audit_reset(vm);
	vm->audit_since_full = 0;
	return a.errors;
}

/* ---- incremental ---- */

/* A member of a parent set (reverse map) must be an entry of a live upper (leaf) table;
 * returns that table. */
static struct mmu_page *check_member(struct audit *a, const u64 *p, bool leaf, const char *what,
				     u64 gfn)
{
	struct mmu_page *sp = sp_of_sptep(a->vm, p);

	if (!sp || sp->invalid || (sp->role.level == 1) != leaf) {
		FAIL(a, "%s of %llx holds an entry of no live %s table", what,
		     (unsigned long long)gfn, leaf ? "leaf" : "upper");
		return NULL;
	}
	return sp;
}

/* Page-level state: hashes, the parent set's members, the root count. */
static void check_page_incr(struct audit *a, struct mmu_page *sp)
{
	struct mmu_vcpu *v;
	unsigned roots = 0, i;
	u64 *p;

	check_page_state(a, sp);
	PSET_FOR_EACH(sp->parents, it, p)
	if (check_member(a, p, false, "parent set", sp->gfn) &&
	    (*p & (PTE_ADDR | PTE_P)) != (sp->hpa | PTE_P))
		FAIL(a, "parent entry of %llx does not point at it", (unsigned long long)sp->gfn);
	for (v = a->vm->vcpus; v; v = v->next) {
		roots += v->root == sp;
		for (i = 0; i < 4; i++)
			roots += v->pae_sp[i] == sp;
	}
	if (sp->root_count != roots)
		FAIL(a, "page %llx root_count %u, used by %u roots", (unsigned long long)sp->gfn,
		     sp->root_count, roots);
}

static void check_frame_incr(struct audit *a, u64 gfn)
{
	struct mmu_frame *f = frame_of(a->vm, gfn);
	struct mmu_page *sp;
	u64 *p;

	if (!f)
		return; /* a device slot gone since (its BAR moved): nothing maps it */
	if (table_frame_of(a->vm, gfn))
		check_shadow_count(a, gfn, f);
	if (f->shadowed && f->rmap && !f->unsync)
		FAIL(a, "shadowed gfn %llx has writable mappings", (unsigned long long)gfn);
	if (f->unsync && f->shadowed != 1)
		FAIL(a, "gfn %llx out of sync with %u shadows", (unsigned long long)gfn,
		     f->shadowed);
	PSET_FOR_EACH(f->rmap, it, p)
	if ((sp = check_member(a, p, true, "rmap", gfn)) != NULL &&
	    (!spte_writable_leaf(*p) || spte_leaf_gfn(sp, (unsigned)(p - sp->spt)) != gfn))
		FAIL(a, "rmap of %llx holds %llx[%u] = %llx", (unsigned long long)gfn,
		     (unsigned long long)sp->gfn, (unsigned)(p - sp->spt), (unsigned long long)*p);
}

unsigned mmu_audit_incremental(struct mmu_vm *vm, char *buf, size_t size)
{
	struct audit a;
	struct list_head *l;
	unsigned w, n;

	if (!vm->audit_track || vm->audit_overflow ||
	    (vm->audit_full_every && ++vm->audit_since_full >= vm->audit_full_every)) {
		vm->audit_track = true;
		return mmu_audit(vm, buf, size);
	}
	audit_start(&a, vm, buf, size);
	if (vm->audit_pages_changed)
		check_counts(&a);
	count_roots(&a);
	for (l = vm->audit_pages.next; l != &vm->audit_pages; l = l->next) {
		struct mmu_page *sp = container_of(l, struct mmu_page, audit_link);

		if (sp->invalid) /* emptied, out of the hash: nothing left to check */
			continue;
		if (sp->audit_page)
			check_page_incr(&a, sp);
		for (w = 0; w < ARRAY_SIZE(sp->audit_entries); w++)
			for (u64 bits = sp->audit_entries[w]; bits; bits &= bits - 1)
				check_entry(&a, sp, w * 64 + (unsigned)__builtin_ctzll(bits));
	}
	for (n = 0; n < vm->audit_nframes; n++)
		check_frame_incr(&a, vm->audit_frames[n]);
	audit_reset(vm);
	return a.errors;
}

static void audit_list(struct mmu_vm *vm, struct mmu_page *sp)
{
	if (!sp->audit_listed) {
		sp->audit_listed = true;
		list_add_tail(&sp->audit_link, &vm->audit_pages);
	}
}

void audit_track_page(struct mmu_vm *vm, struct mmu_page *sp)
{
	sp->audit_page = true;
	audit_list(vm, sp);
}

void audit_track_entry(struct mmu_vm *vm, struct mmu_page *sp, unsigned idx)
{
	sp->audit_entries[idx / 64] |= BIT(idx % 64);
	audit_list(vm, sp);
}

void audit_mark_sptep(struct mmu_vm *vm, const u64 *sptep)
{
	struct mmu_page *sp;

	if (!vm->audit_track)
		return;
	sp = sp_of_sptep(vm, sptep);
	if (sp)
		audit_mark_entry(vm, sp, (unsigned)(sptep - sp->spt));
	else
		vm->audit_overflow = true; /* a stray pointer: the full audit reports it */
}

void audit_mark_frame(struct mmu_vm *vm, u64 gfn)
{
	struct mmu_frame *f;

	if (!vm->audit_track || !(f = frame_of(vm, gfn)) || f->audit_dirty)
		return;
	if (vm->audit_nframes == MMU_AUDIT_FRAMES) {
		vm->audit_overflow = true;
		return;
	}
	f->audit_dirty = 1;
	vm->audit_frames[vm->audit_nframes++] = gfn;
}

/* Guest table memory changed: the entries mirroring it are checked against the new contents. */
void audit_mark_guest_write(struct mmu_vm *vm, u64 gpa, unsigned len)
{
	u64 gfn = gpa >> PAGE_SHIFT;
	unsigned first = gpa & (PAGE_SIZE - 1), idx[2], i, n;
	struct mmu_page *sp;

	if (!vm->audit_track)
		return;
	audit_mark_frame(vm, gfn);
	for (sp = vm->gfn_hash[gfn_hash_idx(gfn)]; sp; sp = sp->gfn_next) {
		if (sp->gfn != gfn || sp->role.direct)
			continue;
		for (n = sp_mirrors(sp, first, idx), i = 0; i < n; i++)
			audit_mark_entry(vm, sp, idx[i]);
		for (n = sp_mirrors(sp, first + len - 1, idx), i = 0; i < n; i++)
			audit_mark_entry(vm, sp, idx[i]);
	}
}

void audit_forget_page(struct mmu_vm *vm UNUSED, struct mmu_page *sp)
{
	if (sp->audit_listed) {
		list_del(&sp->audit_link);
		sp->audit_listed = false;
	}
}
