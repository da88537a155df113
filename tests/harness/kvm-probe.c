/* SPDX-License-Identifier: GPL-2.0-only */
/* Host helper for tests/harness/machine.sh: can this /dev/kvm run an unmodified guest? */
/*
 * kvm-probe [DEVICE]: creates a VM with one vCPU in real mode that runs
 * "mov $0x42,%al; out %al,$0x80; hlt" from guest-physical 0, and checks that KVM reports the
 * port write. Exit 0 and "kvm: ok" when it does; exit 1 with the step that failed otherwise
 * (no KVM, KVM_CREATE_VM refused, a KVM that only runs paravirtual guests...). QEMU would
 * fail later and less clearly; the harness then falls back to TCG.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int fail(const char *step)
{
	printf("kvm: %s failed: %s\n", step, errno ? strerror(errno) : "unexpected result");
	return 1;
}

static int ioctl_retry(int fd, unsigned long req, void *arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

int main(int argc, char **argv)
{
	static const unsigned char code[] = { 0xb0, 0x42, 0xe6, 0x80, 0xf4 };
	const char *dev = argc > 1 ? argv[1] : "/dev/kvm";

	errno = 0;
	int kvm = open(dev, O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		return fail("open");
	if (ioctl_retry(kvm, KVM_GET_API_VERSION, NULL) != KVM_API_VERSION)
		return fail("KVM_GET_API_VERSION");
	int vm = ioctl_retry(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return fail("KVM_CREATE_VM");
	if (ioctl_retry(kvm, KVM_CHECK_EXTENSION, (void *)KVM_CAP_USER_MEMORY) <= 0)
		return fail("KVM_CAP_USER_MEMORY");
	unsigned char *mem =
		mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return fail("mmap of guest memory");
	memcpy(mem, code, sizeof(code));
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = 0x1000,
		.userspace_addr = (unsigned long)mem,
	};
	if (ioctl_retry(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return fail("KVM_SET_USER_MEMORY_REGION");
	int vcpu = ioctl_retry(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		return fail("KVM_CREATE_VCPU");
	int run_size = ioctl_retry(kvm, KVM_GET_VCPU_MMAP_SIZE, NULL);
	if (run_size < (int)sizeof(struct kvm_run))
		return fail("KVM_GET_VCPU_MMAP_SIZE");
	struct kvm_run *run =
		mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		return fail("mmap of kvm_run");
	struct kvm_sregs sregs;
	if (ioctl_retry(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return fail("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl_retry(vcpu, KVM_SET_SREGS, &sregs) < 0)
		return fail("KVM_SET_SREGS");
	struct kvm_regs regs = { .rip = 0, .rflags = 2 };
	if (ioctl_retry(vcpu, KVM_SET_REGS, &regs) < 0)
		return fail("KVM_SET_REGS");
	if (ioctl_retry(vcpu, KVM_RUN, NULL) < 0)
		return fail("KVM_RUN");
	errno = 0;
	if (run->exit_reason != KVM_EXIT_IO || run->io.port != 0x80 ||
	    run->io.direction != KVM_EXIT_IO_OUT ||
	    ((unsigned char *)run)[run->io.data_offset] != 0x42) {
		printf("kvm: the real-mode test guest did not run (exit reason %u)\n",
		       run->exit_reason);
		return 1;
	}
	printf("kvm: ok\n");
	return 0;
}
