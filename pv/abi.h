/* Umbra's paravirtual ABI: the single source of numbers, structures and conventions for
 * Umbra and for guests (32- and 64-bit; C99, no dependencies beyond <stdint.h>). */
#ifndef UMBRA_PV_ABI_H
#define UMBRA_PV_ABI_H

#include <stdint.h>

/* ---- Detection ---------------------------------------------------------------------------
 * CPUID.1:ECX bit 31 (hypervisor present), then leaf 0x40000000: EAX = highest Umbra leaf,
 * EBX/ECX/EDX = "Umbra-Shadow"; leaf 0x40000001: EAX = UMBRA_ABI_VERSION, EBX = feature bits. */
#define UMBRA_CPUID_BASE 0x40000000u
#define UMBRA_CPUID_FEATURES 0x40000001u
#define UMBRA_SIGNATURE_EBX 0x72626d55u /* "Umbr" */
#define UMBRA_SIGNATURE_ECX 0x68532d61u /* "a-Sh" */
#define UMBRA_SIGNATURE_EDX 0x776f6461u /* "adow" */
#define UMBRA_ABI_VERSION 1u
#define UMBRA_FEAT_VMCALL_ANY (1u << 0) /* VMCALL and VMMCALL both work on both vendors */

/* ---- Calling convention ------------------------------------------------------------------
 * Execute VMCALL (0f 01 c1) or VMMCALL (0f 01 d9) with the call number in EAX/RAX and up to
 * four arguments in EBX/RBX, ECX/RCX, EDX/RDX, ESI/RSI. The result comes back in EAX/RAX:
 * >= 0 on success, a negative UMBRA_E* code on failure; other registers are preserved.
 * A 32-bit guest passes 32-bit values; addresses are guest-virtual unless a call says gpa. */
#define UMBRA_HC_VERSION 1       /* () -> UMBRA_ABI_VERSION */
#define UMBRA_HC_CONSOLE_WRITE 2 /* (gva buf, u32 len) -> bytes written */
#define UMBRA_HC_EXIT 3          /* (u32 status) -> does not return */
#define UMBRA_HC_STATS 4         /* (gva struct umbra_stats *, u32 size) -> bytes written */

#define UMBRA_CONSOLE_MAX 4096 /* longest console write accepted in one call */

/* Error codes (returned negated). */
#define UMBRA_EINVAL 1  /* invalid argument */
#define UMBRA_EPERM 2   /* not permitted (privilege class or capability) */
#define UMBRA_EFAULT 3  /* bad guest address */
#define UMBRA_ENOSYS 4  /* no such call */
#define UMBRA_E2BIG 5   /* length or count too big */
#define UMBRA_ENOMEM 6  /* out of memory */
#define UMBRA_EAGAIN 7  /* try again */

/* ---- Boot ----------------------------------------------------------------------------------
 * A guest starts in 32-bit protected mode, paging off, flat 4 GiB segments (CS 0x08 code,
 * 0x10 data), interrupts off, at its ELF entry point, with EAX = UMBRA_BOOT_MAGIC and
 * EBX = the guest-physical address of struct umbra_boot_info (page-aligned, in guest RAM). */
#define UMBRA_BOOT_MAGIC 0x554d4252u /* "UMBR" */

struct umbra_boot_info {
	uint32_t magic;       /* UMBRA_BOOT_MAGIC */
	uint32_t size;        /* sizeof(struct umbra_boot_info) */
	uint64_t mem_bytes;   /* guest RAM: [0, mem_bytes) */
	uint64_t cmdline_gpa; /* the module's command line, NUL-terminated */
	uint32_t cmdline_len; /* bytes, without the NUL */
	uint32_t vcpu_id;
	char name[32];        /* the guest's name= */
};

/* ---- Results -------------------------------------------------------------------------------
 * Test guests report like QEMU's isa-debug-exit: `out` of v to UMBRA_RESULT_PORT ends the
 * guest with status (v << 1) | 1. UMBRA_RESULT_PASS/FAIL are the values test guests use. */
#define UMBRA_RESULT_PORT 0xf4
#define UMBRA_RESULT_PASS 0x10 /* status 33 */
#define UMBRA_RESULT_FAIL 0x11 /* status 35 */

/* ---- Statistics ----------------------------------------------------------------------------
 * Exit reasons counted per vCPU; the same numbering Umbra's report prints. */
enum umbra_exit_reason {
	UMBRA_EXIT_PAGE_FAULT,
	UMBRA_EXIT_CR_ACCESS,
	UMBRA_EXIT_INVLPG,
	UMBRA_EXIT_HYPERCALL,
	UMBRA_EXIT_IO,
	UMBRA_EXIT_MSR,
	UMBRA_EXIT_CPUID,
	UMBRA_EXIT_HLT,
	UMBRA_EXIT_EXCEPTION,
	UMBRA_EXIT_INTR,
	UMBRA_EXIT_NMI,
	UMBRA_EXIT_SHUTDOWN,
	UMBRA_EXIT_INVALID,
	UMBRA_EXIT_OTHER,
	UMBRA_EXIT_REASONS
};

struct umbra_mmu_stats {
	uint64_t faults_fixed;     /* shadow faults that filled or fixed a shadow entry */
	uint64_t faults_to_guest;  /* faults that were the guest's own, injected */
	uint64_t pages_shadowed;
	uint64_t pages_zapped;
	uint64_t pages_reclaimed;
	uint64_t writes_emulated;  /* guest page-table writes emulated */
	uint64_t flood_zaps;
	uint64_t misaligned_zaps;
	uint64_t root_cache_hits;  /* CR3 loads that found their shadow root cached */
	uint64_t root_cache_misses;
	uint64_t rmap_descs;       /* reverse-map descriptors in use */
	uint64_t unshadowed_unemulated; /* PT writes the emulator could not handle: unshadowed */
};

struct umbra_stats {
	uint32_t size;    /* bytes filled by Umbra */
	uint32_t reasons; /* UMBRA_EXIT_REASONS as Umbra counts them */
	uint64_t exits_total;
	uint64_t exits[UMBRA_EXIT_REASONS];
	struct umbra_mmu_stats mmu;
};

#endif
