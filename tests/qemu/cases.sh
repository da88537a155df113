#!/usr/bin/env bash
# check-qemu: boots Umbra under QEMU TCG (the SVM path) in every CPU configuration.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
fault_elf=${1:?usage: cases.sh FAULT_ELF}

for n in 1 2 4; do
  case_run "qemu-max-smp$n" --cpu max --smp $n --expect cpus_online=$n --expect virt=svm \
    --expect virt_cpus=$n --expect-log "npt=yes"
done
case_run qemu-qemu64-smp2 --cpu qemu64 --smp 2 --expect cpus_online=2 --expect virt=svm \
  --expect-log "npt=no"
case_run qemu-cpus1-of-4 --cpu max --smp 4 --cmdline "cpus=1" --expect cpus_online=1
case_run qemu-cpus2-of-4 --cpu max --smp 4 --cmdline "cpus=2 log=debug" --expect cpus_online=2
# An unknown option is reported on the console and does not stop the boot.
case_run qemu-unknown-option --cpu max --smp 1 --cmdline "frobnicate=3 log=quiet" \
  --expect cpus_online=1 --expect-log "unknown or invalid option 'frobnicate=3'"
case_run qemu-bad-cpus-value --cpu max --smp 2 --cmdline "cpus=zero" --expect cpus_online=2 \
  --expect-log "unknown or invalid option 'cpus=zero'"
# The harness must be able to fail: this build takes a #PF at boot, which must be reported as a
# failed run with the exception dump in the log.
case_must_fail qemu-harness-detects-exception "UMBRA EXCEPTION: cpu=0 vector=14 #PF" \
  "cr2=0x0" "^backtrace: 0x" "result=fail" -- --elf "$fault_elf" --cpu max --smp 1

suite_end qemu
