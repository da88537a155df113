#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-shm: shared regions between guests: a message exchange woken by doorbells only, the
# flood that coalesces, a read-only member, and every bad declaration refused alone.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
healthy=${1:?usage: cases.sh HEALTHY_ELF}
shm=${SHM_ELF:?SHM_ELF: the shm guest (tests/shm/suite.mk sets it)}

# Timeouts are safety nets for a loaded 2-core machine.
# members REGION CPU_A ROLE_A CPU_B ROLE_B [B_SUFFIX]: two shm test guests, a (peer 0) and b.
members() {
  printf '%s\n' --module "$shm name=a cpu=$2 shm=$1 -- role=$3" \
    --module "$shm name=b cpu=$4 shm=$1${6:-} -- role=$5"
}
two=(--smp 2 --expect guests=2 --expect guests_passed=2)
svm=(--cpu max "${two[@]}")
vmx=(--emu bochs --cpu corei7_haswell_4770 --expect virt=vmx "${two[@]}")
n=1000000
pair_expect=(--cmdline "shm=ring:64K"
  --expect-log "^umbra: shm ring: 64 KiB at 0xe0000000 in every guest that has it"
  --expect-log "^guest a: shm ring at 0xe0000000, 64 KiB, peer 0$"
  --expect-log "^guest b: shm ring at 0xe0000000, 64 KiB, peer 1$"
  --expect-log "^\\[a\\] shm32: bad arguments refused"
  --expect-log "^\\[a\\] shm32: peer 0 sent $n received $n "
  --expect-log "^\\[b\\] shm32: peer 1 sent $n received $n " --timeout 900)
# A million messages each way, the peers on two CPUs, then on one; QEMU SVM, then Bochs' VMX
# (shadow paging; about 17 s there).
mapfile -t pair2 < <(members ring 0 "pair n=$n" 1 "pair n=$n")
mapfile -t pair1 < <(members ring 1 "pair n=$n" 1 "pair n=$n")
case_run shm-pair-2cpu "${svm[@]}" "${pair2[@]}" "${pair_expect[@]}"
case_run shm-pair-1cpu "${svm[@]}" "${pair1[@]}" "${pair_expect[@]}"
case_run shm-pair-bochs-vmx "${vmx[@]}" "${pair2[@]}" "${pair_expect[@]}"
case_run shm-pair-bochs-vmx-1cpu "${vmx[@]}" "${pair1[@]}" "${pair_expect[@]}"
# The read-only member's faulting store, under nested paging and under shadow paging.
mapfile -t ro < <(members page 0 writer 1 ro :ro)
ro_expect=(--expect-log "^guest b: shm page at 0xe0000000, 8 KiB, peer 1, read-only$"
  --expect-log "^\\[b\\] shm32: read-only view checked, store faulted" --timeout 300)
case_run shm-ro-tdp "${svm[@]}" --cmdline "mmu=tdp shm=page:8K" "${ro[@]}" "${ro_expect[@]}"
case_run shm-ro-shadow "${svm[@]}" --cmdline "audit=1 shm=page:8K" "${ro[@]}" "${ro_expect[@]}" \
  --expect-log "^guest b: mmu: .* audit_errors=0$"
# A member takes its doorbells as its ivshmem function's MSI-X messages (capability, table in
# BAR1, local APIC), one held by the entry's mask in the pending bit and sent at unmask.
mapfile -t msix < <(members bell 0 ringer 1 msix)
msix_expect=(--cmdline "shm=bell:8K" --timeout 600
  --expect-log "^\\[b\\] shm32: MSI-X: 2 messages, one held by its mask and sent at unmask")
case_run shm-msix "${svm[@]}" "${msix[@]}" "${msix_expect[@]}"
case_run shm-msix-bochs-vmx "${vmx[@]}" "${msix[@]}" "${msix_expect[@]}"
# 100,000 doorbells in a loop (about 10 s of TCG) from one guest to a peer on the same CPU:
# they coalesce, the peer and a third guest there go on.
case_run shm-flood --cpu max --cmdline "shm=bell:8K" \
  --module "$shm name=flood shm=bell -- role=flood n=100000" \
  --module "$shm name=victim shm=bell -- role=victim n=100000" \
  --module "$healthy name=healthy" \
  --expect guests=3 --expect guests_passed=3 \
  --expect-log "^guest flood: shm bell peer 0: rang 100001 \\(coalesced [0-9]{5,}, refused 0\\)" \
  --timeout 600
# Bad declarations and memberships, each refused with its reason; the guests that are fine run.
# big comes first, so it has room in the PCI hole and fails on the 128 MiB machine's memory alone.
case_run shm-bad-input --cpu max --mem 128 \
  --cmdline "shm=big:200M shm=zero:0 shm=odd:5000 shm=twice:4K shm=twice:8K shm=huge:1G shm=nocolon shm=ok:8K" \
  --module "$shm name=a shm=ok -- role=pair n=1000" --module "$shm name=b shm=ok -- role=pair n=1000" \
  --module "$healthy name=undeclared shm=nope" --module "$healthy name=refused shm=huge" \
  --module "$healthy name=double shm=ok shm=ok" --module "$healthy name=badflag shm=ok:rw" \
  --expect guests=2 --expect guests_passed=2 \
  --expect-log "^umbra: shm=zero:0: the size must be a non-zero multiple of 4 KiB" \
  --expect-log "^umbra: shm=odd:5000: the size must be a non-zero multiple of 4 KiB" \
  --expect-log "^umbra: shm=twice:8K: region twice is declared twice" \
  --expect-log "^umbra: shm=nocolon: expected shm=NAME:SIZE" \
  --expect-log "^umbra: shm huge refused: no room for 1048576 KiB in the guests' PCI hole" \
  --expect-log "^umbra: shm big refused: 204800 KiB asked, [0-9]+ KiB free" \
  --expect-log "^guest undeclared: shm=nope: Umbra's line declares no region nope" \
  --expect-log "^guest refused: shm=huge: region huge was refused at boot" \
  --expect-log "^guest double: shm=ok: region ok given twice" \
  --expect-log "^guest badflag: shm=ok:rw: expected shm=NAME or shm=NAME:ro" --timeout 300
suite_end shm
