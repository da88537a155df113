/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the hostile guests of check-attack: arguments, guarded instructions, ring 3. */
#ifndef ATTACK_H
#define ATTACK_H

#include "tests/guests/lib/guest.h"

/* ---- the command line ----
 * Under Umbra a guest-library image is a multiboot v1 kernel whose command line is "NAME ARGS"
 * (ARGS from `-- ARGS` on its module line); under qemu -kernel it is "PATH ARGS", under GRUB's
 * multiboot just "ARGS". Arguments are looked up among all the words. */
void atk_name(char *buf, size_t size);	       /* the first word (Umbra: the guest's name) */
ulong atk_arg_num(const char *key, ulong def); /* a word KEY=N (0x.. for hex) */
int atk_arg_flag(const char *key);	       /* the word KEY */
int atk_streq(const char *a, const char *b);

/* QEMU's TCG is the CPU (natively, or underneath Umbra: the brand string passes through). */
int on_tcg(void);

/* ---- guarded instructions ----
 * The library's trap handler resumes at fault_recover after an expected fault; ATK_RECOVER sets
 * it to local label 1 (which must follow the instructions). */
#ifdef __x86_64__
#define ATK_RECOVER "movq $1f, fault_recover(%%rip)\n\t"
#else
#define ATK_RECOVER "movl $1f, fault_recover\n\t"
#endif
/* Runs insns (no outputs) and evaluates to the vector they raised, or -1 (NO_FAULT). */
#define NO_FAULT (-1)
/* clang-format off */
#define ATTEMPT(insns, ...) ({ ulong n_ = fault_count; \
	asm volatile(ATK_RECOVER insns "\n1:" : : __VA_ARGS__ : "memory", "cc"); \
	fault_recover = 0; fault_count != n_ ? (int)last_fault.vector : NO_FAULT; })
/* clang-format on */
/* The same for insns that use EAX, EBX, ECX, EDX as scratch (no inputs in those registers). */
/* clang-format off */
#define ATTEMPT_X(insns, ...) ({ ulong n_ = fault_count; \
	asm volatile(ATK_RECOVER insns "\n1:" : : __VA_ARGS__ : "memory", "cc", "ax", "bx", "cx", \
		     "dx"); \
	fault_recover = 0; fault_count != n_ ? (int)last_fault.vector : NO_FAULT; })
/* clang-format on */
/* The same with one output operand (out, e.g. "=r"(x)) and the inputs after it. */
/* clang-format off */
#define ATTEMPT_OUT(insns, out, ...) ({ ulong n_ = fault_count; \
	asm volatile(ATK_RECOVER insns "\n1:" : out : __VA_ARGS__ : "memory", "cc"); \
	fault_recover = 0; fault_count != n_ ? (int)last_fault.vector : NO_FAULT; })
/* clang-format on */
/* The vector since fault_count was n (for hand-written asm with outputs), or NO_FAULT. */
static inline int fault_since(ulong n)
{
	fault_recover = 0;
	return fault_count != n ? (int)last_fault.vector : NO_FAULT;
}

/* "#GP", "#UD", ..., "no fault" for NO_FAULT. */
const char *vec_name(int vector);
/* One result line per case: "attack CASE: #GP as expected", or a failed check. */
void expect_vec(const char *what, int got, int want);
/* A case whose outcome the platform decides (natively on QEMU): printed, not checked. */
void note_vec(const char *what, int got, const char *why);
/* A case made of CHECKs: mark = checks_failed before them; prints "attack CASE: ok" if none
 * failed since, else "attack CASE: FAILED (N checks)" after the failed checks' own lines. */
void case_end(const char *what, ulong mark);

/* ---- more vCPUs (32-bit images) ----
 * Starts vCPU idx of a guest with vcpus=N by VCPU_START: it loads the library's GDT and
 * segments and calls fn on the stack ending at stack_top, with interrupts off (fn never
 * returns). VCPU_START's result (0, or a negative error). */
#ifndef __x86_64__
long atk_vcpu_start(uint32_t idx, void (*fn)(void), void *stack_top);
#endif

/* ---- ring 3 ----
 * user_init() makes a user code page and stack (in long mode it builds and activates its own
 * address space, atk_space, with the identity map of RAM and the two user pages).
 * USER_SNIPPET(name, "insns") assembles insns followed by `int $0x80` (the library's way back
 * to ring 0) into .rodata; user_exec copies it to the user page and runs it at CPL 3 with
 * EAX/EBX/ECX as given. Snippets must be position independent. */
extern struct aspace atk_space;
void user_init(void);
int user_exec(const char *code, const char *end, ulong ax, ulong bx, ulong cx, ulong *ret);
/* The same entered with the given EFLAGS (e.g. IOPL 3: 0x3002). */
int user_exec_flags(const char *code, const char *end, ulong ax, ulong bx, ulong cx, ulong flags,
		    ulong *ret);
#define USER_SNIPPET(name, insns) \
	extern const char name[], name##_end[]; \
	asm(".pushsection .rodata\n" #name ":\n\t" insns "\n\tint $0x80\n" #name \
	    "_end:\n.popsection")
#define USER_RUN(name, ax, bx, cx, ret) user_exec(name, name##_end, ax, bx, cx, ret)
extern ulong
	user_data; /* a user-writable page (identity address in 32-bit, USER_VA+2 pages in long mode) */

#endif
