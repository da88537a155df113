#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
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
# The boot profile's phases; the decompressor's identity map is filled a table at a time
# (large-page prefetch), not one exit per 4 KiB piece: 20,439 exits without it, about 500 with.
# Linux takes KVM's PV EOI (vmm/pv_eoi.c): interrupts EOIed through its flag are counted.
case_run linux-shadow --cpu max --timeout 600 "${one[@]}" "${pass[@]}" \
  --expect-log "guest linux: boot phase=low ms=[0-9]+ exits=[0-9]{1,4} " \
  --expect-log "guest linux: boot phase=init .* hot=" --expect-log "guest linux: boot user_mode_at_ms=" \
  --expect-log "^guest linux: pv-eoi: offered=[1-9][0-9]* taken=[1-9][0-9]*$"
# PVH: the unpacked vmlinux entered at its XEN_ELFNOTE_PHYS32_ENTRY with an hvm_start_info
# (no decompressor); the module is 66 MB, hence the bigger machine.
mapfile -t pvh < <(linux_modules linux 160 200 | sed 's|/vmlinuz |/vmlinux |')
case_run linux-pvh --cpu max --mem 384 --timeout 600 "${pvh[@]}" "${pass[@]}" \
  --expect-log "\\[linux\\] .*RAMDISK: \\[mem 0x0+9[0-9a-f]{6}-0x0+9ffffff\\]"
case_run linux-nocache --cpu max --timeout 600 --cmdline mmu=nocache "${one[@]}" "${pass[@]}"
case_run linux-tdp --cpu max --timeout 600 --cmdline mmu=tdp "${one[@]}" "${pass[@]}" \
  --expect-log "guest linux: tdp: faults_filled=[1-9]"

# A 12 GiB machine and a guest with 6 GiB on two vCPUs: 3 GiB below the PCI hole, 3 GiB from
# 4 GiB up (e820, CMOS), all from host memory above 4 GiB (the allocator places large runs from
# the top). Linux sees it (MemTotal) and writes and verifies 5 GiB of anonymous memory, pages
# above 4 GiB among them (their frames, from /proc/self/pagemap), under the cached shadow MMU
# and on nested paging; audit=1 checks every shadow page of the same machine on a shorter run
# (the one Linux audit: two vCPUs and tables above 4 GiB are where it found a missed store).
for mmu in shadow tdp audit; do
  opt="mmu=$mmu" mib=5120; [ $mmu = audit ] && opt="audit=1" mib=256
  case_run linux-mem6g-$mmu --cpu max --smp 2 --mem 12288 --timeout 900 --cmdline "log=debug $opt" \
    --module "$L/vmlinuz name=linux mem=6G vcpus=2 -- console=ttyS0 loops=10 expect_mem=6144 expect_cpus=2 memfill=$mib" \
    --module "$L/initrd.gz for=linux" "${pass[@]}" \
    --expect-log "^guest linux: 6144 MiB, " --expect-log "^guest linux: RAM at host 0x[23][0-9a-f]{8}$" \
    --expect-log "^guest linux: RAM above 4 GiB: 3072 MiB at 0x100000000-0x1bfffffff, from [1-7] host runs$" \
    --expect-log "\] memtest: $mib MiB, 0 bad words, [1-9][0-9]* of [0-9]+ pages above 4 GiB, 0 absent, top frame 0x0+1[0-9a-b][0-9a-f]{4}" \
    --expect-log "linux-test: ok memtest" $([ $mmu = audit ] && echo --expect-log audit_errors=0)
done

# Command lines up to the kernel's own limit (its setup header's cmdline_size, 2047 bytes for
# Debian's): one of 2047 bytes reaches init whole (its length and last word checked there,
# tests/linux/init); one past the limit refuses that guest alone, with both lengths, while the
# other runs.
long_line() { # LENGTH: the kernel's line, LENGTH bytes, its last word cmdline_end=LENGTH
  local head="console=ttyS0 loops=20 expect_mem=160 umbra_test.pad=" tail=" cmdline_end=$1"
  printf '%s%s%s' "$head" "$(head -c $(($1 - ${#head} - ${#tail})) /dev/zero | tr '\0' x)" "$tail"
}
case_run linux-cmdline2047 --cpu max --timeout 600 \
  --module "$L/vmlinuz name=linux mem=160 -- $(long_line 2047)" --module "$L/initrd.gz for=linux" \
  "${pass[@]}" --expect-log "^\[linux\] linux-test: command line of 2047 bytes, last word cmdline_end=2047" \
  --expect-log "^\[linux\] linux-test: ok cmdline-whole"
case_run linux-cmdline-toolong --cpu max --timeout 300 \
  --module "$L/vmlinuz name=long mem=160 -- $(long_line 2048)" --module "$G/healthy.elf name=healthy" \
  --expect guests=1 --expect guests_passed=1 --expect guests_rejected=1 \
  --expect-log "^guest long: command line of 2048 bytes, but this kernel takes at most 2047 \(its cmdline_size\)$"

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

# One Linux guest with two vCPUs on two CPUs: its APs start by INIT-SIPI-SIPI through the
# real-mode trampoline, and the fork/exec loop runs on both CPUs at once (shared shadow MMU,
# Linux's own TLB-shootdown IPIs, remote flushes).
mapfile -t smp < <(linux_modules linux 160 100 | sed 's|^\(.*name=linux\) |\1 vcpus=2 |; s|expect_mem=160|expect_mem=160 expect_cpus=2|')
case_run linux-smp --cpu max --smp 2 --timeout 900 "${smp[@]}" "${pass[@]}" \
  --expect-log "linux-test: ok fork-exec-cpu1" --expect-log "smp: vcpus=2 ipis=[1-9]"

# Reboots (vmm/reset.c): `reboot -f` restarts the kernel, then a panic with panic=1 does, then
# it powers off (tests/linux/init: the boot count in CMOS RAM). Linux resets through the FADT's
# reset register first (port 0xCF9), so both restarts are counted there. Two vCPUs on two CPUs:
# each reset stops both, and every boot brings up both CPUs again.
mapfile -t rb < <(linux_modules linux 160 20 | sed 's|^\(.*name=linux\) |\1 vcpus=2 |; s|expect_mem=160|expect_mem=160 reboots panic=1|')
case_run linux-reboot --cpu max --smp 2 --timeout 900 "${rb[@]}" --expect guests_passed=1 \
  --expect guests_failed=0 --expect-log "guest linux: ended=poweroff" \
  --expect-log "guest linux: reset: restarts=2 8042=0 cf9=2 triple-fault=0" \
  --expect-log "^\[linux\] linux-test: reboot -f" --expect-log "^\[linux\] linux-test: panic" \
  --expect-log "^\[linux\] linux-test: boot 2, 2 CPU\(s\)" \
  --expect-log "^\[linux\] linux-test: boot 3, 2 CPU\(s\)"

# make run-linux's shell as its user has it: term=raw, the guest's bytes on an 80x24 terminal
# (tmux) and keys typed once the screen asks for them: ls, a sum, vi writes a file, cat shows
# it, top draws its frame, and Umbra's summary ends the screen (tests/linux/fullscreen.sh).
case_run linux-interactive --cpu max --timeout 600 --cmdline "timeout=300 term=raw console=linux" \
  --module "$L/vmlinuz name=linux mem=160 -- console=ttyS0 interactive" \
  --module "$L/initrd.gz for=linux" --terminal tests/linux/fullscreen.sh \
  --expect guests_passed=1 --expect guests_failed=0 --expect-log "guest linux: ended=poweroff"

# Two Linux guests share a region (shm=): each finds it as an ivshmem PCI function through the
# guest's ACPI PCI root, binds it to uio_pci_generic (INTx on GSI 11) and tests/linux/ivshm.c
# moves 64 MiB from one to the other in 256 KiB chunks, every word checked, each side waiting in
# read() on /dev/uio0 for the other's doorbell.
ivshm() { # NAME CPU ROLE
  echo "--module"; echo "$L/vmlinuz name=$1 cpu=$2 mem=160 shm=ring -- console=ttyS0 ivshm=$3:64"
  echo "--module"; echo "$L/initrd.gz for=$1"
}
mapfile -t tx < <(ivshm tx 0 send)
mapfile -t rx < <(ivshm rx 1 recv)
case_run linux-ivshmem --cpu max --smp 2 --mem 512 --cmdline "shm=ring:1M timeout=300" \
  --timeout 600 "${tx[@]}" "${rx[@]}" --expect guests_passed=2 \
  --expect-log "^\\[tx\\] linux-test: ivshmem function 0000:00:01.0, irq 11" \
  --expect-log "^\\[tx\\] ivshm: sent, checksum" \
  --expect-log "^\\[rx\\] ivshm: received and checked, checksum" \
  --expect-log "^\\[rx\\] +11: +[1-9][0-9]* +IO-APIC +11-fasteoi +uio_pci_generic"
# The same sender, and the shm test guest as the receiver (SHM_BIND, SHM_RING; the Linux side
# is the ivshmem function): the two ends of the region need not run the same kind of kernel.
case_run linux-ivshmem-pv --cpu max --smp 2 --mem 384 --cmdline "shm=ring:1M timeout=300" \
  --timeout 600 "${tx[@]}" --module "$G/shm32.elf name=pv cpu=1 shm=ring -- role=linuxrx n=64" \
  --expect guests_passed=2 --expect-log "^\\[tx\\] ivshm: sent, checksum" \
  --expect-log "^\\[pv\\] shm32: received 64 MiB from the Linux peer, every word checked"

# A Linux guest owns an e1000e (pci=) whose other side is QEMU's user-mode network: Debian's
# e1000e driver probes it, brings the link up with MSI-X (three vectors, the queues' with
# interrupts counted), takes a DHCP lease from QEMU and reaches its gateway 10.0.2.2 by ARP
# and ping, with packets counted both ways. Under VT-d with shadow paging, under AMD-Vi on
# nested paging.
nic_case() { # IOMMU
  printf '%s\n' --cpu max --timeout 600 --qemu-arg -device --qemu-arg "$1" \
    --qemu-arg -netdev --qemu-arg user,id=n0 --qemu-arg -device --qemu-arg e1000e,netdev=n0,addr=5.0 \
    --module "$L/vmlinuz name=nic mem=160 pci=00:05.0 -- console=ttyS0 nic=e1000e" \
    --module "$L/initrd.gz for=nic" --expect guests_passed=1 --expect guests_failed=0 \
    --expect-log "^\\[nic\\] linux-test: eth0 is 0000:00:01.0, 3 vectors: msix $" \
    --expect-log "^\\[nic\\] linux-test: dhcp lease 10\\.0\\.2\\.15 from 10\\.0\\.2\\.2$" \
    --expect-log "^\\[nic\\] linux-test: ok nic-ping$" \
    --expect-log "^\\[nic\\] linux-test: ok nic-irq-eth0-rx-0$" \
    --expect-log "^\\[nic\\] linux-test: nic PASS$" \
    --expect-log "^guest nic: msi: delivered=[1-9][0-9]* dropped=0$" \
    --expect-log "^guest nic: msix: 00:01.0 entries=5 bad_accesses=0$"
}
mapfile -t nic_vtd < <(nic_case intel-iommu)
mapfile -t nic_amd < <(nic_case amd-iommu)
# The kernel takes the guest's MCFG: the ECAM window of bus 0, reserved by the DSDT's PNP0C02.
case_run linux-e1000e-vtd "${nic_vtd[@]}" \
  --expect-log "^\\[nic\\] .*PCI: MMCONFIG for domain 0000 \\[bus 00-00\\] at \\[mem 0xfeb00000-0xfebfffff\\] \\(base 0xfeb00000\\)$" \
  --expect-log "^\\[nic\\] .*PCI: MMCONFIG at \\[mem 0xfeb00000-0xfebfffff\\] reserved in ACPI motherboard resources$" \
  --expect-log "^\\[nic\\] linux-test: config space: 0000:00:00.0 4096 bytes, 0 past 256 not zero; 0000:00:01.0 256 bytes$"
case_run linux-e1000e-amd-tdp --cmdline mmu=tdp "${nic_amd[@]}"

# A Linux guest owns a virtio-blk disk (pci=) backed by a raw ext4 image made here without
# mounting (mke2fs -d) with one random file; the guest checks the file, writes another and
# unmounts (tests/linux/init, disk=); after QEMU exits the image is read back with debugfs and
# the written file must match the checksum the guest printed, byte for byte. Under VT-d, shadow
# paging.
disk_case() { # NAME IOMMU run-case options...
  local name=$1 iommu=$2; shift 2
  local dir=$L/disk/$name img=$L/disk/$name.img rc sum want got
  rm -rf "$dir" "$img"; mkdir -p "$dir"
  head -c 1048576 /dev/urandom > "$dir/given"
  sum=$(sha256sum < "$dir/given" | cut -d " " -f 1)
  mke2fs -q -F -t ext4 -d "$dir" "$img" 64M > /dev/null || { case_count "$name" 1; return; }
  "$harness_dir/run-case.sh" --cpu max --timeout 600 --qemu-arg -device --qemu-arg "$iommu" \
    --qemu-arg -drive --qemu-arg "file=$img,if=none,id=d0,format=raw" \
    --qemu-arg -device --qemu-arg virtio-blk-pci,drive=d0,addr=6.0,disable-legacy=on,iommu_platform=on \
    --module "$L/vmlinuz name=disk mem=160 pci=00:06.0 -- console=ttyS0 disk=$sum" \
    --module "$L/initrd.gz for=disk" --expect guests_passed=1 --expect guests_failed=0 \
    --expect-log "^\\[disk\\] linux-test: vda is 0000:00:01.0, [2-9] vectors: msix $" \
    --expect-log "^\\[disk\\] linux-test: ok disk-read$" \
    --expect-log "^\\[disk\\] linux-test: disk PASS$" \
    --expect-log "^guest disk: msi: delivered=[1-9][0-9]* dropped=0$" "$@" "$name"
  rc=$?
  want=$(sed -n 's/^\[disk\] linux-test: wrote \/written sha256 \([0-9a-f]\{64\}\).*/\1/p' \
         "build/harness/$name/serial.txt")
  got=$(debugfs -R "cat /written" "$img" 2>/dev/null | sha256sum | cut -d " " -f 1)
  if [ $rc = 0 ] && { [ -z "$want" ] || [ "$want" != "$got" ]; }; then
    echo "FAIL $name: /written in the image has sha256 $got, the guest wrote ${want:-nothing}"
    rc=1
  elif [ $rc = 0 ]; then
    echo "$name: the image holds the guest's /written, sha256 $got"
  fi
  case_count "$name" $rc
}
disk_case linux-virtio-blk-vtd intel-iommu

suite_end linux
