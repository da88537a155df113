#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-sched: no guest can keep a CPU from the others, and every run ends with its summary.
# Runs on QEMU TCG (SVM), Bochs Haswell (VMX: the preemption timer) and Bochs Ryzen (SVM).
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
S=${1:?usage: cases.sh SCHED_OUT}
G=${GUEST_DIR:-build/guests}

# A spinner beside the healthy guest on the one CPU: the healthy one passes, the spinner runs
# until its budget and ends as the timeout it was started to expect.
# The spinner's budget is far longer than the healthy guest needs on a shared CPU, and the
# healthy guest must end first: that it passes at all after the spinner's budget would not
# show preemption (the budget's end is a deadline of its own).
starve() { # NAME SPINNER EMU-OPTIONS...
  local name=$1 spin=$2; shift 2
  case_run "$name" "$@" --smp 1 --timeout 300 \
    --module "$S/$spin.elf name=$spin time=10 expect=timeout" \
    --module "$G/healthy.elf name=healthy" \
    --expect guests_passed=1 --expect guests_timedout=1 --expect guests_failed=0 \
    --expect-log "guest $spin: ended=timeout .* expected-timeout PASS"
  local order
  order=$(tr -d '\r' <"build/harness/$name/serial.txt" |
    sed -nE 's/^guest ([a-z-]+): ended \(([a-z]+)\) at [0-9]+ ms$/\1:\2/p' | tr '\n' ' ')
  if [ "$order" = "healthy:result $spin:timeout " ]; then
    echo "PASS $name-order: the healthy guest ended while $spin still spun"
    suite_passed=$((suite_passed + 1))
  else
    echo "FAIL $name-order: guests ended in the order '$order'"
    suite_failed=$((suite_failed + 1)); suite_failures+=("$name-order")
  fi
}
starve qemu-starve-cli spin-cli --cpu max
starve qemu-starve-sti spin-sti --cpu max
starve bochs-vmx-starve-cli spin-cli --emu bochs --cpu corei7_haswell_4770
starve bochs-vmx-starve-sti spin-sti --emu bochs --cpu corei7_haswell_4770
# Bochs SVM only with IF=1: its VMRUN loads the guest's RFLAGS before it marks the CPU as in
# the guest (bochs/cpu/svm.cc: setEFlags in SvmEnterLoadCheckGuestState, in_svm_guest = true
# after it), so a guest entered with IF=0 gets physical interrupts masked as if V_INTR_MASKING
# were off, until it changes IF itself. Hardware and QEMU gate them by the host's IF (the
# IF=0 case runs on QEMU SVM above); a spinner that executes CLI after entry is preempted
# on Bochs SVM too.
starve bochs-svm-starve-sti spin-sti --emu bochs --cpu ryzen

# A guest that never ends, with no expectation: the run ends at its budget, fails, names it.
case_must_fail qemu-never-ends "guest spin-cli: ended=timeout" "guests_failed=1" \
  "result=fail" -- --cpu max --smp 1 --timeout 120 \
  --module "$S/spin-cli.elf name=spin-cli time=2" --module "$G/healthy.elf name=healthy"
# The same through Umbra's global timeout= (no time= on the module line).
case_must_fail qemu-global-timeout "guest spin-sti: ended=timeout" "guests_failed=1" \
  "result=fail" -- --cpu max --smp 2 --timeout 120 --cmdline "timeout=3" \
  --module "$S/spin-sti.elf name=spin-sti cpu=1" --module "$G/healthy.elf name=healthy cpu=0"
# Typed input reaches the guest with the console focus (the first), by interrupt; Ctrl-A n
# moves the focus, and the rest goes to the next guest, which sleeps on another CPU meanwhile.
mkdir -p build/harness
printf 'abc\001nxyz' > build/harness/console-input.txt
case_run qemu-console-input --cpu max --smp 2 --timeout 120 \
  --input build/harness/console-input.txt --cmdline "timeout=60" \
  --module "$S/input.elf name=in1 cpu=0" --module "$S/input.elf name=in2 cpu=1" \
  --expect guests_passed=2 --expect-log "^\[in1\] got: abc$" --expect-log "^\[in2\] got: xyz$" \
  --expect-log "umbra: console input goes to in2"
# console= gives the focus to another guest first.
printf 'xyz\001nabc' > build/harness/console-focus.txt
case_run qemu-console-focus --cpu max --smp 1 --timeout 120 \
  --input build/harness/console-focus.txt --cmdline "timeout=60 console=in2" \
  --module "$S/input.elf name=in1" --module "$S/input.elf name=in2" \
  --expect guests_passed=2 --expect-log "^\[in2\] got: xyz$" --expect-log "^\[in1\] got: abc$"
# Typed ahead: the bytes wait in the guest's input queue while it boots and survive its FIFO
# reset (its UART's receiver took only one byte at a time and lost it to the reset before).
printf 'xyz' > build/harness/console-typeahead.txt
case_run qemu-console-typeahead --cpu max --smp 1 --timeout 120 \
  --input build/harness/console-typeahead.txt --cmdline "timeout=60" \
  --module "$S/input-reset.elf name=reset" \
  --expect guests_passed=1 --expect-log "^\[reset\] got: xyz$"

# Bad values of the new options are refused like any other.
case_run qemu-bad-time --cpu max --smp 1 \
  --module "$S/spin-cli.elf name=badtime time=0" --module "$G/healthy.elf name=healthy" \
  --expect guests_passed=1 --expect guests_rejected=1 \
  --expect-log "guest badtime: unknown or invalid option 'time=0'"
case_run qemu-bad-timeout --cpu max --smp 1 --cmdline "timeout=never" \
  --module "$G/healthy.elf name=healthy" --expect guests_passed=1 \
  --expect-log "unknown or invalid option 'timeout=never'"
# weight= takes 1-65535: 0, one past the top and a word are refused, the guest alone.
case_run qemu-bad-weight --cpu max --smp 1 \
  --module "$S/spin-cli.elf name=w0 weight=0" --module "$S/spin-cli.elf name=wbig weight=65536" \
  --module "$S/spin-cli.elf name=wword weight=half" --module "$G/healthy.elf name=healthy weight=65535" \
  --expect guests_passed=1 --expect guests_rejected=3 \
  --expect-log "guest w0: unknown or invalid option 'weight=0'" \
  --expect-log "guest wbig: unknown or invalid option 'weight=65536'" \
  --expect-log "guest wword: unknown or invalid option 'weight=half'" \
  --expect-log "guest healthy: cpu: time_ms=[0-9]+ weight=65535 waited_ms=[0-9]+$"

# Guests are allocated as modules are parsed, as many as memory holds (vmm/vm.c): 32 small ones
# share 4 CPUs and all pass; a 33rd asks for more vCPUs than a guest has APIC IDs for and is
# refused alone, saying which limit.
many=()
for i in $(seq 0 31); do many+=(--module "$G/healthy.elf name=h$i mem=4"); done
case_run qemu-guests32 --cpu max --smp 4 --timeout 300 "${many[@]}" \
  --module "$G/healthy.elf name=wide vcpus=16" \
  --expect guests=32 --expect guests_passed=32 --expect guests_failed=0 --expect guests_rejected=1 \
  --expect-log "^guests: each takes [0-9]+ KiB of state, [0-9]+ bytes per vCPU and 16 per 4 KiB of its RAM" \
  --expect-log "^guest h31: 4 MiB, entry 0x[0-9a-f]+, cpu 3, vcpus 1" \
  --expect-log "^guest wide: vcpus=16: at most 15 \(APIC IDs 0-14: the I/O APIC is 15\)$"
# The same 32 on a machine with RAM for some of them: the first ones made pass, the rest are
# refused, each with the limit it hit (its RAM), and the run passes. How many fit depends on
# Umbra's own size, so the check is that the counts add up and the split is in module order.
case_run qemu-guests32-lowmem --cpu max --smp 4 --mem 64 --timeout 300 "${many[@]}" \
  --expect guests_failed=0 \
  --expect-log "^guest h0: 4 MiB, entry" \
  --expect-log "^guest h31: no room for 4 MiB of guest memory \([0-9]+ MiB free, but the first 4 MiB must be one run and the rest in at most 7 runs\)$"
lowmem_split() {
  local log=build/harness/qemu-guests32-lowmem/serial.txt ok=1 made refused summary
  summary=$(tr -d '\r' <"$log" | grep -m1 "UMBRA SUMMARY")
  made=$(sed -nE 's/.* guests=([0-9]+) .*/\1/p' <<<"$summary")
  refused=$(sed -nE 's/.* guests_rejected=([0-9]+) .*/\1/p' <<<"$summary")
  local passed_names refused_names want_passed="" want_refused=""
  passed_names=$(tr -d '\r' <"$log" | sed -nE 's/^guest (h[0-9]+): ended=result .* PASS.*/\1/p' | sort -V | tr '\n' ' ')
  refused_names=$(tr -d '\r' <"$log" | sed -nE 's/^guest (h[0-9]+): (no room for 4 MiB of guest memory|mem=4 MiB but only [0-9]+ MiB are free|no memory for (its MMU|its [0-9]+ vCPUs)).*/\1/p' | tr '\n' ' ')
  for ((i = 0; i < ${made:-0}; i++)); do want_passed+="h$i "; done
  for ((i = ${made:-0}; i < 32; i++)); do want_refused+="h$i "; done
  [ -n "$made" ] && [ "$made" -ge 1 ] && [ "$made" -lt 32 ] && [ "$((made + refused))" = 32 ] || ok=0
  [ "$passed_names" = "$want_passed" ] && [ "$refused_names" = "$want_refused" ] || ok=0
  if [ $ok = 1 ]; then
    echo "PASS qemu-guests32-lowmem-split: $made passed, $refused refused for memory, in module order"
    suite_passed=$((suite_passed + 1))
  else
    echo "FAIL qemu-guests32-lowmem-split: made=$made refused=$refused passed='$passed_names' refused='$refused_names'"
    suite_failed=$((suite_failed + 1)); suite_failures+=(qemu-guests32-lowmem-split)
  fi
}
lowmem_split

suite_end sched
