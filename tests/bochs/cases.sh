#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
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
# this 2-core machine, 2026-12-06; 440,093 exits against 180,866): a 600 s safety net. Its
# paging group's audit pass took 299 s on a quiet machine (2026-12-07) and ran past 600 s in a
# CI run beside another suite: it checks the vendor-neutral MMU's invariants, which the audit
# pass of the same group checks on Bochs' Haswell and on QEMU's SVM (check-qemu), so Ryzen runs
# that group once, without the audit, and the other groups in both passes.
GUEST_GROUPS_NO_CRASH=1 GUEST_GROUPS_NO_PAGING_AUDIT=1 \
  guest_groups bochs-ryzen --emu bochs --cpu ryzen --smp 2 --timeout 600

# EPT with unrestricted guest: the guests run their own CR0/CR3/CR4 on the nested table.
guest_group bochs-haswell-tdp-paging "paging-off perm32 permpae perm64" --emu bochs --cpu corei7_haswell_4770 --smp 2 --timeout 300 --cmdline mmu=tdp

# Real mode without unrestricted guest (check-mb1 compares the realmode kernel's output with
# native and SVM runs): with a mode switch that leaves an instruction Umbra cannot emulate
# (bad=1), and with an interrupt vector table too short for INT n, #GP and #DF (triple=1),
# those guests alone end, with a message and as a triple fault, and the healthy one beside
# them passes; and the same kernel on EPT with unrestricted guest, where the CPU runs real
# mode itself.
case_run bochs-haswell-realmode-bad --emu bochs --cpu corei7_haswell_4770 --timeout 300 \
  --module "build/mb1/realmode.elf name=rmbad cpu=0 expect=crash -- bad=1" \
  --module "build/mb1/realmode.elf name=rmtriple cpu=0 expect=crash -- triple=1" \
  --module "build/guests/healthy.elf name=healthy cpu=0" \
  --expect guests_passed=1 --expect guests_crashed=2 --expect guests_failed=0 \
  --expect-log "guest rmtriple: ended=triple-fault .*fault while delivering #DF" \
  --expect-log "\[rmbad\] real mode: cannot emulate the instruction at 0018:[0-9a-f]+ \(bytes d4 0a" \
  --expect-log "guest rmbad: ended=fatal .*instruction Umbra cannot emulate" \
  --expect-log "guest healthy: ended=result status=33"
case_run bochs-haswell-realmode-tdp --emu bochs --cpu corei7_haswell_4770 --timeout 300 \
  --cmdline "mmu=tdp" --module "build/mb1/realmode.elf name=realmode" \
  --expect guests_passed=1 --expect-log "\[realmode\] round 2: segments, stack, .* checked" \
  --expect-log "nested_filled=[1-9]"

# Guest reset on VMX: every path restarts the guest (tests/qemu has the same case on SVM).
G=${GUEST_DIR:-build/guests}
case_run bochs-haswell-reboot --emu bochs --cpu corei7_haswell_4770 --smp 1 --timeout 300 \
  --cmdline audit=1 \
  --module "$G/reboot.elf name=rkbc -- via=kbc" --module "$G/reboot.elf name=rcf9 -- via=cf9" \
  --module "$G/reboot.elf name=rfadt -- via=fadt" \
  --module "$G/reboot.elf name=rtriple -- via=triple" --module "$G/healthy.elf name=healthy" \
  --expect guests_passed=5 --expect guests_failed=0 \
  --expect-log "guest rkbc: reset: restarts=1 8042=1 cf9=0 triple-fault=0" \
  --expect-log "guest rcf9: reset: restarts=1 8042=0 cf9=1 triple-fault=0" \
  --expect-log "guest rfadt: reset: restarts=1 8042=0 cf9=1 triple-fault=0" \
  --expect-log "guest rtriple: reset: restarts=1 8042=0 cf9=0 triple-fault=1"

# A two-vCPU guest resets from vCPU 0 (vCPUs on two CPUs) and from vCPU 1 (both on one CPU),
# the other vCPU asleep in HLT; each restarts once and starts vCPU 1 again (tests/qemu: SVM).
case_run bochs-haswell-reboot-smp --emu bochs --cpu corei7_haswell_4770 --smp 2 --timeout 300 \
  --cmdline audit=1 \
  --module "$G/reboot.elf name=sbsp vcpus=2 cpus=0,1 -- via=kbc from=bsp" \
  --module "$G/reboot.elf name=sap vcpus=2 cpus=1,1 -- via=triple from=ap" \
  --module "$G/healthy.elf name=healthy cpu=0" \
  --expect guests_passed=3 --expect guests_failed=0 \
  --expect-log "guest sbsp: reset: restarts=1 8042=1 cf9=0 triple-fault=0" \
  --expect-log "guest sap: reset: restarts=1 8042=0 cf9=0 triple-fault=1" \
  --expect-log "\[sbsp\] reboot: second boot, memory zeroed, 8042 reset, vCPU 1 started again" \
  --expect-log "\[sap\] reboot: second boot, memory zeroed, 8042 reset, vCPU 1 started again" \
  --expect-log "guest sbsp: mmu: .*audit_errors=0" --expect-log "guest sap: mmu: .*audit_errors=0" \
  --expect-log "guest healthy: ended=result status=33"

suite_end bochs
