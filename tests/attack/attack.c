/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the hostile guests of check-attack (linked into each of them). */
#include "tests/attack/attack.h"

/* Runs ring-3 code at ip with the stack at sp and the given EFLAGS until it traps: the
 * library's user_call (entry.S) with the flags as a parameter (it always enters with 2, IOPL
 * 0). The library's trap handler ends it through user_return, which restores the registers
 * saved here from user_saved_sp: the same pushes, in the same order, as user_call. */
ulong user_call_fl(ulong ip, ulong sp, ulong ax, ulong bx, ulong cx, ulong flags);
asm(".text\n.globl user_call_fl\nuser_call_fl:\n"
#ifdef __x86_64__
    "push %rbp\n push %rbx\n push %r12\n push %r13\n push %r14\n push %r15\n"
    "mov %rsp, user_saved_sp(%rip)\n"
    "mov %rdx, %rax\n mov %rcx, %rbx\n mov %r8, %rcx\n"
    "push $0x2b\n push %rsi\n push %r9\n push $0x33\n push %rdi\n iretq\n"
#else
    "push %ebp\n push %ebx\n push %esi\n push %edi\n mov %esp, user_saved_sp\n"
    "mov 20(%esp), %edx\n mov 24(%esp), %esi\n mov 28(%esp), %eax\n mov 32(%esp), %ebx\n"
    "mov 36(%esp), %ecx\n mov 40(%esp), %edi\n"
    "push $0x2b\n push %esi\n push %edi\n push $0x23\n push %edx\n"
    "mov $0x2b, %si\n mov %si, %ds\n mov %si, %es\n iret\n"
#endif
);

#ifndef __x86_64__
/* VCPU_START's 32-bit entry: EAX its index, EBX the argument (fn), ESP given. */
asm(".text\n"
    "atk_ap_entry:\n"
    "	lgdt atk_gdtd\n"
    "	ljmp $0x08, $1f\n"
    "1:	mov $0x10, %cx\n"
    "	mov %cx, %ds\n mov %cx, %es\n mov %cx, %ss\n mov %cx, %fs\n mov %cx, %gs\n"
    "	call *%ebx\n"
    "2:	cli\n hlt\n jmp 2b\n"
    ".data\n"
    ".align 4\n"
    "atk_gdtd: .word 71\n" /* the library's GDT: 9 descriptors */
    "	.long gdt\n"
    ".text\n");
extern char atk_ap_entry[];

long atk_vcpu_start(uint32_t idx, void (*fn)(void), void *stack_top)
{
	return umbra_hypercall4(UMBRA_HC_VCPU_START, idx, (ulong)atk_ap_entry, (ulong)stack_top,
				(ulong)fn);
}
#endif

void atk_name(char *buf, size_t size)
{
	size_t i = 0;
	for (; boot_cmdline[i] && boot_cmdline[i] != ' ' && i + 1 < size; i++)
		buf[i] = boot_cmdline[i];
	buf[i] = 0;
}

int atk_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The word starting at s equals key, followed by '=' (eq) or by a blank/end (!eq). */
static const char *match_word(const char *s, const char *key, int eq)
{
	while (*key && *s == *key)
		s++, key++;
	if (*key)
		return 0;
	if (eq)
		return *s == '=' ? s + 1 : 0;
	return (*s == ' ' || !*s) ? s : 0;
}

static const char *next_word(const char *s)
{
	while (*s && *s != ' ')
		s++;
	while (*s == ' ')
		s++;
	return s;
}

ulong atk_arg_num(const char *key, ulong def)
{
	for (const char *s = boot_cmdline; *s; s = next_word(s)) {
		const char *v = match_word(s, key, 1);
		if (!v)
			continue;
		ulong n = 0, base = 10;
		if (v[0] == '0' && v[1] == 'x')
			base = 16, v += 2;
		for (;; v++) {
			unsigned d = *v >= '0' && *v <= '9'   ? (unsigned)(*v - '0')
				     : *v >= 'a' && *v <= 'f' ? (unsigned)(*v - 'a' + 10)
							      : 99;
			if (d >= base)
				return n;
			n = n * base + d;
		}
	}
	return def;
}

int atk_arg_flag(const char *key)
{
	for (const char *s = boot_cmdline; *s; s = next_word(s))
		if (match_word(s, key, 0))
			return 1;
	return 0;
}

int on_tcg(void)
{
	static int known, tcg;
	if (!known && cpuid(0x80000000u, 0).a >= 0x80000002u)
		tcg = cpuid(0x80000002u, 0).a == 0x554d4551u; /* "QEMU" */
	known = 1;
	return tcg;
}

const char *vec_name(int vector)
{
	static const char *const names[] = {
		"#DE", "#DB",	   "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
		"#DF", "vector 9", "#TS", "#NP", "#SS", "#GP", "#PF", "vector 15",
		"#MF", "#AC",	   "#MC", "#XM", "#VE", "#CP",
	};
	if (vector == NO_FAULT)
		return "no fault";
	if (vector >= 0 && vector < (int)(sizeof(names) / sizeof(names[0])))
		return names[vector];
	return "another vector";
}

void expect_vec(const char *what, int got, int want)
{
	if (got == want)
		kprintf("attack %s: %s as expected\n", what, vec_name(want));
	else
		check_failed("attack %s: %s (vector %d), expected %s", what, vec_name(got), got,
			     vec_name(want));
}

void note_vec(const char *what, int got, const char *why)
{
	kprintf("attack %s: %s (%s)\n", what, vec_name(got), why);
}

void case_end(const char *what, ulong mark)
{
	if (checks_failed == mark)
		kprintf("attack %s: ok\n", what);
	else
		kprintf("attack %s: FAILED (%lu checks)\n", what, checks_failed - mark);
}

/* ---- ring 3 ---- */
struct aspace atk_space;
ulong user_data;
static ulong user_code, user_code_pa, user_stack;

void user_init(void)
{
	if (user_code)
		return;
	ulong code = page_alloc(), stack = page_alloc(), data = page_alloc();
	user_code_pa = code;
	if (GUEST_MODE == PM_OFF) {
		/* No paging: the flat user segments reach every address. */
		user_code = code, user_stack = stack, user_data = data;
		return;
	}
	as_init(&atk_space, GUEST_MODE);
	map_page(&atk_space, USER_VA, code, 1, PTE_P | PTE_U);
	map_page(&atk_space, USER_VA + PAGE_SIZE, stack, 1, PTE_P | PTE_W | PTE_U);
	map_page(&atk_space, USER_VA + 2 * PAGE_SIZE, data, 1, PTE_P | PTE_W | PTE_U);
	as_activate(&atk_space);
	user_code = USER_VA, user_stack = USER_VA + PAGE_SIZE, user_data = USER_VA + 2 * PAGE_SIZE;
}

int user_exec(const char *code, const char *end, ulong ax, ulong bx, ulong cx, ulong *ret)
{
	return user_exec_flags(code, end, ax, bx, cx, 2, ret);
}

int user_exec_flags(const char *code, const char *end, ulong ax, ulong bx, ulong cx, ulong flags,
		    ulong *ret)
{
	user_init();
	char *d = (char *)user_code_pa;
	for (const char *s = code; s < end; s++)
		*d++ = *s;
	ulong n = fault_count;
	ulong v = user_call_fl(user_code, user_stack + PAGE_SIZE - 16, ax, bx, cx, flags);
	if (fault_count == n)
		return -2; /* cannot happen: ring 3 always comes back through a trap */
	if (last_fault.vector != 0x80)
		return (int)last_fault.vector;
	if (ret)
		*ret = v;
	return NO_FAULT;
}
