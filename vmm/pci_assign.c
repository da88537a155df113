/* SPDX-License-Identifier: GPL-2.0-only */
/* Which host PCI functions a guest may own: parsing pci= and every refusal, before anything is claimed. */
#include "vmm/pci_assign.h"
#include "lib/cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"

struct pci_assign_ctx pci_assign_host;

/* Exactly digits hex digits at *p, advanced past them; -1 if not. */
static int hexn(const char **p, int digits)
{
	int v = 0;
	for (int i = 0; i < digits; i++) {
		int d = hex_digit((*p)[i]);
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	*p += digits;
	return v;
}

bool pci_assign_parse(const char *val, struct pci_assign_req *req)
{
	memset(req, 0, sizeof(*req));
	const char *p = val;
	for (;;) {
		const char *start = p;
		int bus = hexn(&p, 2), dev = -1, fn = -1;
		if (bus >= 0 && *p == ':') {
			p++;
			dev = hexn(&p, 2);
		}
		if (dev >= 0 && *p == '.') {
			p++;
			fn = hexn(&p, 1);
		}
		if (fn < 0 || (*p && *p != ',') || dev > 0x1f || fn > 7)
			return FMT_ERROR(
				req, false,
				"pci=%s: '%.12s' is not BB:DD.F (hex bus, device <= 1f, function <= 7)",
				val, start);
		u16 bdf = PCI_BDF(bus, dev, fn);
		for (u32 i = 0; i < req->n; i++)
			if (req->bdf[i] == bdf)
				return FMT_ERROR(req, false, "pci=%s: %02x:%02x.%x given twice",
						 val, bus, dev, fn);
		if (req->n == PCI_ASSIGN_MAX)
			return FMT_ERROR(req, false, "pci=%s: more than %u functions", val,
					 PCI_ASSIGN_MAX);
		req->bdf[req->n++] = bdf;
		if (!*p)
			return true;
		p++;
	}
}

static bool has_io(const struct pci_func *f, u16 port)
{
	for (int b = 0; b < PCI_MAX_BARS; b++)
		if (f->bar[b].kind == PCI_BAR_IO && port >= f->bar[b].base &&
		    port - f->bar[b].base < f->bar[b].size)
			return true;
	return false;
}

static bool is_iommu(const struct pci_assign_ctx *c, const struct pci_func *f)
{
	if ((f->class >> 8) == 0x0806) /* base class 08 (system peripheral), IOMMU */
		return true;
	for (u32 i = 0; c->iommu && i < c->iommu->count; i++)
		if (c->iommu->u[i].kind == IOMMU_AMDVI && c->iommu->u[i].rid == f->bdf)
			return true;
	return false;
}

#define REFUSE(why, ...) FMT_ERROR(why, false, __VA_ARGS__)

bool pci_assign_check(const struct pci_assign_ctx *c, const struct pci_assign_req *req, u8 guest,
		      struct pci_assign_req *why)
{
	why->error = NULL;
	for (u32 k = 0; k < req->n; k++) {
		u16 bdf = req->bdf[k];
		u8 bus = PCI_BUS(bdf), dev = PCI_DEV(bdf), fn = PCI_FN(bdf);
		int i = pci_find(c->pci, bdf);
		if (i < 0)
			return REFUSE(why, "pci: %02x:%02x.%x: no such function on this machine",
				      bus, dev, fn);
		const struct pci_func *f = &c->pci->f[i];
		if (pci_is_host_bridge(f))
			return REFUSE(why, "pci: %02x:%02x.%x is a host bridge: not assignable",
				      bus, dev, fn);
		if (pci_is_bridge(f))
			return REFUSE(why,
				      "pci: %02x:%02x.%x is a bridge: give the functions behind it",
				      bus, dev, fn);
		if (is_iommu(c, f))
			return REFUSE(why, "pci: %02x:%02x.%x is an IOMMU: never assignable", bus,
				      dev, fn);
		if (has_io(f, c->console_port))
			return REFUSE(
				why,
				"pci: %02x:%02x.%x is Umbra's console UART (port 0x%x): never assignable",
				bus, dev, fn, c->console_port);
		if (c->owner[i] != PCI_NO_OWNER && c->owner[i] != guest)
			return REFUSE(why, "pci: %02x:%02x.%x already belongs to another guest",
				      bus, dev, fn);
		/* Functions that DMA with one requester ID share one IOMMU context: one guest. */
		for (u32 j = 0; j < c->pci->count; j++) {
			const struct pci_func *o = &c->pci->f[j];
			if (j == (u32)i || o->rid != f->rid || pci_is_bridge(o) ||
			    c->owner[j] == PCI_NO_OWNER || c->owner[j] == guest)
				continue;
			return REFUSE(
				why,
				"pci: %02x:%02x.%x shares requester ID %02x:%02x.%x with %02x:%02x.%x of another guest (behind one PCIe-to-PCI bridge)",
				bus, dev, fn, PCI_BUS(f->rid), PCI_DEV(f->rid), PCI_FN(f->rid),
				PCI_BUS(o->bdf), PCI_DEV(o->bdf), PCI_FN(o->bdf));
		}
		if (!c->iommu_off && !(c->iommu && iommu_for(c->iommu, f->rid)))
			return REFUSE(
				why,
				"pci: %02x:%02x.%x: no IOMMU covers it, so its DMA could reach any memory; refused (iommu=off on Umbra's line allows it, unsafely)",
				bus, dev, fn);
	}
	return true;
}

void pci_assign_init(struct pci_assign_ctx *c, const struct pci_list *pci,
		     const struct iommu_list *iommu, bool iommu_off, u16 console_port)
{
	c->pci = pci;
	c->iommu = iommu;
	c->iommu_off = iommu_off;
	c->console_port = console_port;
	memset(c->owner, PCI_NO_OWNER, sizeof(c->owner));
}

const char *pci_assign_caveat(const struct pci_func *f)
{
	if (f->vendor == 0x1af4 && f->device >= 0x1000 && f->device < 0x1040)
		return "a transitional virtio device: an emulator's virtio DMA through the legacy interface bypasses the IOMMU (QEMU: use disable-legacy=on,iommu_platform=on), so its DMA may reach any memory";
	return NULL;
}

void pci_assign_commit(struct pci_assign_ctx *c, const struct pci_assign_req *req, u8 guest)
{
	for (u32 k = 0; k < req->n; k++) {
		int i = pci_find(c->pci, req->bdf[k]);
		if (i >= 0)
			c->owner[i] = guest;
	}
}
