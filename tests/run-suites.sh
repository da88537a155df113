#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs the suite targets given, JOBS at a time, and sums their "<suite>: N passed, M failed" lines.
# Suites are independent emulator and host runs, so they run side by side (JOBS defaults to the
# number of cores); everything any of them needs is built first, once, so two suites never build
# the same file at the same time. Each suite's output is printed whole when it ends, with its
# duration, in the order the suites end. JOBS=1 runs them one after the other as before.
set -u
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run-suites: JOBS must be a positive number"; exit 2; }
suites=("$@")
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT

# The union of the suites' prerequisites, read from make's own database.
prereqs=$(make -pq MAKE=true "${suites[@]}" 2>/dev/null |
          awk -v want=" ${suites[*]} " '
            /^# Not a target/ { skip = 1; next }
            /^[a-z0-9-]+:/ { t = $1; sub(/:$/, "", t)
                             # "target: VAR := value" is a target-specific variable, not a
                             # prerequisite list: its words would reach make as an assignment.
                             if ($3 ~ /^([:!?+]|::|:::)?=$/) next
                             if (!skip && index(want, " " t " ")) { $1 = ""; print } }
            { skip = 0 }' | tr ' ' '\n' | sort -u)
echo "=== building what the suites need (make -j$jobs)"
# shellcheck disable=SC2086
# A failed build is a failure of its own: the suites would otherwise each rebuild the shared
# files at the same time, two makes writing one object, and fail far from the cause.
build_failed=0
make --no-print-directory -j"$jobs" $prereqs ||
  { build_failed=1; echo "run-suites: the build failed; each suite reports it"; }

# run_one SUITE: one suite into its log, with its exit status and seconds beside it.
run_one() {
  local s=$1 t0=$SECONDS
  make --no-print-directory "$s" >"$dir/$s.log" 2>&1
  echo $? >"$dir/$s.rc.tmp"
  echo $((SECONDS - t0)) >"$dir/$s.time"
  mv "$dir/$s.rc.tmp" "$dir/$s.rc"
}

total_p=0; total_f=0; bad=()
# report SUITE: prints a finished suite's output and adds its result line to the totals.
report() {
  local s=$1 rc line p f
  rc=$(cat "$dir/$s.rc")
  echo "=== $s ($(cat "$dir/$s.time") s)"
  cat "$dir/$s.log"
  line=$(grep -E '^[a-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$dir/$s.log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "$s: no result line (exit $rc): counted as 1 failure"
    total_f=$((total_f + 1)); bad+=("$s")
    return
  fi
  p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
  f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  total_p=$((total_p + p)); total_f=$((total_f + f))
  [ "$f" -eq 0 ] || bad+=("$s")
}

declare -A done_=()
# report_finished: reports every suite that has ended and was not reported yet.
report_finished() {
  local s
  for s in "${suites[@]}"; do
    if [ -z "${done_[$s]:-}" ] && [ -f "$dir/$s.rc" ]; then
      report "$s"; done_[$s]=1
    fi
  done
}

running=0
for s in "${suites[@]}"; do
  while [ "$running" -ge "$jobs" ]; do
    wait -n; running=$((running - 1)); report_finished
  done
  run_one "$s" &
  running=$((running + 1))
done
wait
report_finished

if [ "$build_failed" -ne 0 ]; then total_f=$((total_f + 1)); bad+=("build"); fi
[ ${#bad[@]} -eq 0 ] || echo "failing suites: ${bad[*]}"
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
