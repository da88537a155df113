#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Prints the -plugin argument for exitcount.so: the addresses it needs, read from umbra.elf.
# plugin-args.sh PLUGIN.so UMBRA.elf TRACE-OUT
set -eu
so=$1 elf=$2 trace=$3
sym() { # the address of a symbol, 0x-prefixed; fails when it is gone (a renamed function)
  local a; a=$(nm "$elf" | awk -v s="$1" '$3 == s { print $1; exit }')
  [ -n "$a" ] || { echo "plugin-args: no symbol $1 in $elf" >&2; exit 1; }
  echo "0x$a"
}
# The VMRUN of the SVM world switch and the instruction after it (where #VMEXIT resumes).
start=$(sym svm_world_switch)
vmrun=$(objdump -d "$elf" --start-address="$start" --stop-address=$((start + 256)) |
  awk '$NF == "vmrun" || $(NF) ~ /^vmrun/ { sub(":", "", $1); print "0x" $1; exit }')
[ -n "$vmrun" ] || { echo "plugin-args: no vmrun in svm_world_switch" >&2; exit 1; }
ret=$(printf '0x%x' $((vmrun + 3)))
# Exit kinds by the function an exit runs, first match wins: a PT write also takes the #PF
# path, an emulated MMIO access too, a reflected guest fault went through the MMU's walk.
tags=(hypercall:pv_hypercall ptwrite:mmu_write mmio:board_mmio_read mmio:board_mmio_write
      io:board_pio_in io:board_pio_out inject:vcpu_inject fill:mmu_page_fault cr3:mmu_new_cr3
      invlpg:mmu_invlpg cr:vcpu_cr_access msr:msr_read msr:msr_write cpuid:cpuid_guest
      hostirq:trap_handler)
args="file=$so,vmrun=$vmrun,ret=$ret,text=$(sym __kernel_start)-$(sym __text_end),mark=$(sym hc_stats),record=$(sym trace_record),out=$trace"
for t in "${tags[@]}"; do args+=",tag=${t%%:*}:$(sym "${t#*:}")"; done
echo "$args"
