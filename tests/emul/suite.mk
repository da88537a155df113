# SPDX-License-Identifier: GPL-2.0-only
# Host tests of the x86 decoder and emulator (cmocka, ASan+UBSan): tables, host-CPU flag checks, fuzz.
EMUL_OUT := $(BUILD)/host/emul
EMUL_TESTS := decode emulate flags fuzz realmode fpu
# tests/unit/harness.c provides panic, kprintf and log_level.
EMUL_COMMON := tests/emul/fake.c tests/unit/harness.c lib/printf.c arch/x86/decode.c arch/x86/emulate.c \
              arch/x86/realmode.c arch/x86/fpu_exec.c arch/x86/fpu_env.c arch/x86/segment.c
EMUL_BINS := $(patsubst %,$(EMUL_OUT)/test_%,$(EMUL_TESTS))

$(EMUL_OUT)/test_%: tests/emul/test_%.c $(EMUL_COMMON) tests/emul/fake.h arch/x86/decode.h arch/x86/emulate.h arch/x86/realmode.h arch/x86/fpu_forms.h arch/x86/segment.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $< $(EMUL_COMMON) $(HOSTLDLIBS) -lcmocka

.PHONY: check-emul
SUITES += check-emul
check-emul: $(EMUL_BINS)
	@tests/cmocka-run.sh emul $(EMUL_BINS)
