/* MMIO dispatch: the APIC page to the model, anything else reads as ones and is recorded. */
#include "vmm/mmio.h"
#include "lib/string.h"
#include "vmm/vm.h"

static void note_unbacked(struct vm *vm, u64 gpa)
{
	u64 page = gpa & ~(PAGE_SIZE - 1);
	for (u32 i = 0; i < vm->n_mmio_unmodelled; i++)
		if (vm->mmio_unmodelled[i] == page)
			return;
	if (vm->n_mmio_unmodelled < VM_UNMODELLED_MAX)
		vm->mmio_unmodelled[vm->n_mmio_unmodelled++] = page;
}

static bool is_apic(u64 gpa) { return gpa - VLAPIC_BASE < PAGE_SIZE; }

void mmio_read(struct vcpu *v, u64 gpa, void *buf, unsigned len)
{
	if (is_apic(gpa)) {
		/* Registers are 32 bits on 16-byte boundaries; narrower reads see part of one. */
		u32 off = (u32)(gpa - VLAPIC_BASE);
		u64 val = vlapic_read(&v->vlapic, off & ~0xfu) >> ((off & 3) * 8);
		memcpy(buf, &val, len > 4 ? 4 : len);
		if (len > 4)
			memset((u8 *)buf + 4, 0, len - 4);
		return;
	}
	note_unbacked(v->vm, gpa);
	memset(buf, 0xff, len);
}

void mmio_write(struct vcpu *v, u64 gpa, const void *buf, unsigned len)
{
	if (is_apic(gpa)) {
		u32 val = 0;
		memcpy(&val, buf, len > 4 ? 4 : len);
		if (!(gpa & 0xf))
			vlapic_write(&v->vlapic, (u32)(gpa - VLAPIC_BASE), val);
		return;
	}
	note_unbacked(v->vm, gpa);
}
