/* SPDX-License-Identifier: GPL-2.0-only */
/* Assigned functions' MSIs: the host vector of each, and their delivery as the guest's vector. */
#include "vmm/msi.h"
#include "arch/x86/devirq.h"
#include "arch/x86/percpu.h"
#include "vmm/intx.h"
#include "vmm/ipi.h"
#include "vmm/vm.h"
#include "vmm/vm_lock.h"

/* Who each host vector belongs to: set once, when the guest is created, never taken back
 * (guests are never destroyed; an ended guest's vector is dropped on arrival). */
static struct {
	struct vm *vm;
	u8 dev, entry;
} owner[DEVIRQ_COUNT];

u8 msi_vector_alloc(struct vm *vm, unsigned dev, u8 entry)
{
	u8 vec = devirq_alloc();
	if (vec) {
		owner[vec - DEVIRQ_FIRST].dev = (u8)dev;
		owner[vec - DEVIRQ_FIRST].entry = entry;
		__atomic_store_n(&owner[vec - DEVIRQ_FIRST].vm, vm, __ATOMIC_RELEASE);
	}
	return vec;
}

void msi_host_message(struct vm *vm, u8 vector, const struct pci_msi_msg *msg, u64 *addr, u32 *data)
{
	u32 cpu = vm->vcpus[0].cpu;
	for (u32 i = 0; i < vm->nr_vcpus; i++)
		if (vlapic_match_dest(&vm->vcpus[i].vlapic, msg->dest, msg->logical)) {
			cpu = vm->vcpus[i].cpu;
			break;
		}
	/* Physical destination, fixed delivery, edge: the host's own interrupt. */
	*addr = 0xfee00000ull | (u64)(percpus[cpu].apic_id & 0xff) << 12;
	*data = vector;
}

/* As the guest's I/O APIC or an IPI would: each local APIC the message names (one for lowest
 * priority), its CPU kicked if it runs elsewhere. */
void msi_to_guest(struct vm *vm, const struct pci_msi_msg *msg)
{
	bool any = false;
	for (u32 i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *t = &vm->vcpus[i];
		if (!vlapic_hw_enabled(&t->vlapic) ||
		    !vlapic_match_dest(&t->vlapic, msg->dest, msg->logical))
			continue;
		vlapic_set_irq(&t->vlapic, msg->vector, false);
		ipi_kick(t);
		any = true;
		if (msg->lowest)
			break;
	}
	if (any) {
		vm->msis++;
		vm_devices_touched(vm);
	} else {
		vm->msis_dropped++;
	}
}

void msi_send(struct vm *vm, u64 addr, u32 data)
{
	struct pci_msi_msg msg;
	if (pci_msi_decode(addr, data, &msg))
		vm->msis_dropped++;
	else
		msi_to_guest(vm, &msg);
}

/* What arrives while the guest has its MSI or MSI-X off, or its MSI masked (on its way when
 * the guest changed it), is dropped and counted; a masked MSI-X entry's waits in its pending
 * bit (vmm/dev/pci_msix.c). */
static void deliver(struct vm *vm, unsigned dev, u8 entry)
{
	struct pci_msi_msg msg;
	struct pci_bus *b = &vm->board.pci;
	if (dev < 1 || dev > b->n)
		vm->msis_dropped++;
	else if (entry != MSI_NOT_X) {
		if (!pci_msix_arrived(b, dev - 1, entry))
			vm->msis_dropped++;
	} else if (!pci_msi_message(&b->fn[dev - 1].msi, &msg))
		vm->msis_dropped++;
	else
		msi_to_guest(vm, &msg);
}

void msi_dispatch(void)
{
	u64 bits = devirq_take();
	while (bits) {
		unsigned i = (unsigned)__builtin_ctzll(bits);
		bits &= bits - 1;
		if (intx_arrived((u8)(DEVIRQ_FIRST + i)))
			continue;
		struct vm *vm = __atomic_load_n(&owner[i].vm, __ATOMIC_ACQUIRE);
		if (!vm)
			continue;
		vm_lock(vm);
		if (!vm_ended(vm))
			deliver(vm, owner[i].dev, owner[i].entry);
		vm_unlock(vm);
	}
}
