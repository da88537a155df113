#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-kvm: Umbra on KVM's nested SVM. L0 is QEMU TCG (-cpu max) booting Debian's kernel, whose
# /init (tests/kvm/init) loads kvm_amd nested=1 with npt=0 or npt=1 and runs an Umbra ISO in QEMU
# under -accel kvm -cpu host (L2); this script reads L2's serial log and KVM's trace back from L1's
# serial port. A case passes when Umbra's summary says so and KVM refused no nested entry.
# cases.sh KVM_OUT LINUX_OUT
set -u
out=${1:?usage: cases.sh KVM_OUT LINUX_OUT} linux=${2:?usage: cases.sh KVM_OUT LINUX_OUT}
root=$(cd "$(dirname "$0")/../.." && pwd)
passed=0 failed=0 failures=()

# kvm_case NAME NPT ISO L2_CPUS L2_MEM_MB TIMEOUT [EXPECT]...: each EXPECT is a key=value the
# summary must carry, or /REGEX/ for a line L2's serial log must have.
# The timeout is a safety net for a loaded 2-core machine, not a measurement.
# KVM_ONLY=REGEX (make check-kvm KVM_ONLY=linux-npt1) runs only the cases whose name matches.
kvm_case() {
  local name=$1 npt=$2 iso=$3 smp=$4 mem=$5 limit=$6; shift 6
  grep -qE -- "${KVM_ONLY:-.}" <<<"$name" || return 0
  local work=$root/build/harness/$name why="" start ms rc l2 summary nsum refused counts
  rm -rf "$work"; mkdir -p "$work"
  local log=$work/serial.txt
  start=$(date +%s%N)
  timeout "$limit" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 1G -kernel "$linux/vmlinuz" \
    -initrd "$out/initrd.gz" -append "console=ttyS0 quiet npt=$npt l2smp=$smp l2mem=$mem" \
    -drive "file=$iso,if=virtio,format=raw,readonly=on" -display none -vga none -nic none \
    -serial "file:$log" -monitor none -no-reboot </dev/null >"$work/emu.txt" 2>&1
  rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  tr -d '\r' < "$log" > "$work/l1.txt"
  l2=$(sed -n 's/^L2| //p' "$work/l1.txt")
  printf '%s\n' "$l2" > "$work/l2.txt"
  summary=$(grep -a '^UMBRA SUMMARY:' <<<"$l2" | tail -n 1)
  nsum=$(grep -ac '^UMBRA SUMMARY:' <<<"$l2")
  refused=$(grep -a '^KVMBED vmenter_failed: ' "$work/l1.txt" | head -n 1 | sed 's/^KVMBED vmenter_failed: *//')
  counts=$(grep -a '^KVMBED counts ' "$work/l1.txt" | sed 's/^KVMBED counts //')
  [ "$rc" = 0 ] || why="L0 QEMU exit $rc$([ "$rc" = 124 ] && echo " (timeout ${limit}s)")"
  [ -z "$why" ] && [ -n "$refused" ] && why="KVM refused a nested VMRUN: $refused"
  [ -z "$why" ] && grep -aq '^KVMBED error: ' "$work/l1.txt" &&
    why="L1: $(grep -a '^KVMBED error: ' "$work/l1.txt" | head -n 1)"
  [ -z "$why" ] && ! grep -aq '^KVMBED done' "$work/l1.txt" && why="L1's /init did not finish"
  [ -z "$why" ] && ! grep -aq '^KVMBED L2 exit=33$' "$work/l1.txt" &&
    why="L2 QEMU: $(grep -a '^KVMBED L2 exit=' "$work/l1.txt" | sed 's/^KVMBED //') (33 is pass)"
  [ -z "$why" ] && [ "$nsum" != 1 ] && why="expected exactly one summary line, got $nsum"
  [ -z "$why" ] && ! grep -q 'result=pass' <<<"$summary" && why="summary does not say result=pass"
  for e in "$@"; do
    [ -n "$why" ] && break
    case $e in
      /*/) e=${e#/}; e=${e%/}; grep -aqE -- "$e" <<<"$l2" || why="L2's serial log lacks /$e/";;
      *) grep -qE "(^| )$e( |$)" <<<"$summary" || why="summary lacks $e";;
    esac
  done
  # KVM's exits per exit of Umbra's guests (both counted from Umbra's first line on): all of
  # them; those taken while L1 itself ran (not while its guests did, which KVM reflects to it);
  # and its world switch's (SVM exit codes 0x80 VMRUN, 0x82 VMLOAD, 0x83 VMSAVE).
  local l1=$(sed -n 's/.*l1_exits=\([0-9]*\).*/\1/p' <<<"$counts")
  local nested=$(sed -n 's/.*l1_nested_exits=\([0-9]*\).*/\1/p' <<<"$counts")
  local ue=$(sed -n 's/.* exits=\([0-9]*\).*/\1/p' <<<"$summary")
  local switch=$(awk '$1 == "KVMBED" && $2 == "reason" && ($3 == 128 || $3 == 130 || $3 == 131) { n += $4 }
    END { print n + 0 }' "$work/l1.txt")
  per() { awk -v a="${1:-0}" -v b="${ue:-0}" 'BEGIN { if (b) printf "%.2f", a / b; else print "-" }'; }
  local ratio=$(per "$l1") own=$(per $(( ${l1:-0} - ${nested:-0} ))) sw=$(per "$switch")
  if [ -z "$why" ]; then
    echo "PASS $name ($ms ms, kvm_amd npt=$npt) $counts umbra_exits=$ue" \
      "l1_exits_per_umbra_exit=$ratio own=$own world_switch=$sw"
    echo "  $summary"
    passed=$((passed + 1))
  else
    echo "FAIL $name: $why ($ms ms, kvm_amd npt=$npt)"
    grep -a '^KVMBED\|^L2| ' "$work/l1.txt" | grep -v '^KVMBED reason '
    failed=$((failed + 1)); failures+=("$name")
  fi
}

# Umbra's demo configuration (boot/grub.cfg: five guests on the four CPUs it names), each guest's
# budget raised from its 240 s to 900 s: the perm guests' shadow-paging work takes minutes here.
dw=$root/build/harness/kvm-demo
mkdir -p "$dw"
sed -E '/^[[:space:]]*multiboot2 /s/ timeout=[0-9]+/ timeout=900/' "$root/boot/grub.cfg" > "$dw/grub.cfg"
mapfile -t demo < <(awk '$1 == "module2" { sub(".*/", "", $2); print $2 }' "$dw/grub.cfg")
if "$root/boot/mkiso.sh" "$dw/demo.iso" "$dw/grub.cfg" "$root/build/umbra.elf" \
     "${demo[@]/#/$root/build/guests/}"; then
  kvm_case kvm-demo-npt0 0 "$dw/demo.iso" 4 256 1800 guests_passed=5 guests_failed=0
  kvm_case kvm-demo-npt1 1 "$dw/demo.iso" 4 256 1800 guests_passed=5 guests_failed=0
else
  echo "FAIL kvm-demo: could not build the ISO"; failed=$((failed + 1)); failures+=(kvm-demo)
fi

# A Linux guest of check-linux (tests/linux/cases.sh), its fork/exec loop shortened.
lw=$root/build/harness/kvm-linux
mkdir -p "$lw"
cat > "$lw/grub.cfg" <<CFG
set timeout=0
set default=0
menuentry "umbra-kvm-linux" {
  multiboot2 /boot/umbra.elf
  module2 /boot/vmlinuz name=linux mem=160 -- console=ttyS0 loops=20 expect_mem=160
  module2 /boot/initrd.gz for=linux
  boot
}
CFG
if "$root/boot/mkiso.sh" "$lw/linux.iso" "$lw/grub.cfg" "$root/build/umbra.elf" \
     "$linux/vmlinuz" "$linux/initrd.gz"; then
  kvm_case kvm-linux-npt0 0 "$lw/linux.iso" 1 256 1500 guests_passed=1 guests_failed=0 \
    '/^\[linux\] linux-test: PASS/'
  kvm_case kvm-linux-npt1 1 "$lw/linux.iso" 1 256 1500 guests_passed=1 guests_failed=0 \
    '/^\[linux\] linux-test: PASS/'
else
  echo "FAIL kvm-linux: could not build the ISO"; failed=$((failed + 1)); failures+=(kvm-linux)
fi

[ ${#failures[@]} -eq 0 ] || echo "failed cases: ${failures[*]}"
echo "kvm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
