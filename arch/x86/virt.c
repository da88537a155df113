/* Chooses the virtualization backend; generic code only ever sees the virt_backend table. */
#include "arch/x86/virt.h"
#include "lib/printf.h"

const struct virt_backend *virt;

const struct virt_backend *virt_select(const char **why)
{
	static const struct virt_backend *const backends[] = { &svm_backend, &vmx_backend };
	static char reasons[160];
	const char *w[2] = { "", "" };

	for (unsigned i = 0; i < 2; i++)
		if (backends[i]->probe(&w[i]))
			return backends[i];
	fmt_snprintf(reasons, sizeof(reasons), "svm: %s; vmx: %s", w[0], w[1]);
	*why = reasons;
	return NULL;
}
