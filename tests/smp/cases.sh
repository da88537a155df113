#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-smp: SMP guests (tests/guests/smp.c): AP start-up, shared page tables, the guest's own TLB shootdowns.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
G=${GUEST_DIR:-build/guests}

# INIT-SIPI-SIPI through the virtual LAPIC into the guest's real-mode trampoline (SVM runs real
# mode natively), two vCPUs on two CPUs under shadow paging.
case_run smp-qemu-sipi --cpu max --smp 2 --timeout 240 \
  --module "$G/smppae.elf name=smp vcpus=2 time=180" --expect guests_passed=1 \
  --expect-log "smppae: 2 vCPUs \(sipi start\)" --expect-log "guest smp: vcpu1: cpu=1 started" \
  --expect-log "guest smp: smp: vcpus=2 ipis=[1-9]" \
  --expect-log "smppae: 100 NMIs from vCPU 1 around STI and MOV SS shadows, 0 inside one"
# The PV start hypercall (bad inputs first: EINVAL, EFAULT, EBUSY) with audit=1.
case_run smp-qemu-pv-audit --cpu max --smp 2 --timeout 240 --cmdline "audit=1" \
  --module "$G/smp32.elf name=smp vcpus=2 time=180 -- start=pv" --expect guests_passed=1 \
  --expect-log "smp32: 2 vCPUs \(pv start\)" --expect-log "audit_errors=0"
# More vCPUs than CPUs: four time-sliced on two.
case_run smp-qemu-oversubscribed --cpu max --smp 2 --timeout 240 \
  --module "$G/smp32.elf name=smp vcpus=4 cpus=0,1 time=180" --expect guests_passed=1 \
  --expect-log "smp32: 4 vCPUs \(sipi start\)" --expect-log "guest smp: vcpu3: cpu=1 started"
# Four vCPUs on four CPUs sharing one shadow MMU, without and with audit=1. 100 rounds: four
# vCPU threads on this machine's two cores are often held up longer than a slice, which once
# made the scheduler sleep on a runnable vCPU (make soak-smp runs 1500).
case_run smp-qemu-smp4 --cpu max --smp 4 --timeout 240 \
  --module "$G/smppae.elf name=smp vcpus=4 time=180 -- rounds=100" --expect guests_passed=1 \
  --expect-log "smppae: 4 vCPUs \(sipi start\)" --expect-log "guest smp: vcpu3: cpu=3 started" \
  --expect-log "smppae: 100 remap and 4 write-protect shootdowns on 4 vCPUs"
# The lock's counts (the report's lock: line) hold together: every exit's handling takes the
# VM's lock once, so it was taken at least as often as the guest exited; contended at most as
# often as taken; spins exactly when contended; and the waits by exit kind sum to at most the
# contended acquisitions (the monitor's or the guest's own entries may contend too).
lock_relation() { # CASE GUEST
  awk -v g="$2" '
    $0 ~ "^guest " g ": ended=" { for (i = 1; i <= NF; i++) if ($i ~ /^exits=/) { split($i, a, "="); ex = a[2] } }
    $0 ~ "^guest " g ": lock: " { for (i = 1; i <= NF; i++) { split($i, a, "=");
        if (a[1] == "taken") t = a[2]; else if (a[1] == "contended") c = a[2];
        else if (a[1] == "spins") s = a[2]; else if (i > 6 && a[2] != "") w += a[2] }; seen = 1 }
    END { ok = seen && ex > 0 && t >= ex && c <= t && ((c == 0) == (s == 0)) && w <= c
          printf "%s %s-lock: exits=%d taken=%d contended=%d spins=%d waits=%d\n",
                 ok ? "PASS" : "FAIL", "'"$1"'", ex, t, c, s, w; exit !ok }' \
    <(tr -d '\r' < "build/harness/$1/serial.txt")
  case_count "$1-lock" $?
}
lock_relation smp-qemu-smp4 smp
case_run smp-qemu-smp4-audit --cpu max --smp 4 --timeout 240 --cmdline "audit=1" \
  --module "$G/smp32.elf name=smp vcpus=4 time=180" --expect guests_passed=1 \
  --expect-log "smp32: 4 vCPUs \(sipi start\)" --expect-log "audit_errors=0"
# Four vCPUs on four CPUs on nested paging (the CPU walks the shared tables).
case_run smp-qemu-tdp-smp4 --cpu max --smp 4 --timeout 240 --cmdline "mmu=tdp" \
  --module "$G/smppae.elf name=smp vcpus=4 time=180 -- rounds=100" --expect guests_passed=1 \
  --expect-log "smppae: 4 vCPUs \(sipi start\)" \
  --expect-log "smppae: 100 remap and 4 write-protect shootdowns on 4 vCPUs"
# Bad vcpus=/cpus= values refuse the guest, while a CPU past the machine's falls back to one it
# has, with a warning; a guest whose APs never start still passes, and its report says so.
case_run smp-qemu-bad-options --cpu max --smp 2 \
  --module "$G/healthy.elf name=v0 vcpus=0" --module "$G/healthy.elf name=v9 vcpus=9" \
  --module "$G/healthy.elf name=c7 cpus=7" --module "$G/healthy.elf name=cx cpus=1,x" \
  --module "$G/healthy.elf name=idle vcpus=2 cpus=0,1" \
  --expect guests=2 --expect guests_passed=2 --expect guests_rejected=3 \
  --expect-log "guest v0: unknown or invalid option 'vcpus=0'" \
  --expect-log "guest v9: vcpus=9: at most 8 \(4 per host CPU, 2 CPUs\)" \
  --expect-log "guest c7: warning: cpu 7 beyond this machine's 2 CPUs: on cpu 1 instead" \
  --expect-log "guest c7: 16 MiB, entry 0x[0-9a-f]+, cpu 1," \
  --expect-log "guest cx: unknown or invalid option 'cpus=1,x'" \
  --expect-log "guest idle: vcpu1: cpu=1 never-started exits=0"
# The most vCPUs a guest has (vmm/vm.h: APIC IDs 0-14, the I/O APIC 15), four per CPU on
# four CPUs: every AP starts, takes the shootdowns and the NMIs.
case_run smp-qemu-vcpus15 --cpu max --smp 4 --timeout 300 \
  --module "$G/smp32.elf name=smp vcpus=15 time=200" --expect guests_passed=1 \
  --expect-log "smp32: 15 vCPUs \(sipi start\)" \
  --expect-log "smp32: 8 remap and 4 write-protect shootdowns on 15 vCPUs"
# VMX (Bochs): the PV start, two CPUs.
case_run smp-bochs-vmx-pv --emu bochs --cpu corei7_haswell_4770 --smp 2 --timeout 600 \
  --module "$G/smp32.elf name=smp vcpus=2 time=500 -- start=pv" --expect guests_passed=1 \
  --expect-log "smp32: 2 vCPUs \(pv start\)" \
  --expect-log "smp32: 100 NMIs from vCPU 1 around STI and MOV SS shadows, 0 inside one"
# VMX under shadow paging has no unrestricted guest: the AP's SIPI trampoline runs in
# virtual-8086 mode and through the real-mode emulator (arch/x86/realmode.c) until it reaches
# protected mode; a guest on the other CPU goes on beside it.
case_run smp-bochs-vmx-sipi --emu bochs --cpu corei7_haswell_4770 --smp 2 --timeout 600 \
  --module "$G/smp32.elf name=smp vcpus=2 time=500" \
  --module "$G/healthy.elf name=healthy cpu=1" --expect guests_passed=2 \
  --expect-log "smp32: 2 vCPUs \(sipi start\)" --expect-log "guest smp: vcpu1: cpu=1 started"
# The same with the audit after every MMU operation: shadow state shared by two vCPUs on VMX.
case_run smp-bochs-vmx-sipi-audit --emu bochs --cpu corei7_haswell_4770 --smp 2 --timeout 600 \
  --cmdline "audit=1" --module "$G/smppae.elf name=smp vcpus=2 time=500" --expect guests_passed=1 \
  --expect-log "smppae: 2 vCPUs \(sipi start\)" --expect-log "audit_errors=0"

suite_end smp
