#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The guest suite as boot groups, shared by check-qemu and check-bochs: guest_groups PREFIX ARGS...
# boots each group of guests with the given run-case options, once plain and once with audit=1.
G=${GUEST_DIR:-build/guests}

# guest_group NAME "GUEST..." RUN-CASE-OPTIONS...: all guests must pass; crash-* must crash.
guest_group() {
  local name=$1 list=$2; shift 2
  local mods=() pass=0 crash=0 cpu=0 smp=1 a prev=""
  for a in "$@"; do [ "$prev" = --smp ] && smp=$a; prev=$a; done
  for g in $list; do
    if [[ $g == crash-* ]]; then
      mods+=(--module "$G/$g.elf name=$g expect=crash cpu=$((cpu % smp))"); crash=$((crash + 1))
    else
      mods+=(--module "$G/$g.elf name=$g cpu=$((cpu % smp))"); pass=$((pass + 1))
    fi
    cpu=$((cpu + 1))
  done
  case_run "$name" "$@" "${mods[@]}" --expect guests_failed=0 --expect guests_passed=$pass \
    --expect guests_crashed=$crash
}

# GUEST_GROUPS_AUDIT="0 1" (default), "0" or "1": which of the two passes to run;
# GUEST_GROUPS_NO_PAGING_AUDIT=1 leaves the paging group out of the audit pass.
guest_groups() {
  local prefix=$1; shift
  local audit
  for audit in ${GUEST_GROUPS_AUDIT:-0 1}; do
    local sfx="" cl=""
    [ $audit = 1 ] && sfx=-audit cl="audit=1"
    [ $audit = 1 ] && [ -n "${GUEST_GROUPS_NO_PAGING_AUDIT:-}" ] ||
      guest_group "$prefix-paging$sfx" "paging-off perm32 permpae perm64" --cmdline "$cl" "$@"
    guest_group "$prefix-ptwrite$sfx" "ptwrite32 ptwritepae ptwrite64" --cmdline "$cl" "$@"
    guest_group "$prefix-ctxswitch$sfx" "ctxswitch32 ctxswitchpae ctxswitch64" --cmdline "$cl" "$@"
    guest_group "$prefix-fork-flood$sfx" "fork-flood32 fork-floodpae fork-flood64" --cmdline "$cl" "$@"
    guest_group "$prefix-invlpg$sfx" "invlpg-global32 invlpg-globalpae invlpg-global64" \
      --cmdline "$cl" "$@"
    # The crashing guests share a CPU with a healthy one, which must still pass.
    [ -n "${GUEST_GROUPS_NO_CRASH:-}" ] ||
      guest_group "$prefix-crash$sfx" "crash-triple crash-scribble healthy" --cmdline "$cl" "$@"
  done
}
