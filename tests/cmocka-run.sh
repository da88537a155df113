#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs cmocka test programs in TAP mode and prints "<suite>: N passed, M failed".
set -u
suite=$1; shift
p=0; f=0
for bin in "$@"; do
  out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$bin" 2>&1); rc=$?
  echo "$out"
  np=$(grep -cE '^ok ' <<<"$out"); nf=$(grep -cE '^not ok ' <<<"$out")
  if [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then nf=1; echo "$bin: exit $rc"; fi
  p=$((p + np)); f=$((f + nf))
done
echo "$suite: $p passed, $f failed"
[ "$f" -eq 0 ]
