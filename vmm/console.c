/* SPDX-License-Identifier: GPL-2.0-only */
/* Guest consoles: per-guest line buffers printed with the guest's name, and the input focus. */
#include "vmm/console.h"
#include "arch/x86/console.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/serial.h"
#include "arch/x86/tsc.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "lib/spinlock.h"
#include "vmm/dev/uart.h"
#include "vmm/options.h"
#include "vmm/vm.h"

static struct vm *focus;      /* the guest that gets typed input (atomic; NULL: the first) */
static bool escape_seen;      /* the last byte read was CONSOLE_ESCAPE */
static bool in_monitor;	      /* typed bytes go to the monitor (Ctrl-A c), not a guest */
static spinlock_t input_lock; /* the serial receiver and the two fields above */
/* The line being typed to the monitor, and the last one ended by Enter until the monitor's
 * poll takes it (vmm/monitor.c): the console edits, the monitor only reads what was typed. */
static char typing[CONSOLE_MONITOR_LINE];
static u32 typing_len;
static char typed[CONSOLE_MONITOR_LINE];
static bool typed_ready; /* atomic: set under the input lock, taken by one CPU */

/* With term=raw, the guest with the focus writes to the terminal itself while it runs and the
 * monitor is closed; the other guests' lines wait in their logs (CONSOLE_LOG_LINES each) and are
 * shown, prefixed as always, when the terminal goes back to lines. */
/* The guest that gets typed input, NULL before there is one. */
static struct vm *focus_vm(void)
{
	struct vm *vm = __atomic_load_n(&focus, __ATOMIC_RELAXED);
	return vm ? vm : vm_first;
}

/* Its name, for the console's messages. */
static const char *focus_name(void)
{
	return nr_vms ? focus_vm()->name : "nobody";
}

static bool raw_owner(const struct vm *vm)
{
	return options.term_raw && console_has_focus(vm) && !vm_ended(vm) &&
	       !__atomic_load_n(&in_monitor, __ATOMIC_RELAXED);
}

static bool someone_raw(void)
{
	return nr_vms && raw_owner(focus_vm());
}

/* The lines the terminal has not shown yet, of every guest but a raw one; one line says how
 * many a log let go. */
static void show_waiting(void)
{
	for_each_vm(vm)
	{
		if (raw_owner(vm))
			continue;
		u32 from = vm->con.log_shown;
		if (vm->con.log_count - from > CONSOLE_LOG_LINES) {
			kprintf("[%s] (%u lines not shown: more than the %u kept)\n", vm->name,
				vm->con.log_count - from - CONSOLE_LOG_LINES, CONSOLE_LOG_LINES);
			from = vm->con.log_count - CONSOLE_LOG_LINES;
		}
		for (; from < vm->con.log_count; from++)
			kprintf("[%s] %s\n", vm->name, vm->con.log[from % CONSOLE_LOG_LINES]);
		vm->con.log_shown = vm->con.log_count;
	}
}

void console_flush(struct vm *vm)
{
	if (!vm->con.line_len)
		return;
	vm->con.line[vm->con.line_len] = 0;
	memcpy(vm->con.log[vm->con.log_count++ % CONSOLE_LOG_LINES], vm->con.line,
	       vm->con.line_len + 1);
	vm->con.line_len = 0;
	/* A raw guest's own line was on the terminal as it came; another's waits for its turn. */
	if (raw_owner(vm)) {
		vm->con.log_shown = vm->con.log_count;
		return;
	}
	if (someone_raw())
		return;
	if (vm->con.log_shown + 1 < vm->con.log_count)
		show_waiting();
	kprintf("[%s] %s\n", vm->name, vm->con.log[(vm->con.log_count - 1) % CONSOLE_LOG_LINES]);
	vm->con.log_shown = vm->con.log_count;
}

static void line_put(struct vm *vm, char c)
{
	vm->con.line[vm->con.line_len++] = c;
	if (vm->con.line_len == sizeof(vm->con.line) - 1)
		console_flush(vm);
}

void console_putc(struct vm *vm, char c)
{
	static const char hex[] = "0123456789abcdef";
	u8 b = (u8)c;

	if (raw_owner(vm))
		console_raw_putc(c);
	if (c == '\r')
		return; /* line ends are Umbra's: a guest cannot go back over its prefix */
	if (c == '\n') {
		if (!vm->con.line_len && !raw_owner(vm) && !someone_raw()) {
			kprintf("[%s]\n", vm->name);
			return;
		}
		console_flush(vm);
		return;
	}
	/* C0 controls, DEL and C1 bytes would let a guest move the cursor or forge Umbra's own
	 * lines on a terminal: they are shown (and logged) escaped. */
	if ((b < 0x20 && c != '\t') || (b >= 0x7f && b <= 0x9f)) {
		line_put(vm, '\\');
		line_put(vm, 'x');
		line_put(vm, hex[b >> 4]);
		line_put(vm, hex[b & 15]);
		return;
	}
	line_put(vm, c);
}

/* The terminal went back to lines (the focus moved, the monitor opened, the raw guest ended). */
void console_lines_again(void)
{
	if (options.term_raw && !someone_raw())
		show_waiting();
}

void console_focus_init(const char *name)
{
	struct vm *vm = name ? vm_by_name(name) : NULL;
	if (vm) {
		focus = vm;
		return;
	}
	if (name)
		kprintf("umbra: console=%s names no guest; input goes to %s\n", name,
			vm_first ? vm_first->name : "nobody");
}

bool console_has_focus(const struct vm *vm)
{
	return nr_vms && focus_vm() == vm;
}

void console_focus_set(struct vm *vm)
{
	__atomic_store_n(&focus, vm, __ATOMIC_RELAXED);
	kprintf("umbra: console input goes to %s\n", vm->name);
	console_lines_again();
	/* Its CPU may sleep until a far deadline: it polls for input from now on. */
	if (vm->cpu != (u32)this_cpu_index())
		lapic_send_fixed(percpus[vm->cpu].apic_id, KICK_VECTOR);
}

static void focus_next(void)
{
	struct vm *vm = focus_vm();
	for (u32 step = 1; vm && step <= nr_vms; step++) {
		vm = vm->next ? vm->next : vm_first;
		if (!vm_ended(vm)) {
			console_focus_set(vm);
			return;
		}
	}
	kprintf("umbra: no running guest to give the console to\n");
}

/* One typed byte after Ctrl-A. False if it is to be passed to the guest as Ctrl-A. */
static bool escape_key(int c)
{
	switch (c) {
	case 'n':
		focus_next();
		return true;
	case 'a':
		return false;
	case 'c':
		in_monitor = !in_monitor;
		kprintf(in_monitor ? "umbra: monitor (help lists the commands; Ctrl-A c leaves)\n"
				   : "umbra: monitor closed; input goes to %s\n",
			focus_name());
		console_lines_again();
		return true;
	default:
		kprintf("umbra: keys: Ctrl-A n (console to the next guest), Ctrl-A c (the monitor), "
			"Ctrl-A a (send Ctrl-A); input goes to %s\n",
			focus_name());
		return true;
	}
}

/* One byte typed while the monitor has the console (under the input lock, perhaps inside an
 * exit): edits the line; Enter hands it to the monitor's poll. */
static void monitor_key(int c)
{
	if (c == '\r' || c == '\n') {
		if (!typing_len)
			return;
		typing[typing_len] = 0;
		typing_len = 0;
		if (__atomic_load_n(&typed_ready, __ATOMIC_ACQUIRE)) {
			kprintf("monitor: busy or too long, line dropped\n");
			return;
		}
		memcpy(typed, typing, sizeof(typed));
		__atomic_store_n(&typed_ready, true, __ATOMIC_RELEASE);
		return;
	}
	if (c == 0x7f || c == 8) {
		if (typing_len)
			typing_len--;
		return;
	}
	/* Printable bytes only; the rest of a too long line is dropped. */
	if (c >= 0x20 && c < 0x7f && typing_len < sizeof(typing) - 1)
		typing[typing_len++] = (char)c;
}

bool console_monitor_line(char *buf, size_t size)
{
	if (!__atomic_load_n(&typed_ready, __ATOMIC_ACQUIRE))
		return false;
	spin_lock(&input_lock);
	bool mine = __atomic_load_n(&typed_ready, __ATOMIC_ACQUIRE);
	if (mine) {
		size_t n = strnlen(typed, size - 1);
		memcpy(buf, typed, n);
		buf[n] = 0;
		__atomic_store_n(&typed_ready, false, __ATOMIC_RELEASE);
	}
	spin_unlock(&input_lock);
	return mine;
}

/* Does the scheduler's loop read the keys (the focus guest does not read for itself)? */
static bool keys_read_by_loop(const struct vm *owner)
{
	bool owner_held =
		owner->vcpus[0].debug_stop || __atomic_load_n(&owner->paused, __ATOMIC_RELAXED);
	return vm_ended(owner) || __atomic_load_n(&in_monitor, __ATOMIC_RELAXED) || owner_held;
}

u64 console_keys_deadline(u64 now_tsc)
{
	if (!nr_vms || !keys_read_by_loop(focus_vm()))
		return 0;
	return now_tsc + ns_to_tsc(CONSOLE_POLL_NS);
}

void console_poll_input(struct vm *vm)
{
	if (!nr_vms)
		return;
	struct vm *owner = focus_vm();
	bool to_guest = vm == owner && !vm_ended(vm);
	if (vm && !to_guest)
		return;
	/* The owner's CPU reads for it, unless it does not run it now (held by gdb or paused:
	 * what is typed to it meanwhile is dropped) or the monitor has the input. */
	if (!vm && !keys_read_by_loop(owner))
		return;
	spin_lock(&input_lock);
	while (!to_guest || in_monitor || uart_input_room(&vm->board.com1)) {
		int c = serial_getc();
		if (c < 0)
			break;
		if (escape_seen) {
			escape_seen = false;
			if (escape_key(c))
				break; /* the focus may have moved: stop feeding this guest */
			c = CONSOLE_ESCAPE;
		} else if (c == CONSOLE_ESCAPE) {
			escape_seen = true;
			continue;
		}
		if (in_monitor)
			monitor_key(c);
		else if (to_guest)
			uart_input_push(&vm->board.com1, (u8)c);
	}
	spin_unlock(&input_lock);
}

void console_log_print(const struct vm *vm, const char *who)
{
	const struct console *c = &vm->con;
	u32 n = c->log_count < CONSOLE_LOG_LINES ? c->log_count : CONSOLE_LOG_LINES;
	kprintf("%s: log %s: last %u lines\n", who, vm->name, n);
	for (u32 i = c->log_count - n; i < c->log_count; i++)
		kprintf("%s:   %s\n", who, c->log[i % CONSOLE_LOG_LINES]);
}
