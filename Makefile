# SPDX-License-Identifier: GPL-2.0-only
# Umbra: build the hypervisor, its ISO, the host test programs, and run the suites.
#
#   make            build/umbra.elf (multiboot2, checked with grub-file)
#   make iso        build/umbra.iso (hybrid: BIOS and x86-64 UEFI GRUB)
#   make run        boot the ISO in QEMU (-smp 4; KVM when the host nests, else TCG -cpu max),
#                   serial on this terminal; FIRMWARE=uefi boots it through OVMF
#   make test       every suite, one per core at a time; the last line is "N passed, N failed"
#   make check-*    one suite (check-unit, check-mmu, check-emul, check-qemu, check-bochs, ...)
#   make bench      benchmarks (see README)
#   make lint       clang-format check, gcc -fanalyzer (kernel and host builds), cppcheck; run by CI
#   make format     clang-format every tracked .c/.h in place (.clang-format)
#   make compile_commands.json   for clangd

BUILD   ?= build
CC      ?= gcc
HOSTCC  ?= gcc
OPT     ?= -O2

WARN    := -Wall -Wextra -Werror
KCFLAGS := -std=gnu11 $(OPT) -g $(WARN) -ffreestanding -fno-builtin -nostdinc \
           -isystem $(shell $(CC) -print-file-name=include) \
           -fno-pic -fno-pie -mcmodel=small -mno-red-zone -mgeneral-regs-only \
           -fno-stack-protector -fno-omit-frame-pointer -fno-strict-aliasing \
           -fno-asynchronous-unwind-tables -I. $(EXTRA_KCFLAGS)
KASFLAGS := -I. -D__ASSEMBLY__ $(EXTRA_KCFLAGS)
KLDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
            -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments -T linker.ld

HOSTCFLAGS := -std=gnu11 -O1 -g $(WARN) -I. -DUMBRA_HOST \
              -fsanitize=address,undefined -fno-sanitize-recover=undefined \
              -fno-omit-frame-pointer $(EXTRA_HOSTCFLAGS)
HOSTLDLIBS := -fsanitize=address,undefined

# Every kernel source under the layers; host-only files live in tests/.
KSRC := $(wildcard boot/*.S arch/x86/*.S) \
        $(wildcard arch/x86/*.c vmm/*.c vmm/dev/*.c vmm/load/*.c vmm/debug/*.c mmu/*.c pv/*.c lib/*.c boot/*.c)
# Layers not yet wired into the hypervisor are compiled (to keep them freestanding-clean)
# but not linked.
KNOLINK :=
KOBJ := $(patsubst %,$(BUILD)/k/%.o,$(filter-out $(KNOLINK),$(KSRC)))
KOBJ_ALL := $(patsubst %,$(BUILD)/k/%.o,$(KSRC))

.PHONY: all iso run test clean deps bench
all: $(BUILD)/umbra.elf $(KOBJ_ALL)

# V=1 shows the full command lines.
Q := $(if $(V),,@)

$(BUILD)/k/%.c.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/k/%.S.o: %.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(KASFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/umbra.elf: $(KOBJ) linker.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(KLDFLAGS) -o $@ $(KOBJ) -lgcc
	@if command -v grub-file >/dev/null; then \
	  grub-file --is-x86-multiboot2 $@ || { echo "error: $@ is not multiboot2"; rm -f $@; exit 1; }; \
	else echo "warning: grub-file missing, multiboot2 header not checked (run: make deps)"; fi

-include $(KOBJ_ALL:.o=.d)

# make run FIRMWARE=bios|uefi ACCEL=auto|tcg|kvm (README: "Running Umbra").
FIRMWARE ?= bios
ACCEL    ?= auto

# Tries whether /dev/kvm runs an unmodified guest (tests/harness/machine.sh falls back to TCG).
KVM_PROBE := $(BUILD)/host/kvm-probe
$(KVM_PROBE): tests/harness/kvm-probe.c
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) -std=gnu11 -O1 $(WARN) -o $@ $<

# The demo guests named in boot/grub.cfg (built by tests/guests/suite.mk).
DEMO_GUESTS := $(patsubst %,$(BUILD)/guests/%.elf,paging-off perm32 permpae perm64 healthy)

iso: $(BUILD)/umbra.iso
$(BUILD)/umbra.iso: $(BUILD)/umbra.elf boot/grub.cfg boot/mkiso.sh $(DEMO_GUESTS)
	@echo "  ISO     $@"
	$(Q)boot/mkiso.sh $@ boot/grub.cfg $(BUILD)/umbra.elf $(DEMO_GUESTS)

# QEMU exits 33 when Umbra reports pass, 35 on fail (README: exit statuses).
run: deps $(BUILD)/umbra.iso $(KVM_PROBE)
	@FIRMWARE=$(FIRMWARE) ACCEL=$(ACCEL) KVM_PROBE=$(KVM_PROBE) \
	  tests/harness/run-iso.sh $(BUILD)/umbra.iso; rc=$$?; \
	  case $$rc in 33) echo "umbra: pass (qemu exit 33)";; \
	  35) echo "umbra: fail (qemu exit 35)"; exit 1;; \
	  *) echo "umbra: qemu exit $$rc"; exit 1;; esac

# Every suite fragment appends its target to SUITES and defines it.
SUITES :=
# tests/guests comes first: other fragments build on its guest library.
include tests/guests/suite.mk
include $(filter-out tests/guests/suite.mk,$(sort $(wildcard tests/*/suite.mk)))

deps:
	@tests/deps.sh

# The suites run JOBS at a time (default: one per core; JOBS=1 for one after the other), each
# printed whole as it ends. The two longest start first (check-linux alone is a third of the
# whole; started last, as the alphabet had it, it ran on alone for minutes after the rest), then
# the host suites, which fail fastest and say most precisely what broke.
LONG_SUITES := check-linux check-bochs
HOST_SUITES := check-unit check-layers check-dev check-mmu check-emul check-tdp
test: deps
	@JOBS=$(JOBS) tests/run-suites.sh $(filter $(LONG_SUITES),$(SUITES)) \
	  $(filter $(HOST_SUITES),$(SUITES)) $(filter-out $(LONG_SUITES) $(HOST_SUITES),$(SUITES))

# make lint (in CI, before the tests): gcc's static analyzer over the kernel build and the host
# build (every host test program, with the sources it tests), then cppcheck over the kernel's
# sources. Both must be clean; a suppression is justified where it is written.
# Host test programs only: cmocka 1.1's assertions are not declared noreturn, so the analyzer
# walks past a failed assert_non_null into the dereference it guards. The kernel build, which
# compiles the same mmu/, lib/ and device sources, keeps those checks.
LINT_HOST := -fanalyzer -Wno-analyzer-null-dereference -Wno-analyzer-possible-null-dereference \
             -Wno-analyzer-null-argument -Wno-analyzer-possible-null-argument
# cppcheck 2.10 takes two bitfields of union mmu_role's one struct (role->access = f(role->cr0_wp))
# for overlapping members of the union.
CPPCHECK_SUPPRESS := --suppress=overlappingWriteUnion:mmu/*.c
HOST_BINS = $(UNIT_BINS) $(DEV_BINS) $(EMUL_BINS) $(MMU_BINS) $(MMU_OUT)/mmu_fuzz $(TDP_BINS)
.PHONY: lint host-bins
host-bins: $(HOST_BINS)
lint: format-check
	@command -v cppcheck >/dev/null || { echo "lint: cppcheck is missing: apt-get install cppcheck"; exit 1; }
	$(MAKE) --no-print-directory BUILD=$(BUILD)/lint EXTRA_KCFLAGS=-fanalyzer all
	$(MAKE) --no-print-directory BUILD=$(BUILD)/lint EXTRA_HOSTCFLAGS="$(LINT_HOST)" host-bins
	cppcheck --quiet --error-exitcode=1 --inline-suppr --std=c11 -j2 \
	  --enable=warning,portability,performance -I. -I$(shell $(CC) -print-file-name=include) \
	  -D__STDC_HOSTED__=0 -D__x86_64__ --template='{file}:{line}: {severity}: {message} [{id}]' \
	  $(CPPCHECK_SUPPRESS) lib arch mmu vmm pv/*.c boot
	@echo "lint: clean"

# make format: clang-format (.clang-format) over every tracked C source and header but the
# vendored QEMU plugin header and the two headers that hold assembler macros (.macro) for .S
# files; make format-check (the first step of make lint) fails naming the files out of format.
# git ls-files: the tree's own files only, never build output.
FORMAT_FILES = git ls-files -z -- '*.c' '*.h' ':!:tests/bench/qemu/*' \
	':!:arch/x86/world_switch.h' ':!:tests/mb1/rmswitch.h'
CLANG_FORMAT ?= clang-format
.PHONY: format format-check
format:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "format: $(CLANG_FORMAT) is missing: apt-get install clang-format"; exit 1; }
	$(Q)$(FORMAT_FILES) | xargs -0 $(CLANG_FORMAT) -i
format-check:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "lint: $(CLANG_FORMAT) is missing: apt-get install clang-format"; exit 1; }
	@bad=$$($(FORMAT_FILES) | xargs -0 $(CLANG_FORMAT) --dry-run --Werror 2>&1 | \
	  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u); \
	if [ -n "$$bad" ]; then \
	  echo "lint: out of format (.clang-format) -- run 'make format', then review and commit:"; \
	  echo "$$bad" | sed 's/^/  /'; \
	  echo "(clang-format $$($(CLANG_FORMAT) --version | sed -n 's/.*version \([0-9.]*\).*/\1/p'); the tree is formatted with 14)"; \
	  exit 1; fi; \
	echo "lint: format clean ($$($(FORMAT_FILES) | tr -cd '\0' | wc -c) files)"

# For clangd and other tools: the kernel's sources with the flags they are built with.
compile_commands.json: Makefile $(KSRC)
	@echo "  GEN     $@"
	$(Q){ echo "["; sep=""; for f in $(filter %.c,$(KSRC)); do \
	  printf '%s{"directory": "%s", "file": "%s", "command": "%s %s -c %s"}\n' "$$sep" \
	    "$(CURDIR)" "$$f" "$(CC)" "$(subst ",\",$(KCFLAGS))" "$$f"; sep=","; done; \
	  echo "]"; } > $@

clean:
	rm -rf $(BUILD)
