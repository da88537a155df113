#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The terminal a run-case.sh --terminal driver works on: tmux's pane, typed into and read back.
# Sourced by the driver with the tmux socket's path as $1. Every wait is for what the screen
# shows, never for a time: it ends when the screen has it, or fails once QEMU has ended (the
# pane is dead) without it, so the case's timeout bounds it.
screen_sock=${1:?usage: DRIVER TMUX_SOCKET}
screen_tmux() { tmux -S "$screen_sock" "$@"; }

# screen_text [capture-pane options]: the screen as text, wrapped lines joined, attributes and
# trailing blanks dropped (-S - adds the history above it).
screen_text() { screen_tmux capture-pane -p -J -t umbra "$@" | sed 's/ *$//'; }

# screen_fail WHY: the driver's verdict, with the whole screen, history included, to judge it.
screen_fail() {
  echo "---- the terminal (history and screen) ----"
  screen_text -S -
  echo "---- end of the terminal ----"
  echo "terminal: $*"
  exit 1
}

# screen_ended: QEMU has ended (its pane stays, dead, with its last screen), or tmux has.
screen_ended() { [ "$(screen_tmux display -p -t umbra '#{pane_dead}' 2>/dev/null)" != 0 ]; }

# screen_wait WHAT CHECK...: until the command CHECK succeeds (it reads the screen itself).
screen_wait() {
  local what=$1; shift
  until "$@"; do
    if screen_ended; then
      "$@" && return 0
      screen_fail "QEMU ended before the screen showed $what"
    fi
    sleep 0.2
  done
}

# screen_has REGEX [capture-pane options]: a line of the screen matches.
screen_has() { local re=$1; shift; screen_text "$@" | grep -qE -- "$re"; }

# screen_last REGEX: the last non-blank line of the screen (where the cursor is) matches.
screen_last() { screen_text | grep -v '^ *$' | tail -n 1 | grep -qE -- "$1"; }

# screen_row N REGEX: the screen's row N (1 is the top) matches.
screen_row() { screen_tmux capture-pane -p -t umbra | sed -n "$1p" | grep -qE -- "$2"; }

# screen_row_drawn N: the screen's row N with its attributes as SGR sequences (tmux writes the
# ones a row starts with only when the capture starts at that row).
screen_row_drawn() { screen_tmux capture-pane -p -e -t umbra -S $(($1 - 1)) -E $(($1 - 1)); }

# screen_cursor X Y: the cursor is at column X, row Y (0-based, as tmux counts).
screen_cursor() { [ "$(screen_tmux display -p -t umbra '#{cursor_x} #{cursor_y}')" = "$1 $2" ]; }

# screen_type TEXT: TEXT typed as it is; screen_keys KEY...: tmux key names (Enter, Escape).
screen_type() { screen_tmux send-keys -t umbra -l -- "$1"; }
screen_keys() { screen_tmux send-keys -t umbra "$@"; }
