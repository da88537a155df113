#!/usr/bin/env bash
# check-linux: Debian's kernel with the test initramfs boots and passes its /init in every MMU mode.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
L=${1:?usage: cases.sh LINUX_OUT}
G=build/guests

# linux_module NAME MEM LOOPS: the kernel's module line and its initramfs.
linux_modules() {
  echo "--module"; echo "$L/vmlinuz name=$1 mem=$2 -- console=ttyS0 loops=$3 expect_mem=$2"
  echo "--module"; echo "$L/initrd.gz for=$1"
}
mapfile -t one < <(linux_modules linux 160 200)
pass=(--expect guests_passed=1 --expect guests_failed=0 --expect-log "\[linux\] linux-test: PASS")

# Timeouts are safety nets for a loaded 2-core machine; a boot takes about a minute.
case_run linux-shadow --cpu max --timeout 600 "${one[@]}" "${pass[@]}"
case_run linux-nocache --cpu max --timeout 600 --cmdline mmu=nocache "${one[@]}" "${pass[@]}"
case_run linux-tdp --cpu max --timeout 600 --cmdline mmu=tdp "${one[@]}" "${pass[@]}" \
  --expect-log "guest linux: tdp: faults_filled=[1-9]"
mapfile -t short < <(linux_modules linux 160 20)
case_run linux-audit --cpu max --timeout 900 --cmdline audit=1 "${short[@]}" "${pass[@]}" \
  --expect-log "audit_errors=0"

# Bochs Haswell: the VMX backend, shadow MMU (Bochs is slower: a shorter loop).
mapfile -t vmx < <(linux_modules linux 160 20)
case_run linux-bochs-vmx --emu bochs --cpu corei7_haswell_4770 --timeout 900 "${vmx[@]}" \
  "${pass[@]}" --expect virt=vmx

# Two Linux guests on two CPUs, a healthy test guest sharing the first.
mapfile -t a < <(linux_modules linux-a 112 100)
mapfile -t b < <(linux_modules linux-b 112 100)
case_run linux-two --cpu max --smp 2 --mem 384 --timeout 900 "${a[@]}" "${b[@]}" \
  --module "$G/healthy.elf name=healthy cpu=0" --expect guests_passed=3 --expect guests_failed=0 \
  --expect-log "\[linux-a\] linux-test: PASS" --expect-log "\[linux-b\] linux-test: PASS"

suite_end linux
