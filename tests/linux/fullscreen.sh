#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-linux's linux-interactive driver (run-case.sh --terminal): a user at make run-linux's
# shell, Umbra with term=raw, in an 80x24 tmux terminal: ls, a sum, vi (type, :wq), cat, top.
set -u
. "$(dirname "$0")/../harness/screen.sh"
text="written in vi under Umbra"
prompt='^/ #$'

# What a terminal shows of an escape sequence it did not take: Umbra's sanitized form (\x1b),
# a tty's caret form (^[), or the sequence's tail after a lost ESC ([24;80R, [0m).
escape_text='\\x1b|\^\[|\[[0-9]+(;[0-9]+)*[A-HJKfmnR]'

# cmd LINE WHAT CHECK...: types LINE and Enter, then waits for CHECK and the next prompt.
cmd() {
  local line=$1 what=$2; shift 2
  screen_type "$line"; screen_keys Enter
  screen_wait "$what after '$line'" done_with "$@"
}
done_with() { "$@" && screen_last "$prompt"; }
# screen_is LINE...: the screen's non-blank lines are exactly these.
screen_is() { [ "$(screen_text | grep -v '^ *$')" = "$(printf '%s\n' "$@")" ]; }
vi_empty() {
  screen_row 24 '^- /tmp/f ' && screen_row 2 '^~$' && screen_row 23 '^~$' && screen_cursor 0 0
}
typed() { screen_row 1 "^$text\$" && screen_cursor ${#text} 0; }

screen_wait "the shell's prompt" done_with screen_has "^Enter 'help' for a list"
# A serial line has no window size (0x0), so busybox vi would ask the terminal (ESC [6n) and
# wait 100 ms for the answer: a race on a loaded machine. A serial console's user sets it, and
# keeps the kernel's late messages off the screen being checked (dmesg -n 1).
cmd "stty rows 24 cols 80; dmesg -n 1; ls /" "the root's listing" \
  screen_has '^bin .*\bproc\b.*\bsys\b'
cmd 'echo sum=$((6*7))' "the sum" screen_has '^sum=42$'

# vi draws its whole screen (cursor addressing: tildes to row 23, its status line on row 24),
# takes typed text, and Escape alone (busybox waits 50 ms for more after an ESC, so nothing is
# typed until the cursor shows it took it: back onto the last character).
screen_type "vi /tmp/f"; screen_keys Enter
screen_wait "vi's empty file" vi_empty
screen_type "i$text"
screen_wait "the typed line in vi" typed
! screen_has "$escape_text" || screen_fail "escape sequences shown as text in vi"
screen_keys Escape
screen_wait "vi's command mode" screen_cursor $((${#text} - 1)) 0
screen_type ":wq"
screen_wait "vi's command line" screen_row 24 '^:wq$'
screen_keys Enter
screen_wait "the shell's screen back after vi" done_with screen_has '^/ # vi /tmp/f$'

# clear (ESC [H ESC [J) leaves exactly the file and its size (the line and its newline).
cmd "clear; cat /tmp/f; wc -c < /tmp/f" "the file" screen_is "$text" $((${#text} + 1)) "/ #"

# top draws one frame; the prompt after it scrolls the first line into the history.
cmd "top -n 1" "top's frame" screen_has '^ +PID +PPID +USER +STAT +VSZ +%VSZ +%CPU +COMMAND$' -S -24
screen_has '^Mem: [0-9]+K used, [0-9]+K free' -S -24 || screen_fail "top drew no Mem: line"
screen_has '^ +[0-9]+ +[0-9]+ .* top -n 1$' -S -24 || screen_fail "top did not list itself"
! screen_has "$escape_text" -S - || screen_fail "escape sequences shown as text: $(
  screen_text -S - | grep -E -- "$escape_text" | head -n 3)"

# Umbra's summary, after the guest's raw output, is the last line, a line of its own, and
# does not carry the attributes the guest left on (reverse video, then the kernel's last line).
screen_type "printf '\\033[7m'; poweroff -f"; screen_keys Enter
screen_wait "QEMU's end" screen_ended
last=$(screen_text | grep -v -e '^ *$' -e '^Pane is dead' | tail -n 1)
[[ $last =~ ^UMBRA\ SUMMARY:\ .*result=pass ]] || screen_fail "the last line is not the summary: $last"
row=$(screen_tmux capture-pane -p -t umbra | grep -n '^UMBRA SUMMARY: ' | tail -n 1 | cut -d: -f1)
[[ $(screen_row_drawn "$row") == "UMBRA SUMMARY: "* ]] ||
  screen_fail "the summary is drawn with the guest's attributes: $(screen_row_drawn "$row" | cat -v)"
screen_has '^guest linux: ended=poweroff ' || screen_fail "no line says the guest ended"
echo "terminal: vi wrote /tmp/f, top drew its frame, the summary ends the screen"
