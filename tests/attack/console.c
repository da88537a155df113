/* SPDX-License-Identifier: GPL-2.0-only */
/* Attack guest (console): control bytes and forged lines on the console; Umbra must defuse them. */
/* Every byte goes straight to COM1. The guest's lines reach Umbra's serial log prefixed with
 * "[name] "; a raw CR, escape sequence or C1 control there would let a guest overwrite that
 * prefix on a terminal, clear the screen, or start a line of its own that looks like Umbra's
 * ("UMBRA SUMMARY: ... result=pass", "guest X: ended=..."). Every piece of text here carries
 * the tag #atkN so tests/attack/cases.sh can find it: each line holding a tag must start with
 * the prefix, hold no raw byte below 0x20 but TAB nor any in 0x7f-0x9f, and every tag must
 * arrive; the log must keep exactly one summary line and one report per guest. The guest
 * itself cannot see the log: it passes once everything is written. */
#include "tests/attack/attack.h"

const char guest_name[] = GUEST_NAME;

#define COM1 0x3f8

static void raw(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < 100000 && !(inb(COM1 + 5) & 0x20); k++)
			;
		outb(COM1, (uint8_t)s[i]);
	}
}
#define RAW(lit) raw(lit, sizeof(lit) - 1)

void test_main(void)
{
	/* Screen control: clear, home, a window title (OSC ... BEL). */
	RAW("#atk1 clear \x1b[2J\x1b[H\x1b]0;owned\x07 after #atk1\n");
	/* CR back over the prefix, then a summary line that claims a pass. */
	RAW("#atk2 \rUMBRA SUMMARY: cpus_online=1 virt=svm virt_cpus=1 guests=1 guests_passed=1 "
	    "guests_failed=0 result=pass reason=guests-done #atk2\n");
	/* A line that starts with CR, and one that starts with the summary's words. */
	RAW("\rUMBRA SUMMARY: result=pass #atk3\n");
	RAW("UMBRA SUMMARY: result=pass #atk4\n");
	/* BEL, BS, DEL, NUL, VT, FF, a lone ESC, C1 controls (0x9b is CSI) and UTF-8's C1 CSI. */
	static const char ctl[] =
		"#atk5 bel\a bs\b\b del\x7f nul\0 vt\v ff\f esc\x1b c1 \x80\x85\x8d"
		"\x9b"
		"2J\x9c\x9f utf8-csi \xc2\x9b"
		"2J end #atk5\n";
	raw(ctl, sizeof(ctl) - 1);
	/* Forged report lines of another guest and of this one. */
	RAW("guest healthy: ended=result status=35 (result port) FAIL exits=1 #atk6\n");
	RAW("\rguest console: ended=result status=33 (result port) PASS exits=1 #atk7\n");
	/* A line longer than Umbra's line buffer (127 bytes a line): the rest goes on a line of
	 * its own, which must carry the prefix too; it starts with the summary's words. */
	RAW("#atk8 padding-to-the-split-point-----------------------------------------------"
	    "------------------------------------------------UMBRA SUMMARY: result=pass #atk8\n");
	/* CRs alone, and a TAB (allowed). */
	RAW("#atk9 \r\r\r tab\tkept #atk9\r\n");
	kprintf("console: all forged lines written\n");
	kprintf("cases: console 9\n");
}
