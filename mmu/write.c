/* SPDX-License-Identifier: GPL-2.0-only */
/* The emulated page-table write hook: keep every shadow of the written frame coherent. */
#include "mmu/internal.h"

/*
 * The write has not reached guest memory yet, so shadows can be zapped against the old
 * contents; the next access through the changed entry refaults and sees the new one.
 * Written entries are only dropped, not prefetched: simple, and writes to live page tables
 * are rare next to their reads.
 */

#define FLOOD_WRITES 3

unsigned sp_mirrors(const struct mmu_page *sp, unsigned offset, unsigned idx[2])
{
	unsigned g;

	if (sp->role.glevels != GLEVELS_32) {
		idx[0] = offset / 8;
		return 1;
	}
	/* A 1024-entry guest table is split over 2 (PT) or 4 (PD) shadow tables. */
	g = offset / 4;
	if (sp->role.level == 1) {
		idx[0] = g & 511;
		return g >> 9 == sp->role.quadrant;
	}
	idx[0] = (g & 255) * 2;
	idx[1] = idx[0] + 1;
	return g >> 8 == sp->role.quadrant ? 2 : 0;
}

static void zap_entries(struct mmu_vm *vm, struct mmu_page *sp, unsigned offset)
{
	unsigned idx[2], n = sp_mirrors(sp, offset, idx), i;

	for (i = 0; i < n; i++)
		sp_drop_spte(vm, sp, idx[i]);
}

/* One more emulated write to a shadowed frame: true once they flood it. */
static bool count_emulated(struct mmu_vm *vm, u64 gfn)
{
	vm->stats.writes_emulated++;
	if (vm->last_write_gfn != gfn) {
		vm->last_write_gfn = gfn;
		vm->write_count = 1;
		return false;
	}
	return ++vm->write_count >= FLOOD_WRITES;
}

/* A guest store Umbra emulated (counted, a step towards a flood zap): zaps what a store of len
 * bytes at gpa affects; the store itself is the caller's. */
static int before_write(struct mmu_vm *vm, u64 gpa, unsigned len)
{
	unsigned offset = gpa & (PAGE_SIZE - 1);
	u64 gfn = gpa >> PAGE_SHIFT;
	struct mmu_page *sp, *next;
	bool shadowed = false, flooded, zapped = false;

	if (len < 1 || len > 8 || offset + len > PAGE_SIZE)
		return MMU_EINVAL;
	if (MMU_MUTATED(vm, skip_zap_on_write))
		return MMU_OK;

	flooded = false;
	for (sp = vm->gfn_hash[gfn_hash_idx(gfn)]; sp; sp = next) {
		unsigned pte_size;

		next = sp->gfn_next;
		if (sp->gfn != gfn || sp->role.direct)
			continue;
		if (!shadowed) {
			shadowed = true;
			flooded = count_emulated(vm, gfn);
		}
		pte_size = sp->role.glevels == GLEVELS_32 ? 4 : 8;
		if ((offset ^ (offset + len - 1)) & ~(pte_size - 1)) {
			/* Crossing entries: rarely a page table write, too much trouble to split. */
			vm->stats.misaligned_zaps++;
			sp_zap(vm, sp);
			zapped = true;
		} else if (flooded) {
			/* The frame stopped being a page table, or is being rewritten (fork): let
			 * the writes run natively from now on. */
			vm->stats.flood_zaps++;
			sp_zap(vm, sp);
			zapped = true;
		} else {
			zap_entries(vm, sp, offset);
		}
	}
	/* A new shadow of this frame starts a new count. */
	if (zapped)
		vm->write_count = 0;
	if (shadowed)
		mmu_flush_all(vm);
	return MMU_OK;
}

int mmu_write(struct mmu_vm *vm, u64 gpa, unsigned len, u64 value)
{
	int r = before_write(vm, gpa, len);
	if (r != MMU_OK)
		return r;
	audit_mark_guest_write(vm, gpa, len);
	vm->ops->write_gpa(vm->ctx, gpa, &value, len);
	return MMU_OK;
}

void mmu_batch_begin(struct mmu_batch *b)
{
	*b = (struct mmu_batch){ .gfn = ~0ull };
}

static void audit_mark_entries(struct mmu_vm *vm, struct mmu_page *sp, const u64 *drop)
{
	if (!vm->audit_track)
		return;
	for (unsigned w = 0; w < SPT_ENTRIES / 64; w++)
		for (u64 bits = drop[w]; bits; bits &= bits - 1)
			audit_mark_entry(vm, sp, w * 64 + (unsigned)__builtin_ctzll(bits));
}

/* The 8-byte entries (bit i) that 64 written 4-byte words (bits 2i, 2i+1) touch. */
static u32 entries_of_words(u64 w)
{
	w = (w | w >> 1) & 0x5555555555555555ull;
	w = (w | w >> 1) & 0x3333333333333333ull;
	w = (w | w >> 2) & 0x0f0f0f0f0f0f0f0full;
	w = (w | w >> 4) & 0x00ff00ff00ff00ffull;
	w = (w | w >> 8) & 0x0000ffff0000ffffull;
	return (u32)(w | w >> 16);
}

/* The shadow entries of sp (bits of drop) that mirror the words of its frame written. */
static void batch_mirrors(const struct mmu_batch *b, const struct mmu_page *sp, u64 *drop)
{
	if (sp->role.glevels != GLEVELS_32) {
		for (unsigned w = 0; w < ARRAY_SIZE(b->written); w++)
			drop[w / 2] |= (u64)entries_of_words(b->written[w]) << (w % 2 * 32);
		return;
	}
	for (unsigned w = 0; w < ARRAY_SIZE(b->written); w++)
		for (u64 bits = b->written[w]; bits; bits &= bits - 1) {
			unsigned off = (w * 64 + (unsigned)__builtin_ctzll(bits)) * 4, idx[2];
			unsigned n = sp_mirrors(sp, off, idx);

			for (unsigned i = 0; i < n; i++)
				drop[idx[i] / 64] |= 1ull << (idx[i] % 64);
		}
}

/* Drops the shadow entries that mirror the words of b->gfn the batch wrote, in every shadow of
 * that frame. The writes are in guest memory already: dropping needs only the shadows. */
static void batch_drop(struct mmu_vm *vm, struct mmu_batch *b)
{
	u64 gfn = b->gfn;
	struct mmu_page *sp;

	if (gfn == ~0ull)
		return;
	/* What audit_mark_guest_write marks for each write, once for the table's writes. */
	audit_mark_frame(vm, gfn);
	for (sp = vm->gfn_hash[gfn_hash_idx(gfn)]; sp; sp = sp->gfn_next) {
		u64 drop[SPT_ENTRIES / 64] = { 0 };

		if (sp->gfn != gfn || sp->role.direct)
			continue;
		b->shadowed = true;
		batch_mirrors(b, sp, drop);
		audit_mark_entries(vm, sp, drop);
		/* Dropping entries frees no shadow page: the chain stays valid. */
		if (!MMU_MUTATED(vm, skip_zap_on_write))
			sp_drop_sptes(vm, sp, drop);
	}
	for (unsigned w = 0; w < ARRAY_SIZE(b->written); w++)
		b->written[w] = 0;
}

void mmu_batch_table(struct mmu_vm *vm, struct mmu_batch *b, u64 gfn)
{
	batch_drop(vm, b);
	b->gfn = gfn;
}

void mmu_batch_end(struct mmu_vm *vm, struct mmu_batch *b)
{
	batch_drop(vm, b);
	b->gfn = ~0ull;
	if (b->shadowed)
		mmu_flush_all(vm);
	b->shadowed = false;
}

/* Zapping before a compare that then fails costs only a refault: the entries are dropped, not
 * changed, and the VM lock keeps a new shadow of them from being made until the swap is done.
 * The swap is one locked compare-exchange of the aligned 8 bytes holding the operand, so an
 * operand of any size and alignment inside them is atomic too; a failed swap there means another
 * CPU stored to those 8 bytes meanwhile (only their other bytes, if the operand still matches:
 * then again). A guest keeping that up only holds its own vCPU back; the bound ends it. */
#define CMPXCHG_TRIES 1000

int mmu_cmpxchg(struct mmu_vm *vm, u64 gpa, unsigned len, u64 *old, u64 new_val)
{
	unsigned shift = (gpa & 7) * 8;
	u64 base = gpa & ~7ull, cur = 0;
	u64 mask = (len >= 8 ? ~0ull : (1ull << (len * 8)) - 1) << shift;
	int r;

	if (len < 1 || (gpa & 7) + len > 8)
		return MMU_EINVAL;
	r = before_write(vm, gpa, len);
	if (r != MMU_OK)
		return r;
	if (vm->ops->read_gpa(vm->ctx, base, &cur, 8))
		return MMU_EINVAL;
	for (unsigned tries = 0; tries < CMPXCHG_TRIES; tries++) {
		u64 seen = cur;
		if ((cur & mask) != ((*old << shift) & mask)) {
			*old = (cur & mask) >> shift;
			return MMU_OK;
		}
		if (vm->ops->cmpxchg_gpa(vm->ctx, base, 8, &cur,
					 (cur & ~mask) | ((new_val << shift) & mask))) {
			audit_mark_guest_write(vm, gpa, len);
			return MMU_OK;
		}
		if (cur == seen)
			return MMU_EINVAL; /* not RAM after all */
	}
	return MMU_EBUSY;
}
