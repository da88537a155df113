/* SPDX-License-Identifier: GPL-2.0-only */
/* The -O2 fuzz driver: make check-mmu (1,000,000 ops), make mmu-soak, and replays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mmu/fuzz.h"

int main(int argc, char **argv)
{
	struct fuzz_opts o = { .ops = 1000000, .seed = 1 };
	struct fuzz_result r;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--ops"))
			o.ops = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seed"))
			o.seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--pool"))
			o.pool_pages = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--no-audit"))
			o.no_audit = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--vcpus"))
			o.vcpus = (unsigned)strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--knob")) {
			/* a mutation knob by name, to see what the fuzz makes of it */
			const char *k = argv[i + 1];

#define KNOB(name) o.mut.name |= !strcmp(k, #name);
			MMU_MUTATIONS(KNOB)
#undef KNOB
		} else if (!strcmp(argv[i], "--nocache"))
			o.nocache = atoi(argv[i + 1]);
	}
	fuzz_run(&o, &r);
	fuzz_report(&o, &r);
	return r.mismatches || r.audit_errors;
}
