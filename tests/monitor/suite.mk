# SPDX-License-Identifier: GPL-2.0-only
# check-monitor: a scripted monitor session on a running guest (tests/monitor/run.sh).
SUITES += check-monitor
.PHONY: check-monitor
check-monitor: $(BUILD)/umbra.elf $(BUILD)/mb1/gdbtarget64.elf
	@tests/monitor/run.sh $(BUILD)/mb1
