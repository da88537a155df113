#!/usr/bin/env bash
# check-bochs: boots Umbra under Bochs: VMX on Haswell, and SVM on Ryzen as a second opinion.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
. "$(dirname "$0")/../harness/guest-groups.sh"

case_run bochs-haswell-smp2 --emu bochs --cpu corei7_haswell_4770 --smp 2 \
  --expect cpus_online=2 --expect virt=vmx --expect virt_cpus=2 --expect-log "vmx rev=.* ept=yes"
case_run bochs-ryzen-smp2 --emu bochs --cpu ryzen --smp 2 \
  --expect cpus_online=2 --expect virt=svm --expect virt_cpus=2 --expect-log "nrip_save=yes"
case_run bochs-haswell-cpus1 --emu bochs --cpu corei7_haswell_4770 --smp 2 --cmdline "cpus=1" \
  --expect cpus_online=1 --expect virt=vmx

# The guest suite: VMX on Haswell, SVM on Ryzen (Bochs' second opinion on the SVM backend).
guest_groups bochs-haswell --emu bochs --cpu corei7_haswell_4770 --smp 2 --timeout 300
# Bochs 2.7's SVM does not turn a guest's triple fault into a SHUTDOWN exit: the emulator
# itself panics ("3rd exception with no resolution"). The crash guests therefore run on QEMU's
# SVM and on Bochs' VMX only.
# Bochs' Ryzen model runs perm64 three times slower than its Haswell (154 s against 52 s on
# this 2-core machine, 2026-12-06; with audit=1 about twice that): a 600 s safety net.
GUEST_GROUPS_NO_CRASH=1 guest_groups bochs-ryzen --emu bochs --cpu ryzen --smp 2 --timeout 600

# EPT with unrestricted guest: the guests run their own CR0/CR3/CR4 on the nested table.
guest_group bochs-haswell-tdp-paging "paging-off perm32 permpae perm64" --emu bochs --cpu corei7_haswell_4770 --smp 2 --timeout 300 --cmdline mmu=tdp

suite_end bochs
