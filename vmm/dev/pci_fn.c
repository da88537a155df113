/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's PCI bus as data: the host's capability walk its capabilities share. */
#include "vmm/dev/pci_fn.h"

u8 pci_fn_cap_walk(struct pci_bus *b, u16 host_bdf, bool (*fn)(void *ctx, u8 off, u32 cap),
		   void *ctx)
{
	if (!(b->ops->cfg_read(b->ctx, host_bdf, PCI_COMMAND) >> 16 & PCI_STATUS_CAPS))
		return 0;
	u8 ptr = (u8)b->ops->cfg_read(b->ctx, host_bdf, PCI_CAP_PTR) & 0xfc;
	/* 48 capabilities fill the 192 bytes from 0x40: more is a loop. */
	for (int n = 0; ptr >= 0x40 && n < 48; n++) {
		u32 cap = b->ops->cfg_read(b->ctx, host_bdf, ptr);
		if (fn(ctx, ptr, cap))
			return ptr;
		ptr = (u8)(cap >> 8) & 0xfc;
	}
	return 0;
}

static bool cap_is(void *id, u8 off, u32 cap)
{
	(void)off;
	return (cap & 0xff) == *(const u8 *)id;
}

u8 pci_fn_cap_find(struct pci_bus *b, u16 host_bdf, u8 id)
{
	return pci_fn_cap_walk(b, host_bdf, cap_is, &id);
}
