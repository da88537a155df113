# SPDX-License-Identifier: GPL-2.0-only
# check-layers: includes and linked symbols against the dependency matrix in docs/design.md.
SUITES += check-layers
.PHONY: check-layers
check-layers: $(KOBJ_ALL)
	@python3 tests/layers/check.py docs/design.md $(BUILD)/k $(KSRC)
