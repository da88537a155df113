#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Exit traces out of a serial log: Chrome/Perfetto trace JSON, and a PNG timeline (gnuplot).

convert.py SERIAL_LOG OUTDIR: every frame "trace: begin guest=G ..." .. "trace: end guest=G
records=N" in the log becomes OUTDIR/G.json (one complete event per exit: name = reason,
pid = guest, tid = vCPU, ts and dur in microseconds from the first exit; the boot phases as
instant events) and, with gnuplot installed, OUTDIR/G.png (exits per millisecond by reason, the
phases marked). Prints one line per frame: guest, records, and records by reason.
"""
import json
import os
import re
import shutil
import subprocess
import sys

REC = re.compile(r"^trace: (\d+) (\d+) (\S+) (0x[0-9a-f]+) (0x[0-9a-f]+) (\d+)$")
BEGIN = re.compile(r"^trace: begin guest=(\S+) tsc_hz=(\d+) overwritten=(\d+)$")
END = re.compile(r"^trace: end guest=(\S+) records=(\d+)$")
PHASE = re.compile(r"^trace: phase (\d+) (\S+)$")


def frames(lines):
    """Yields (guest, tsc_hz, records, phases, declared count) for each complete frame."""
    cur = None
    for line in lines:
        line = line.rstrip("\r\n")
        m = BEGIN.match(line)
        if m:
            cur = (m.group(1), int(m.group(2)), [], [])
            continue
        if cur is None:
            continue
        m = REC.match(line)
        if m:
            cur[2].append((int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4), 16),
                           int(m.group(5), 16), int(m.group(6))))
            continue
        m = PHASE.match(line)
        if m:
            cur[3].append((int(m.group(1)), m.group(2)))
            continue
        m = END.match(line)
        if m and m.group(1) == cur[0]:
            yield cur + (int(m.group(2)),)
            cur = None


def to_json(guest, hz, recs, phases):
    t0 = recs[0][0] if recs else 0
    us = lambda tsc: (tsc - t0) * 1e6 / hz
    ev = [{"name": r, "cat": "exit", "ph": "X", "ts": us(tsc), "dur": cost * 1e6 / hz,
           "pid": guest, "tid": "vcpu%d" % v, "args": {"rip": hex(rip), "qual": hex(q)}}
          for tsc, v, r, rip, q, cost in recs]
    ev += [{"name": "phase " + name + " ends", "ph": "i", "s": "g", "ts": us(tsc), "pid": guest,
            "tid": "vcpu0"} for tsc, name in phases]
    return {"traceEvents": ev, "displayTimeUnit": "ns"}


def to_png(path, guest, hz, recs, phases):
    if not recs or not shutil.which("gnuplot"):
        return False
    t0 = recs[0][0]
    reasons = sorted({r[2] for r in recs})
    buckets = {}
    for tsc, _, r, _, _, _ in recs:
        b = (tsc - t0) * 1000 // hz
        buckets.setdefault(b, {}).setdefault(r, 0)
        buckets[b][r] += 1
    dat = path + ".dat"
    with open(dat, "w") as f:
        for b in range(max(buckets) + 1):
            f.write("%d %s\n" % (b, " ".join(str(buckets.get(b, {}).get(r, 0)) for r in reasons)))
    marks = "".join("set arrow from %d, graph 0 to %d, graph 1 nohead dt 2\n"
                    "set label 'end of %s' at %d, graph 0.95\n" %
                    ((t - t0) * 1000 // hz, (t - t0) * 1000 // hz, n, (t - t0) * 1000 // hz)
                    for t, n in phases if t >= t0)
    plot = ", ".join("'%s' using 1:%d with lines title '%s'" % (dat, i + 2, r)
                     for i, r in enumerate(reasons))
    script = ("set terminal png size 1200,500\nset output '%s'\nset title 'exits of %s'\n"
              "set xlabel 'ms from its first exit'\nset ylabel 'exits per ms'\nset termoption noenhanced\n"
              "%splot %s\n" %
              (path, guest, marks, plot))
    return subprocess.run(["gnuplot"], input=script, text=True).returncode == 0


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: convert.py SERIAL_LOG OUTDIR")
    os.makedirs(argv[2], exist_ok=True)
    with open(argv[1], errors="replace") as f:
        found = list(frames(f))
    if not found:
        sys.exit("convert: no complete trace frame in " + argv[1])
    for guest, hz, recs, phases, declared in found:
        if declared != len(recs):
            sys.exit("convert: %s: the frame says %d records, %d lines parse" %
                     (guest, declared, len(recs)))
        out = os.path.join(argv[2], guest)
        with open(out + ".json", "w") as f:
            json.dump(to_json(guest, hz, recs, phases), f)
        png = to_png(out + ".png", guest, hz, recs, phases)
        by = {}
        for r in recs:
            by[r[2]] = by.get(r[2], 0) + 1
        print("trace %s: %d records%s: %s" % (guest, len(recs), ", png" if png else "",
                                              " ".join("%s=%d" % kv for kv in sorted(by.items()))))


if __name__ == "__main__":
    main(sys.argv)
