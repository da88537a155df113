#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-attack: hostile guests, each beside a healthy guest on the same CPU, on QEMU TCG (SVM),
# Bochs Haswell (VMX) and Bochs Ryzen (SVM); every guest also runs natively (qemu -kernel).
# A case passes when Umbra prints its one summary line with result=pass: the healthy guest and
# the attacker passed (the attacker saw what hardware gives), or the attacker ended as it was
# started to expect (expect=timeout for the loops hardware never leaves, expect=stop). Some
# cases also read the serial log (the console class, the stop class).
# The last line is "attack: N passed, M failed". UMBRA_ELF=path tries another Umbra image.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
A=${1:?usage: cases.sh ATTACK_OUT}
G=${GUEST_DIR:-build/guests}
root=$(cd "$(dirname "$0")/../.." && pwd)
elf=${UMBRA_ELF:-$root/build/umbra.elf}
H="$G/healthy.elf name=healthy"
start_s=$(date +%s)
VMX=(--emu bochs --cpu corei7_haswell_4770 --timeout 45)
SVM=(--emu bochs --cpu ryzen --timeout 45)

# A verdict computed here, counted like a case.
verdict() { # NAME OK(0/1) WHY
  if [ "$2" = 1 ]; then
    echo "PASS $1"; suite_passed=$((suite_passed + 1))
  else
    echo "FAIL $1: $3"; suite_failed=$((suite_failed + 1)); suite_failures+=("$1")
  fi
}

# The serial log of a finished case, with each line's own CR (the line ending) removed.
case_log() { sed 's/\r$//' "$root/build/harness/$1/serial.txt" 2>/dev/null; }

# log_count CASE CHECK-NAME COUNT REGEX: exactly COUNT lines of the case's log match.
log_count() {
  local n
  n=$(case_log "$1" | LC_ALL=C grep -acE "$4")
  verdict "$1-$2" "$([ "$n" = "$3" ] && echo 1 || echo 0)" "$n lines match /$4/, expected $3"
}

# ---- natively: every image must pass under qemu -kernel (the stop guest notes and passes) ----
native() { # IMAGE [ARGS [CPUS]]
  local img=$1 args=${2:-} smp=${3:-1} log="$root/build/harness/native-$1/serial.txt" rc
  mkdir -p "$(dirname "$log")"; rm -f "$log"
  timeout 60 qemu-system-x86_64 -accel tcg -machine q35 -cpu max -m 16M -smp "$smp" -kernel "$A/$img.elf" \
    -append "$args" -display none -serial "file:$log" -monitor none -no-reboot \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >/dev/null 2>&1
  rc=$?
  if [ $rc = 33 ] && grep -aq 'RESULT: PASS' "$log"; then
    verdict "native-$img" 1
  else
    verdict "native-$img" 0 "qemu exit $rc"
    tr -d '\r' <"$log" 2>/dev/null | grep -a 'CHECK FAILED\|RESULT\|unexpected' | head -20
  fi
}
for img in dr dbac64 dbac32 insn64 insn32 prefix32 prefix64 pio ps32 pspae ps64 console rawterm stop clock \
    toctou share; do
  native "$img"
done
native delivery "" 2 # its INIT case needs an AP

# ---- the classes under Umbra ----
# run NAME EMU-OPTIONS... -- MODULE...: one boot; every module and the healthy guest must pass.
run() {
  local name=$1; shift
  local opts=() mods=() n=1
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  for m in "$@"; do mods+=(--module "$m"); n=$((n + 1)); done
  case_run "$name" --elf "$elf" "${opts[@]}" "${mods[@]}" --module "$H" \
    --expect guests_failed=0 --expect "guests_passed=$n"
}

# 1. dr: two copies of one image on one CPU keep their own debug registers.
dr() { run "$1-dr" "${@:2}" -- "$A/dr.elf name=dr-a" "$A/dr.elf name=dr-b"; }
# 2. dbac: TF stepping over intercepted instructions, a #DB raised by #DB's delivery, #AC.
#    QEMU 7.2 itself crashes once a guest of a hypervisor arms a breakpoint (its VMRUN and
#    #VMEXIT load DR7 without its watchpoints): no breakpoint there (nobp).
dbac() { local a=${DBAC_ARGS:-}
  run "$1-dbac" "${@:2}" -- "$A/dbac64.elf name=dbac64${a:+ -- $a}" "$A/dbac32.elf name=dbac32${a:+ -- $a}"; }
# 2b. the loops hardware never leaves (#DB on its IST frame, #AC on a misaligned ring-3
#    stack): they run until their budget, the healthy guest beside them passes. Not on QEMU,
#    whose TCG has no #AC and no breakpoint on exception frames.
loops() {
  case_run "$1-dbac-loops" --elf "$elf" "${@:2}" \
    --module "$A/dbac64.elf name=dbloop time=2 expect=timeout -- loop=db" \
    --module "$A/dbac32.elf name=acloop time=2 expect=timeout -- loop=ac" --module "$H" \
    --expect guests_failed=0 --expect guests_passed=1 --expect guests_timedout=2
}
# 3. insn: intercepted and hidden instructions fault as without virtualization.
insn() { run "$1-insn" "${@:2}" -- "$A/insn64.elf name=insn64" "$A/insn32.elf name=insn32"; }
# 3b. On Bochs a third copy makes a hardware task switch, which Umbra refuses: that guest
#    alone ends, with the exit named (VMX basic reason 9, SVM exit code 0x7d). Not on QEMU:
#    7.2's TCG never raises the task-switch intercept (the guest was lost in its new task).
insn_tswitch() {
  case_run "$1-insn" --elf "$elf" "${@:2}" --module "$A/insn64.elf name=insn64" \
    --module "$A/insn32.elf name=insn32" \
    --module "$A/insn32.elf name=tswitch expect=crash -- taskswitch" --module "$H" \
    --expect guests_failed=0 --expect guests_passed=3 --expect guests_crashed=1 \
    --expect-log '^\[tswitch\] (vmx exit 0x9|svm exit 0x7d) refused: hardware task switch' \
    --expect-log '^guest tswitch: ended=fatal status=0 \(exit refused\)'
}
# 4. prefix: prefixed intercepted instructions resume after their last byte.
prefix() { run "$1-prefix" "${@:2}" -- "$A/prefix32.elf name=prefix32" "$A/prefix64.elf name=prefix64"; }
# 5. pio: port widths, string I/O and its faults, IOPL at CPL 3.
pio() { run "$1-pio" "${@:2}" -- "$A/pio.elf name=pio"; }
# 5b. clock: the KVM clock and PV EOI MSRs aimed anywhere, TSC_ADJUST, the MSRs Linux reads
#    unguarded; interrupts EOIed through the PV EOI flag (Umbra's report counts them).
clock() { run "$1-clock" "${@:2}" --expect-log '^guest clock: pv-eoi: offered=[1-9][0-9]* taken=[1-9]' \
  -- "$A/clock.elf name=clock"; }
# 6. ps: page-size and reserved bits in the three paging modes.
ps() { run "$1-ps" "${@:2}" -- "$A/ps32.elf name=ps32" "$A/pspae.elf name=pspae" "$A/ps64.elf name=ps64"; }
# 6b. ... on a CPU without 1 GiB pages: PS in a PDPTE is a reserved bit (Umbra's shadow walk).
ps_no1g() { run "$1-ps-no1g" "${@:2}" -- "$A/ps64.elf name=ps64"; }
# 7. console: control bytes and forged lines never reach the log raw or without the prefix.
console() {
  local name=$1-console
  run "$name" "${@:2}" -- "$A/console.elf name=console"
  local ctl tags=1 t want n
  n=$(case_log "$name" | LC_ALL=C grep -a '#atk' | LC_ALL=C grep -avc '^\[console\] ')
  verdict "$name-prefix" "$([ "$n" = 0 ] && echo 1 || echo 0)" \
    "$n lines with the attacker's text do not start with '[console] '"
  ctl=$(case_log "$name" | LC_ALL=C grep -a -e '#atk' -e '^\[console\]' |
    LC_ALL=C grep -acP '[\x00-\x08\x0a-\x1f\x7f-\x9f]')
  verdict "$name-raw-bytes" "$([ "$ctl" = 0 ] && echo 1 || echo 0)" \
    "$ctl of the attacker's lines hold raw bytes below 0x20 (not TAB) or in 0x7f-0x9f"
  for t in 1 2 3 4 5 6 7 8 9; do
    case $t in 3|4|6|7) want=1;; *) want=2;; esac
    n=$(case_log "$name" | LC_ALL=C grep -ao "#atk$t\\b" | wc -l)
    [ "$n" -ge "$want" ] || { tags=0; echo "  #atk$t seen $n times, expected $want"; }
  done
  verdict "$name-complete" "$tags" "some of the attacker's text was lost"
  log_count "$name" one-summary 1 '^UMBRA SUMMARY:'
  log_count "$name" one-report-console 1 '^guest console: ended='
  log_count "$name" one-report-healthy 1 '^guest healthy: ended='
}
# 7b. console_raw: a guest with the terminal raw (term=raw, console=rawterm) turns red on and
#    leaves an OSC sequence open: its bytes reach the line as they are; the healthy guest's
#    lines wait and all arrive, prefixed, once it ends; before Umbra's next line (rawterm's end)
#    come CAN (the sequence cancelled), SGR 0 (the attributes reset) and a line end.
console_raw() {
  local name=$1-console-raw
  case_run "$name" --elf "$elf" "${@:2}" --cmdline "term=raw console=rawterm" \
    --module "$A/rawterm.elf name=rawterm" --module "$H" \
    --expect guests_failed=0 --expect guests_passed=2
  log_count "$name" raw-bytes 1 $'^#raw2 \x1b\\[31mred, then an open OSC: \x1b\\]0;'
  log_count "$name" raw-not-prefixed 0 '^\[rawterm\] #raw'
  log_count "$name" healthy-result 1 '^\[healthy\] RESULT: PASS'
  log_count "$name" settled 1 $'^\x18\x1b\\[0m$'
  local next; next=$(case_log "$name" | LC_ALL=C grep -a -A1 $'^\x18\x1b\\[0m$' | tail -n 1)
  verdict "$name-own-line" "$([[ $next == "guest rawterm: ended ("* || $next == "[healthy] "* ]] &&
    echo 1 || echo 0)" "after the reset came '$next', not one of Umbra's lines on a line of its own"
}
# 8. stop: two stoppers hammer STOP_GUEST at three targets (one spinning, one blocked, one
#    not yet started) on the other CPU; each target ends once, stopped.
stop() {
  local name=$1-stop t
  case_run "$name" --elf "$elf" "${@:2}" --smp 2 \
    --module "$A/stop.elf name=stop-a cpu=0 caps=stats,stop -- first=2 count=3" \
    --module "$A/stop.elf name=stop-b cpu=1 caps=stats,stop -- first=2 count=3" \
    --module "$A/stop.elf name=t-spin cpu=1 expect=stop -- role=spin" \
    --module "$A/stop.elf name=t-block cpu=1 expect=stop -- role=block" \
    --module "$A/stop.elf name=t-yield cpu=1 expect=stop -- role=yield" \
    --module "$H cpu=0" --expect guests_failed=0 --expect guests_passed=3 \
    --expect guests_stopped=3
  for t in t-spin t-block t-yield; do
    log_count "$name" "$t-once" 1 "^guest $t: stopped by guest stop-[ab]$"
    log_count "$name" "$t-report-once" 1 "^guest $t: ended=stopped .* PASS"
  done
}
# 9. toctou: vCPU 1 rewrites PV batch records, or the PTE of an output buffer, while vCPU 0
#    calls (two CPUs): every call applies what it validated or fails; the rounds and their
#    outcomes are in the log. The output-buffer kind runs under nested paging, where the PTE
#    write lands while the call runs (under shadow paging it waits for the guest's lock), and
#    where a torn read of that PTE once sent the output elsewhere. CONSOLE_WRITE, an input
#    buffer, likewise: the calls applied must each have printed the frame's line, nothing else.
toctou() { # NAME GUEST-ARGS EMU-OPTIONS...
  local name=$1 args=$2; shift 2
  run "$name-toctou" "$@" --smp 2 -- "$A/toctou.elf name=toctou vcpus=2 cpus=0,1 caps=stats -- $args"
  case "$args" in *nostats*) return;; esac
  local applied
  applied=$(case_log "$name-toctou" | sed -n 's/^\[toctou\] toctou console-write: [0-9]* rounds, \([0-9]*\) applied.*/\1/p')
  log_count "$name-toctou" console-write-lines "${applied:-none}" '^\[toctou\] toctou-cw good$'; }
# 10. delivery: I/O APIC entries with NMI, ExtINT and INIT delivery, LINT0 in NMI mode (the
#    INIT case stops and restarts vCPU 1).
delivery() {
  run "$1-delivery" "${@:2}" --smp 2 -- "$A/delivery.elf name=delivery vcpus=2 cpus=0,1"; }
# 11. share: a guest of 4 spinning vCPUs (hog) and one of 1 (fair) on one CPU, both until their
#    budget, beside the healthy guest: fair's CPU time, from Umbra's own accounting (the report's
#    "cpu: time_ms="), is within 10% of its share of the two: half with equal weights, a
#    quarter with weight=3 for the hog and 1 for fair. Per-vCPU round robin gave it a fifth.
#    A budget counts the guest's own time only, not the time it stood behind the other: each
#    guest's CPU time is within 10% of its time= (with budgets of wall time, fair got half of
#    its 3 s). The budgets are in the ratio of the shares, so both end together.
# cpu_ms CASE GUEST: the CPU time the report gives the guest.
cpu_ms() { case_log "$1" | sed -nE "s/^guest $2: cpu: time_ms=([0-9]+) .*/\1/p"; }
share() { # NAME WANT-PERMILLE HOG-OPTS FAIR-OPTS EMU-OPTIONS... (OPTS: time=S first)
  local name=$1-share$2 want=$2 hogo=$3 fairo=$4 hog fair got g ms; shift 4
  case_run "$name" --elf "$elf" "$@" --smp 1 \
    --module "$A/share.elf name=hog vcpus=4 expect=timeout $hogo" \
    --module "$A/share.elf name=fair expect=timeout $fairo" --module "$H" \
    --expect guests_failed=0 --expect guests_passed=1 --expect guests_timedout=2
  hog=$(cpu_ms "$name" hog); fair=$(cpu_ms "$name" fair)
  got=$(( ${fair:-0} * 1000 / (${fair:-0} + ${hog:-0} + 1) ))
  echo "  $name: fair ${fair:-?} ms, hog ${hog:-?} ms: $got/1000 of their CPU time to fair"
  verdict "$name-fraction" "$([ "$got" -ge $((want * 9 / 10)) ] && [ "$got" -le $((want * 11 / 10)) ] &&
    echo 1 || echo 0)" "fair had $got/1000 of the CPU time, expected $want/1000 within 10%"
  for g in hog fair; do
    local opts=$hogo; [ $g = fair ] && opts=$fairo
    local budget=$(( $(sed -nE 's/^time=([0-9]+).*/\1/p' <<<"$opts") * 1000 ))
    ms=$(cpu_ms "$name" $g)
    verdict "$name-budget-$g" "$([ "${ms:-0}" -ge $((budget * 9 / 10)) ] &&
      [ "${ms:-0}" -le $((budget * 11 / 10)) ] && echo 1 || echo 0)" \
      "$g ran ${ms:-?} ms of CPU in its budget of $budget ms (its own time), expected within 10%"
  done
}

# QEMU TCG, SVM (-cpu max): every class; no breakpoints (see dbac), no loops.
dr qemu --cpu max
DBAC_ARGS=nobp dbac qemu --cpu max
insn qemu --cpu max
prefix qemu --cpu max
pio qemu --cpu max
clock qemu --cpu max
ps qemu --cpu max
ps_no1g qemu64 --cpu qemu64
console qemu --cpu max
console_raw qemu --cpu max
stop qemu --cpu max
toctou qemu "rounds=10000 nostats" --cpu max
toctou qemu-tdp "rounds=4000 nobatch" --cpu max --cmdline mmu=tdp --timeout 120
delivery qemu --cpu max
share qemu 500 time=3 time=3 --cpu max
share qemu 250 "time=3 weight=3" "time=1 weight=1" --cpu max
# Bochs Haswell, VMX: every class but console (Umbra's own text, the same on every backend).
dr bochs-vmx "${VMX[@]}"
dbac bochs-vmx "${VMX[@]}"
loops bochs-vmx "${VMX[@]}"
insn_tswitch bochs-vmx "${VMX[@]}"
prefix bochs-vmx "${VMX[@]}"
pio bochs-vmx "${VMX[@]}"
clock bochs-vmx "${VMX[@]}"
ps bochs-vmx "${VMX[@]}"
ps_no1g bochs-vmx-lynnfield --emu bochs --cpu corei5_lynnfield_750 --timeout 45
stop bochs-vmx "${VMX[@]}"
toctou bochs-vmx "rounds=300 nostats" "${VMX[@]}"
# Under EPT the PTE flips land while a call walks the table: the case that found the walker's
# byte-wise PTE read (a torn entry, output written over the guest's code, 3-4 calls of 25,000).
toctou bochs-vmx-tdp "rounds=5000 nobatch" "${VMX[@]}" --cmdline mmu=tdp --timeout 150
delivery bochs-vmx "${VMX[@]}"
share bochs-vmx 500 time=3 time=3 "${VMX[@]}"
# Bochs Ryzen, SVM: the classes whose paths are the SVM backend's own (intercepts, exits,
# injection); paging and the console are common code, run above.
dr bochs-svm "${SVM[@]}"
dbac bochs-svm "${SVM[@]}"
loops bochs-svm "${SVM[@]}"
insn_tswitch bochs-svm "${SVM[@]}"
prefix bochs-svm "${SVM[@]}"
pio bochs-svm "${SVM[@]}"
clock bochs-svm "${SVM[@]}"
delivery bochs-svm "${SVM[@]}"

echo "attack: wall time $(($(date +%s) - start_s)) s"
suite_end attack
