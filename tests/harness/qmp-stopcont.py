#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""QMP client for run-case.sh --qmp-helper: stops and continues the VM in a loop until QEMU exits.

Each stop/cont pair kicks every vCPU thread out of its execution loop, as a debugger or a
management tool would (docs/testing.md: QEMU's stale exception_index after EVENTINJ). Exits 0
once QEMU has closed the socket after at least --min pairs, 1 otherwise (the case then fails:
a run without the stops proves nothing)."""
import argparse
import json
import os
import socket
import sys
import time


def commands(f, names):
    """Sends names at once (QEMU answers them in order), then reads every answer; False once
    QEMU has gone."""
    f.write("".join(json.dumps({"execute": n}) + "\n" for n in names))
    f.flush()
    answered = 0
    while answered < len(names):  # events ("STOP", "RESUME") come between the answers
        line = f.readline()
        if not line:
            return False
        if '"error"' in line:
            sys.exit(f"qmp-stopcont: {line.strip()}")
        answered += '"return"' in line
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("socket")
    ap.add_argument("--min", type=int, default=1, help="stop/cont pairs needed to pass")
    ap.add_argument("--batch", type=int, default=1, help="pairs sent before reading answers")
    ap.add_argument("--pause", type=float, default=0.005, help="seconds run between batches")
    args = ap.parse_args()

    deadline = time.time() + 60
    while not os.path.exists(args.socket):
        if time.time() > deadline:
            sys.exit("qmp-stopcont: no socket " + args.socket)
        time.sleep(0.05)
    s = socket.socket(socket.AF_UNIX)
    s.connect(args.socket)
    f = s.makefile("rw")
    pairs = 0
    try:
        f.readline()  # the greeting
        if commands(f, ["qmp_capabilities"]):
            while commands(f, ["stop", "cont"] * args.batch):
                pairs += args.batch
                time.sleep(args.pause)
    except (BrokenPipeError, ConnectionResetError):
        pass
    print(f"qmp-stopcont: {pairs} stop/cont pairs")
    sys.exit(0 if pairs >= args.min else 1)


if __name__ == "__main__":
    main()
