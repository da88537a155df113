/* The one virtualization backend interface; svm.c and vmx.c are its only implementations. */
#ifndef ARCH_X86_VIRT_H
#define ARCH_X86_VIRT_H

#include "lib/types.h"

struct percpu;

struct virt_backend {
	const char *name; /* "svm" or "vmx": the summary's virt= value */
	/* Does this CPU offer the extension at all? On no, *why says what is missing. */
	bool (*probe)(const char **why);
	/* Enter SVM host / VMX root mode on the calling CPU; 0, or <0 with pc->virt_error set.
	 * On success pc->virt_info describes what was found (NPT/EPT, ASIDs, ...). */
	int (*cpu_enable)(struct percpu *pc);
};

extern const struct virt_backend svm_backend;
extern const struct virt_backend vmx_backend;

/* The backend chosen at boot (NULL if the CPU has neither extension). */
extern const struct virt_backend *virt;

/* Picks the backend for this machine; on failure returns NULL with a reason. */
const struct virt_backend *virt_select(const char **why);

#endif
