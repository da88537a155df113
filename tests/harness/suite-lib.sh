#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Shared by the emulator suites: runs cases through run-case.sh and prints the suite's totals.
harness_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$harness_dir/machine.sh"
# One accelerator for the whole suite, said once (README: "KVM or TCG").
if [ -z "${UMBRA_ACCEL:-}" ]; then
  machine_accel || { echo "harness: $UMBRA_ACCEL_WHY"; exit 2; }
  export UMBRA_ACCEL UMBRA_ACCEL_WHY UMBRA_HOST_VIRT
fi
echo "harness: QEMU accelerator $UMBRA_ACCEL ($UMBRA_ACCEL_WHY)"
suite_passed=0
suite_failed=0
suite_failures=()

# case_count NAME STATUS: counts a case run elsewhere (0: passed).
case_count() {
  if [ "$2" -eq 0 ]; then
    suite_passed=$((suite_passed + 1))
  else
    suite_failed=$((suite_failed + 1)); suite_failures+=("$1")
  fi
}

# case NAME [run-case options]: one emulator boot, counted.
case_run() {
  local name=$1; shift
  "$harness_dir/run-case.sh" "$@" "$name"
  case_count "$name" $?
}

# case_must_fail NAME REGEX... [-- run-case options]: the harness itself must report this run as
# FAIL, exit non-zero, and print a log matching every REGEX (proves the harness can fail).
case_must_fail() {
  local name=$1; shift
  local regexes=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do regexes+=("$1"); shift; done
  shift
  local out rc ok=1
  out=$("$harness_dir/run-case.sh" "$@" "$name-inner"); rc=$?
  [ $rc -ne 0 ] || ok=0
  grep -q "^FAIL $name-inner" <<<"$out" || ok=0
  for r in "${regexes[@]}"; do grep -qE "$r" <<<"$out" || ok=0; done
  if [ $ok = 1 ]; then
    echo "PASS $name (the harness reported FAIL with the expected log)"
    suite_passed=$((suite_passed + 1))
  else
    echo "FAIL $name: the harness did not report the failure as expected (exit $rc):"
    echo "$out"
    suite_failed=$((suite_failed + 1)); suite_failures+=("$name")
  fi
}

suite_end() {
  [ ${#suite_failures[@]} -eq 0 ] || echo "failed cases: ${suite_failures[*]}"
  echo "$1: $suite_passed passed, $suite_failed failed"
  [ "$suite_failed" -eq 0 ]
}
