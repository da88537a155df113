/* SPDX-License-Identifier: GPL-2.0-only */
/* Translates Umbra's internal counters into struct umbra_stats (pv/abi.h). */
#include "vmm/stats.h"
#include "lib/string.h"
#include "vmm/vm.h"

/* The guest ABI's slot for each of Umbra's exit reasons: the slot of the same name. A reason
 * the ABI does not name yet fails to build here, until pv/abi.h appends a slot for it. */
#define ABI_SLOT(name) [EXIT_##name] = UMBRA_EXIT_##name,
static const u8 abi_slot[EXIT_REASONS] = { EXIT_REASON_LIST(ABI_SLOT) };
#undef ABI_SLOT

const char *stats_exit_name(unsigned reason)
{
#define SLOT_NAME(name, short_name) #short_name,
	static const char *const names[UMBRA_EXIT_REASONS] = { UMBRA_EXIT_REASON_LIST(SLOT_NAME) };
#undef SLOT_NAME
	return reason < EXIT_REASONS ? names[abi_slot[reason]] : "?";
}

void stats_collect(struct vcpu *v, struct umbra_stats *out)
{
	struct mmu_stats m;

	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->reasons = UMBRA_EXIT_REASONS;
	/* The guest's totals: the sum over its vCPUs. */
	for (u32 i = 0; i < v->vm->nr_vcpus; i++) {
		const struct vcpu *c = &v->vm->vcpus[i];
		out->exits_total += c->exits_total;
		for (unsigned r = 0; r < EXIT_REASONS; r++)
			out->exits[abi_slot[r]] += c->exits[r];
	}
	mmu_stats(&v->vm->mmu, &m);
	out->mmu = (struct umbra_mmu_stats){
		.faults_fixed = m.faults_fixed,
		.faults_to_guest = m.faults_guest,
		.pages_shadowed = m.pages_shadowed,
		.pages_zapped = m.pages_zapped,
		.pages_reclaimed = m.pages_reclaimed,
		.writes_emulated = m.writes_emulated,
		.flood_zaps = m.flood_zaps,
		.misaligned_zaps = m.misaligned_zaps,
		.root_cache_hits = m.root_hits,
		.root_cache_misses = m.root_misses,
		.rmap_descs = m.rmap_desc_in_use,
		.unshadowed_unemulated = v->vm->unemulated,
		.nested_faults_filled = v->vm->tdp.stats.faults_filled,
		.prefetched = m.prefetched,
		.unsyncs = m.unsyncs,
		.resyncs = m.resyncs,
	};
}
