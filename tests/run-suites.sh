#!/usr/bin/env bash
# Runs each suite target given and sums their "<suite>: N passed, M failed" lines into one total.
set -u
cd "$(dirname "$0")/.."
total_p=0; total_f=0; bad=()
for s in "$@"; do
  log=$(mktemp)
  echo "=== $s"
  make --no-print-directory "$s" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  line=$(grep -E '^[a-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "$s: no result line (exit $rc): counted as 1 failure"
    total_f=$((total_f + 1)); bad+=("$s")
  else
    p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
    f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_p=$((total_p + p)); total_f=$((total_f + f))
    [ "$f" -eq 0 ] || bad+=("$s")
  fi
  rm -f "$log"
done
[ ${#bad[@]} -eq 0 ] || echo "failing suites: ${bad[*]}"
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
