#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-qemu: boots Umbra under QEMU (TCG: the SVM path; KVM where the host nests) in every CPU configuration, BIOS and UEFI.
set -u
. "$(dirname "$0")/../harness/suite-lib.sh"
. "$(dirname "$0")/../harness/guest-groups.sh"
fault_elf=${1:?usage: cases.sh FAULT_ELF}

# Under KVM (-cpu host) Umbra finds the host's vendor extension; TCG's -cpu max is SVM.
V=${UMBRA_HOST_VIRT:-svm}
tdp_log=npt=yes; [ "$V" = vmx ] && tdp_log=ept=yes

for n in 1 2 4; do
  case_run "qemu-max-smp$n" --cpu max --smp $n --expect cpus_online=$n --expect virt=$V \
    --expect virt_cpus=$n --expect-log "$tdp_log" --expect-log "^console: COM1, 115200 8N1, FIFOs off$"
done
# The same boots through UEFI (OVMF): the memory map from the EFI tag, the trampoline in a page
# it says is free, the same summary. OVMF prints to the serial port before GRUB does, and
# leaves COM1's FIFOs on (SeaBIOS and GRUB leave them off): Umbra polls once per 16 bytes out.
for n in 1 2 4; do
  case_run "qemu-uefi-smp$n" --firmware uefi --cpu max --smp $n --expect cpus_online=$n \
    --expect virt=$V --expect virt_cpus=$n --expect-log "$tdp_log" \
    --expect-log "^console: COM1, 115200 8N1, FIFOs on$" \
    --expect-log "^memory: AP trampoline at 0x[0-9a-f]+ \(map from UEFI\)"
done
# A 12 GiB machine (QEMU touches memory only as used): RAM above 4 GiB is mapped and managed,
# from either map, and a guest's RAM comes from the top of it, under the shadow MMU (BIOS) and
# nested paging (UEFI).
for fw in bios uefi; do
  mmu=""; [ $fw = uefi ] && mmu="mmu=tdp"
  case_run "qemu-$fw-mem12g" --firmware $fw --cpu max --smp 2 --mem 12288 \
    --cmdline "log=debug $mmu" --module "$G/healthy.elf name=healthy" --expect guests_passed=1 \
    --expect-log "^memory: 122[0-9]{2} MiB usable in the (multiboot2|UEFI) map, 10240 MiB of it above 4 GiB$" \
    --expect-log "^memory: Umbra's map of it: 448 KiB page bitmap, 40 KiB tables above 4 GiB" \
    --expect-log "^guest healthy: RAM at host 0x3[0-7][0-9a-f]{7}$"
done
# A CPU model other than max is TCG's emulation, under KVM too (run-case.sh): SVM.
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
# failed run with the exception dump in the log, then panic()'s report (lib/panic.c calls the
# handler vmm/ registered) and the summary.
case_must_fail qemu-harness-detects-exception "UMBRA EXCEPTION: cpu=0 vector=14 #PF" \
  "cr2=0x0" "^backtrace: 0x" "UMBRA PANIC: cpu=0: unexpected exception" \
  "result=fail reason=panic" -- --elf "$fault_elf" --cpu max --smp 1
# The same under UEFI, where OVMF's messages and escape sequences come first on the same port.
case_must_fail qemu-uefi-harness-detects-exception "UMBRA EXCEPTION: cpu=0 vector=14 #PF" \
  "cr2=0x0" "^backtrace: 0x" "result=fail" -- --elf "$fault_elf" --firmware uefi --cpu max \
  --smp 1

# audit=1's entry check catches a VMCB TCG's VMRUN takes but a strict one refuses: an image
# that leaves TCG's Accessed bits in the shadow PAE PDPTEs (tests/qemu/suite.mk). Without
# audit=1 the guests pass on TCG; with it each ends with the rule's name, alone, and Umbra
# goes on to its summary.
keep_a=build/keep-pdpte-a/umbra.elf
case_run qemu-entry-check-lenient --elf "$keep_a" --cpu max --smp 1 \
  --module "$G/ptwritepae.elf name=ptwritepae" --module "$G/healthy.elf name=healthy" \
  --expect guests_passed=2
case_run qemu-entry-check-caught --elf "$keep_a" --cpu max --smp 1 --cmdline audit=1 --expect-fail \
  --module "$G/ptwritepae.elf name=ptwritepae" --module "$G/healthy.elf name=healthy" \
  --expect guests_failed=2 \
  --expect-log "^\[ptwritepae\] svm entry check: PAE PDPTE reserved bit set" \
  --expect-log "guest healthy: ended=fatal status=0 \(PAE PDPTE reserved bit set\) FAIL"

# The guest suite on SVM, with and without NPT in the CPU model (Umbra uses shadow paging on both).
# On -cpu max the pass without audit=1 runs under UEFI below: that adds OVMF's start-up to CI
# instead of a third run of the suite.
# perm64 on -cpu max (1 GiB pages, SMEP, SMAP: ~365,000 exits) takes 50-75 s of TCG on a loaded
# 2-core machine, past the default 60 s safety net: the groups holding it get 240 s.
GUEST_GROUPS_AUDIT=1 guest_groups qemu-max --cpu max --smp 2 --timeout 240
guest_groups qemu-qemu64 --cpu qemu64 --smp 2
# The guest suite once under UEFI (-cpu max, without audit=1): every group's guests, in two
# boots (a boot takes at most 16 modules) to keep OVMF's start-up, several seconds under TCG,
# to two.
guest_group qemu-uefi-guests1 "paging-off perm32 permpae perm64 ptwrite32 ptwritepae ptwrite64 \
  ctxswitch32 ctxswitchpae ctxswitch64" --firmware uefi --cpu max --smp 2 --mem 512 --timeout 300
guest_group qemu-uefi-guests2 "fork-flood32 fork-floodpae fork-flood64 invlpg-global32 \
  invlpg-globalpae invlpg-global64 crash-triple crash-scribble healthy" --firmware uefi \
  --cpu max --smp 2 --mem 512 --timeout 300
# Four guests on four CPUs at once.
guest_group qemu-smp4-paging "paging-off perm32 permpae perm64" --cpu max --smp 4 --timeout 240
# Nested paging (NPT): the CPU walks the guests' tables, so the permission matrix is native.
guest_group qemu-max-tdp-paging "paging-off perm32 permpae perm64" --cpu max --smp 2 \
  --cmdline mmu=tdp --expect-log "guest perm64: tdp: faults_filled=[1-9]"
# Without NPT in the CPU model mmu=tdp is refused and the guests run on shadow paging.
case_run qemu-qemu64-tdp-refused --cpu qemu64 --smp 1 --cmdline mmu=tdp \
  --module "$G/healthy.elf name=healthy" --expect guests_passed=1 --expect-log "mmu=tdp refused"

# Bad images are refused with a clear message; the good guest still runs.
bad=build/harness/bad-images; mkdir -p $bad
echo "this is not an ELF image" > $bad/text.elf
head -c 200 "$G/healthy.elf" > $bad/truncated.elf
case_run qemu-bad-images --cpu max --smp 1 \
  --module "$bad/text.elf name=text" --module "$bad/truncated.elf name=truncated" \
  --module "$G/healthy.elf name=toobig mem=1" --module "$G/healthy.elf name=healthy" \
  --module "$G/healthy.elf name=badopt frobnicate=1" \
  --expect guests=1 --expect guests_passed=1 --expect guests_rejected=4 \
  --expect-log "guest text: bad image: not an ELF image" \
  --expect-log "guest truncated: bad image: .*(truncated|past the image)" \
  --expect-log "guest toobig: bad image: segment outside guest memory" \
  --expect-log "guest badopt: unknown or invalid option 'frobnicate=1'"

# mem= takes units; a guest bigger than what is free, or whose RAM below the PCI hole (up to
# 3 GiB, one host run) the host has in no one run, is refused alone with the sizes named, and
# the others run (a 4 GiB machine, 2 GiB below 4 GiB and 2 above: no 3 GiB run; QEMU touches
# it only as used).
case_run qemu-mem-sizes --cpu max --smp 1 --mem 4096 \
  --module "$G/healthy.elf name=units mem=32M" --module "$G/healthy.elf name=huge mem=5G" \
  --module "$G/healthy.elf name=over mem=3073" --module "$G/healthy.elf name=frac mem=1536K" \
  --module "$G/healthy.elf name=healthy" \
  --expect guests=2 --expect guests_passed=2 --expect guests_rejected=3 \
  --expect-log "^guest units: 32 MiB, " \
  --expect-log "^guest huge: mem=5120 MiB but only 40[0-9]{2} MiB are free$" \
  --expect-log "^guest over: no room for 3073 MiB of guest memory \([0-9]+ MiB free, but the first 3072 MiB must be one run and the rest in at most 7 runs\)$" \
  --expect-log "^guest frac: unknown or invalid option 'mem=1536K'$"

# The demo (boot/grub.cfg, read here so the case follows it) on a two-CPU machine: its cpu=2
# and cpu=3 fall back to CPUs 0 and 1 with a warning and every demo guest passes; a malformed
# cpu= or cpus= entry still refuses its guest.
demo=()
while read -r _ f args; do demo+=(--module "$G/$(basename "$f") $args"); done \
  < <(grep -E '^\s*module2 ' boot/grub.cfg)
case_run qemu-demo-smp2 --cpu max --smp 2 --timeout 240 \
  --cmdline "$(sed -n 's|^\s*multiboot2 /boot/umbra.elf ||p' boot/grub.cfg)" "${demo[@]}" \
  --module "$G/healthy.elf name=badcpu cpu=one" --module "$G/healthy.elf name=badcpus cpus=0,x" \
  --expect guests_passed=$((${#demo[@]} / 2)) --expect guests_failed=0 --expect guests_rejected=2 \
  --expect-log "guest permpae: warning: cpu 2 beyond this machine's 2 CPUs: on cpu 0 instead" \
  --expect-log "guest perm64: warning: cpu 3 beyond this machine's 2 CPUs: on cpu 1 instead" \
  --expect-log "guest perm64: 16 MiB, entry 0x[0-9a-f]+, cpu 1," \
  --expect-log "guest badcpu: unknown or invalid option 'cpu=one'" \
  --expect-log "guest badcpus: unknown or invalid option 'cpus=0,x'"

# Linux bzImages whose setup header Umbra cannot honour are refused before anything runs.
# mkbz FILE VERSION LOADFLAGS SETUP_SECTS INIT_SIZE [BOOTFLAG] [SYSSIZE]: an 8 KiB image,
# header only (syssize 0 unless given, in 16-byte units).
put() { printf "$3" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none; }
le16() { printf '\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)); }
le32() { printf '%s%s' "$(le16 $(($1 & 65535)))" "$(le16 $(($1 >> 16)))"; }
mkbz() {
  head -c 8192 /dev/zero > "$1"
  put "$1" 0x1f1 "$(printf '\\x%02x' $4)"; put "$1" 0x1fe "$(le16 ${6:-0xaa55})"
  put "$1" 0x201 '\x66'; put "$1" 0x202 HdrS; put "$1" 0x206 "$(le16 $2)"
  put "$1" 0x211 "$(printf '\\x%02x' $3)"; put "$1" 0x260 "$(le32 $5)"
  put "$1" 0x1f4 "$(le32 ${7:-0})"
}
mkbz $bad/bz-noflag 0x020f 1 4 0x100000 0
mkbz $bad/bz-old 0x0204 1 4 0x100000
mkbz $bad/bz-zimage 0x020f 0 4 0x100000
mkbz $bad/bz-sects 0x020f 1 200 0x100000
mkbz $bad/bz-huge 0x020f 1 4 0x40000000
mkbz $bad/bz-ok 0x020f 1 4 0x100000
# Setup 2560 bytes + 0x200 * 16 = 10752 bytes promised, 8192 there.
mkbz $bad/bz-trunc 0x020f 1 4 0x100000 0xaa55 0x200
# Seven refused guests, plus the two files of the refused twofiles, which then name no guest.
case_run qemu-bad-bzimages --cpu max --smp 1 \
  --module "$bad/bz-noflag name=noflag" --module "$bad/bz-old name=old" \
  --module "$bad/bz-zimage name=zimage" --module "$bad/bz-sects name=sects" \
  --module "$bad/bz-huge name=huge" --module "$bad/bz-trunc name=trunc" \
  --module "$bad/bz-ok name=twofiles" \
  --module "$bad/text.elf for=twofiles" --module "$bad/text.elf for=twofiles" \
  --module "$G/healthy.elf name=healthy" \
  --expect guests=1 --expect guests_passed=1 --expect guests_rejected=9 \
  --expect-log "guest trunc: bad image: bzImage: truncated: 8192 bytes, setup 2560 \\+ syssize\\*16 8192 = 10752" \
  --expect-log "guest noflag: bad image: bzImage: no 0xAA55 boot flag" \
  --expect-log "guest old: bad image: bzImage: boot protocol older than 2.10" \
  --expect-log "guest zimage: bad image: bzImage: not loaded high" \
  --expect-log "guest sects: bad image: bzImage: setup_sects beyond the end" \
  --expect-log "guest huge: bad image: bzImage: guest memory too small" \
  --expect-log "guest twofiles: bad image: bzImage: more than one file"

# PVH kernels (ELF with a Xen PHYS32_ENTRY note, tests/mb1/pvh.c) whose note or files Umbra
# cannot honour are refused; the healthy ones (ELF32 and ELF64) still run and check their start
# info. mkpvh SRC OUT FIELD=VALUE...: a copy of SRC with its note patched, found through its
# PT_NOTE program header: entry (the address in the note, 4 or 8 bytes as its descsz says),
# descsz, note_filesz (the PT_NOTE's size in the file).
M=${MB1_DIR:-build/mb1}
mkpvh() {
  python3 - "$@" <<'PY'
import struct, sys
src, out, edits = sys.argv[1], sys.argv[2], dict(a.split("=") for a in sys.argv[3:])
img = bytearray(open(src, "rb").read())
is64 = img[4] == 2
phoff, = struct.unpack_from("<Q" if is64 else "<I", img, 32 if is64 else 28)
phentsize, phnum = struct.unpack_from("<HH", img, 54 if is64 else 42)
for i in range(phnum):
    ph = phoff + i * phentsize
    if struct.unpack_from("<I", img, ph)[0] != 4:  # PT_NOTE
        continue
    off, = struct.unpack_from("<Q" if is64 else "<I", img, ph + 8 if is64 else ph + 4)
    namesz, descsz, ntype = struct.unpack_from("<III", img, off)
    assert img[off + 12:off + 16] == b"Xen\0" and ntype == 18, "not the Xen note"
    desc = off + 12 + ((namesz + 3) & ~3)
    for k, v in edits.items():
        v = int(v, 0)
        if k == "entry":
            struct.pack_into("<Q" if descsz == 8 else "<I", img, desc, v)
        elif k == "descsz":
            struct.pack_into("<I", img, off + 4, v)
        elif k == "note_filesz":
            struct.pack_into("<Q" if is64 else "<I", img, ph + 32 if is64 else ph + 16, v)
        else:
            sys.exit("mkpvh: unknown field " + k)
    open(out, "wb").write(img)
    sys.exit(0)
sys.exit("mkpvh: no PT_NOTE in " + src)
PY
}
mkpvh $M/pvh.elf $bad/pvh-entry-out.elf entry=0x800000
mkpvh $M/pvh.elf $bad/pvh-entry-zero.elf entry=0
mkpvh $M/pvh64.elf $bad/pvh64-entry-out.elf entry=0x100000000
mkpvh $M/pvh.elf $bad/pvh-desc2.elf descsz=2
mkpvh $M/pvh.elf $bad/pvh-desc-past.elf descsz=0x40
mkpvh $M/pvh.elf $bad/pvh-note-past.elf note_filesz=0x100000
head -c $((5 << 20)) /dev/zero > $bad/pvh-5mib.bin
printf 'first module, 36 bytes, the top one\n' > $bad/pvh-mod0.txt
head -c 5000 /dev/urandom > $bad/pvh-mod1.bin
# A 2047-byte command line reaches the guest whole (Umbra keeps module lines where GRUB left
# them); one past the start info's room (8 KiB with its tables) is refused, never cut.
long="cmdlen=2047 $(printf '%02035d' 0)"
toolong="cmdlen=7600 $(printf '%07588d' 0)"
# Eight refused guests, plus the file of the refused bigmod.
case_run qemu-bad-pvh --cpu max --smp 1 \
  --module "$bad/pvh-entry-out.elf name=entryout" --module "$bad/pvh-entry-zero.elf name=entryzero" \
  --module "$bad/pvh64-entry-out.elf name=entryout64" --module "$bad/pvh-desc2.elf name=desc2" \
  --module "$bad/pvh-desc-past.elf name=descpast" --module "$bad/pvh-note-past.elf name=notepast" \
  --module "$M/pvh.elf name=bigmod mem=4" --module "$bad/pvh-5mib.bin for=bigmod" \
  --module "$M/pvh.elf name=longcmd -- $long" --module "$M/pvh.elf name=toolong -- $toolong" \
  --module "$M/pvh.elf name=pvh mem=16 -- ram=16 mods=2 msize0=36 msize1=5000 cmdlen=45" \
  --module "$bad/pvh-mod0.txt for=pvh" --module "$bad/pvh-mod1.bin for=pvh second" \
  --module "$M/pvh64.elf name=pvh64 mem=16 -- ram=16 mods=0" \
  --expect guests=3 --expect guests_passed=3 --expect guests_rejected=9 \
  --expect-log "guest entryout: bad image: PVH: entry point is not inside a loaded segment" \
  --expect-log "guest entryzero: bad image: PVH: entry point is not inside a loaded segment" \
  --expect-log "guest entryout64: bad image: PVH: entry point is not inside a loaded segment" \
  --expect-log "guest desc2: bad image: PVH: malformed Xen note" \
  --expect-log "guest descpast: bad image: PVH: malformed Xen note" \
  --expect-log "guest notepast: bad image: PVH: malformed Xen note" \
  --expect-log "guest bigmod: bad image: PVH: modules too large for the guest's mem=" \
  --expect-log "guest longcmd: ended=result .* PASS" \
  --expect-log "guest toolong: bad image: PVH: command line too long" \
  --expect-log "\[pvh\] module 1: 5000 bytes" --expect-log "\[pvh64\] cmdline: \[ram=16 mods=0\]"
# More files than a PVH guest takes (Umbra's limit: 8), and module strings beyond the room of
# the start info page; the healthy guest still runs.
tm=()
for i in 1 2 3 4 5 6 7 8 9; do tm+=(--module "$bad/pvh-mod0.txt for=toomany"); done
case_run qemu-bad-pvh-modules --cpu max --smp 1 \
  --module "$M/pvh.elf name=toomany -- mods=9" "${tm[@]}" \
  --module "$M/pvh.elf name=longstr -- mods=1" \
  --module "$bad/pvh-mod1.bin for=longstr $(printf '%07500d' 0)" \
  --module "$M/pvh.elf name=pvh -- mods=0" \
  --expect guests=1 --expect guests_passed=1 --expect guests_rejected=12 \
  --expect-log "guest toomany: more than 8 files \\(for=toomany\\)" \
  --expect-log "guest longstr: bad image: PVH: command line too long"

# The BIOS's leftovers (vmm/load/bios.c): a multiboot v1 kernel gets them unless bios=off, and its
# real-mode "sti; hlt" wakes on the BIOS's timer (check-mb1's bios kernel); with bios=off
# nothing could wake it. Any other guest may ask with bios=on; bios= takes on or off only.
case_must_fail qemu-bios-off "guest biosoff: ended=halted .*HLT with nothing that could wake it" \
  "guest bioson: ended=result status=33" "guest healthybios: ended=result status=33" \
  "guest biosbad: unknown or invalid option 'bios=maybe'" "guests_rejected=1" \
  -- --cpu max --smp 1 --timeout 120 \
  --module "$M/bios.elf name=bioson" --module "$M/bios.elf name=biosoff bios=off" \
  --module "$G/healthy.elf name=healthybios bios=on" --module "$M/bios.elf name=biosbad bios=maybe"

# Guest reset (vmm/reset.c): each way a PC resets restarts the guest from its boot modules, with
# its memory zeroed (the guest checks) and its devices at power-on, the count and cause in the
# report; audit=1 checks the shadow pages after it. A healthy guest on the same CPU must not
# notice. The FADT's reset register is port 0xCF9, so that restart is counted as cf9.
reboots() { # PREFIX: the reboot guest through every path, and a healthy one, on CPU 0
  local p=$1 via
  for via in kbc cf9 fadt triple; do
    printf -- '--module\0%s\0' "$G/reboot.elf name=$p$via cpu=0 -- via=$via"
  done
}
mapfile -d '' rb < <(reboots r)
case_run qemu-reboot --cpu max --smp 2 --cmdline audit=1 "${rb[@]}" \
  --module "$G/healthy.elf name=healthy cpu=0" \
  --expect guests_passed=5 --expect guests_failed=0 \
  --expect-log "guest rkbc: reset: restarts=1 8042=1 cf9=0 triple-fault=0" \
  --expect-log "guest rcf9: reset: restarts=1 8042=0 cf9=1 triple-fault=0" \
  --expect-log "guest rfadt: reset: restarts=1 8042=0 cf9=1 triple-fault=0" \
  --expect-log "guest rtriple: reset: restarts=1 8042=0 cf9=0 triple-fault=1" \
  --expect-log "\[rfadt\] reboot: FADT reset register: port 0xcf9 value 0x6" \
  --expect-log "guest rtriple: mmu: .*audit_errors=0" \
  --expect-log "guest healthy: ended=result status=33"
# A guest with two vCPUs resets from vCPU 0 and from vCPU 1, the other asleep in HLT with
# interrupts off, on two CPUs and on one: every vCPU is stopped, the guest restarts once (memory
# zeroed, vCPU 1 back to waiting to be started: its VCPU_START succeeds again), beside a healthy
# guest; audit=1 checks the shadow pages after each restart.
case_run qemu-reboot-smp --cpu max --smp 2 --cmdline audit=1 \
  --module "$G/reboot.elf name=sbsp vcpus=2 cpus=0,1 -- via=kbc from=bsp" \
  --module "$G/reboot.elf name=sap vcpus=2 cpus=1,0 -- via=triple from=ap" \
  --module "$G/reboot.elf name=sone vcpus=2 cpus=0,0 -- via=cf9 from=ap" \
  --module "$G/reboot.elf name=sonebsp vcpus=2 cpus=1,1 -- via=fadt from=bsp" \
  --module "$G/healthy.elf name=healthy cpu=0" \
  --expect guests_passed=5 --expect guests_failed=0 \
  --expect-log "guest sbsp: reset: restarts=1 8042=1 cf9=0 triple-fault=0" \
  --expect-log "guest sap: reset: restarts=1 8042=0 cf9=0 triple-fault=1" \
  --expect-log "guest sone: reset: restarts=1 8042=0 cf9=1 triple-fault=0" \
  --expect-log "guest sonebsp: reset: restarts=1 8042=0 cf9=1 triple-fault=0" \
  --expect-log "\[sap\] reboot: second boot, memory zeroed, 8042 reset, vCPU 1 started again" \
  --expect-log "\[sone\] reboot: second boot, memory zeroed, 8042 reset, vCPU 1 started again" \
  --expect-log "guest sbsp: mmu: .*audit_errors=0" --expect-log "guest sap: mmu: .*audit_errors=0" \
  --expect-log "guest sone: mmu: .*audit_errors=0" \
  --expect-log "guest healthy: ended=result status=33"
# on_reboot=end: the reset ends the guest as a reboot, which it asked for (a pass); a guest
# that resets at every boot is stopped after reboots=N restarts as a reboot loop (a failure),
# beside a healthy guest that passes; bad values of the two options refuse the guest.
case_run qemu-reboot-end --cpu max --smp 1 \
  --module "$G/reboot.elf name=rend on_reboot=end -- via=kbc" \
  --module "$G/healthy.elf name=healthy" \
  --expect guests_passed=2 --expect-log "guest rend: ended=reboot status=0 \(8042\) PASS" \
  --expect-log "guest rend: reset: restarts=0 "
case_run qemu-reboot-loop --cpu max --smp 1 --expect-fail \
  --module "$G/reboot.elf name=rloop reboots=3 -- via=cf9 loop=1" \
  --module "$G/healthy.elf name=healthy" \
  --expect guests_passed=1 --expect guests_failed=1 \
  --expect-log "guest rloop: ended=reboot-loop .*FAIL" \
  --expect-log "guest rloop: reset: restarts=3 8042=0 cf9=3 triple-fault=0"
case_run qemu-reboot-badopts --cpu max --smp 1 \
  --module "$G/reboot.elf name=b1 on_reboot=halt -- via=kbc" \
  --module "$G/reboot.elf name=b2 on_reboot= -- via=kbc" \
  --module "$G/reboot.elf name=b3 reboots=1001 -- via=kbc" \
  --module "$G/reboot.elf name=b4 reboots=-1 -- via=kbc" \
  --module "$G/reboot.elf name=b5 reboots=x -- via=kbc" \
  --module "$G/healthy.elf name=healthy" \
  --expect guests=1 --expect guests_passed=1 --expect guests_rejected=5 \
  --expect-log "guest b1: unknown or invalid option 'on_reboot=halt'" \
  --expect-log "guest b3: unknown or invalid option 'reboots=1001'" \
  --expect-log "guest b4: unknown or invalid option 'reboots=-1'"

suite_end qemu
