#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Exit traces out of a serial log: Chrome/Perfetto trace JSON, and a PNG timeline (gnuplot).

convert.py [--plugin FILE] SERIAL_LOG OUTDIR: every frame "trace: begin guest=G ..." ..
"trace: end guest=G records=N" in the log becomes OUTDIR/G.json (one complete event per exit:
name = reason, pid = guest, tid = vCPU, ts and dur in microseconds from the first exit, Umbra's
cost in args and as a counter; the boot phases as instant events) and, with gnuplot installed,
OUTDIR/G.png (exits and Umbra's cost per millisecond by reason, the phases marked). Prints one
line per frame: guest, records, the cost's unit and sum, and records by reason.

The cost is TSC ticks of the handler, or with --plugin FILE (the out= file of
tests/bench/exitcount.c run with record=trace_record on the same boot) Umbra's exact instructions
of the exit up to its record. The join is by identity, never by position: each dump line carries
its CPU and its number in that CPU's ring (SEQ), and the plugin numbers its "R cpu seq kind
insns" lines the same way, one per record written. It fails, saying why, when the plugin's lines
on a CPU are not numbered 0, 1, 2..., are fewer than the ring's records, or name a CPU without a
ring, or when an exit's kind contradicts its reason: the file is of another run.
"""
import json
import os
import re
import shutil
import subprocess
import sys

REC = re.compile(r"^trace: (\d+) (\d+) (\S+) (0x[0-9a-f]+) (0x[0-9a-f]+) (\d+) (\d+) (\d+)$")
RING = re.compile(r"^trace: ring (\d+) written=(\d+)$")
BEGIN = re.compile(r"^trace: begin guest=(\S+) tsc_hz=(\d+) overwritten=(\d+)$")
END = re.compile(r"^trace: end guest=(\S+) records=(\d+)$")
PHASE = re.compile(r"^trace: phase (\d+) (\S+)$")


def frames(lines):
    """Yields (guest, tsc_hz, records, phases, {cpu: ring written}, declared count) per frame."""
    cur = None
    for line in lines:
        line = line.rstrip("\r\n")
        m = BEGIN.match(line)
        if m:
            cur = (m.group(1), int(m.group(2)), [], [], {})
            continue
        if cur is None:
            continue
        m = REC.match(line)
        if m:
            cur[2].append((int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4), 16),
                           int(m.group(5), 16), int(m.group(6)), int(m.group(7)),
                           int(m.group(8))))
            continue
        m = RING.match(line)
        if m:
            cur[4][int(m.group(1))] = int(m.group(2))
            continue
        m = PHASE.match(line)
        if m:
            cur[3].append((int(m.group(1)), m.group(2)))
            continue
        m = END.match(line)
        if m and m.group(1) == cur[0]:
            yield cur + (int(m.group(2)),)
            cur = None


# An exit of this reason always runs the plugin's tag of this kind before its record (the tags
# of tests/bench/plugin-args.sh): a disagreement means the plugin file is of another run.
KIND_OF = {"cpuid": "cpuid", "hypercall": "hypercall", "io": "io"}


def read_plugin(path):
    """{cpu: [(kind, insns) by seq]} from the plugin's R lines; fails on a gap in the numbering."""
    per = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if not w or w[0] != "R":
                continue
            if len(w) != 5:
                sys.exit("convert: %s:%d: not 'R cpu seq kind insns': %s" % (path, n, line.strip()))
            cpu, seq = int(w[1]), int(w[2])
            got = per.setdefault(cpu, [])
            if seq != len(got):
                sys.exit("convert: %s:%d: CPU %d's record %d follows %d records: not one run's file"
                         % (path, n, cpu, seq, len(got)))
            got.append((w[3], int(w[4])))
    return per


def join(guest, recs, rings, plugin, path):
    """The records with their cost in Umbra's instructions (the plugin's count of that record)."""
    for cpu in sorted(set(plugin) - set(rings)):
        sys.exit("convert: %s: %s has records of CPU %d, the dump of %s has no ring there"
                 % (guest, path, cpu, guest))
    for cpu, written in sorted(rings.items()):
        have = len(plugin.get(cpu, []))
        if have < written:
            sys.exit("convert: %s: CPU %d's ring wrote %d records, %s has %d: not this run's file"
                     % (guest, cpu, written, path, have))
    out = []
    for tsc, v, r, rip, q, tsc_cost, cpu, seq in recs:
        kind, insns = plugin[cpu][seq]
        if r in KIND_OF and kind != KIND_OF[r]:
            sys.exit("convert: %s: CPU %d record %d is a %s exit, %s counts a %s one: not this "
                     "run's file" % (guest, cpu, seq, r, path, kind))
        out.append((tsc, v, r, rip, q, insns, cpu, seq, tsc_cost))
    return out


def to_json(guest, hz, recs, phases, unit):
    t0 = recs[0][0] if recs else 0
    us = lambda tsc: (tsc - t0) * 1e6 / hz
    # The duration stays the exit's time (TSC); the cost, in the frame's unit, is an argument
    # and a counter track beside the vCPU's, so Perfetto draws it.
    ev = [{"name": r, "cat": "exit", "ph": "X", "ts": us(tsc), "dur": tsc_cost * 1e6 / hz,
           "pid": guest, "tid": "vcpu%d" % v,
           "args": {"rip": hex(rip), "qual": hex(q), "cost": cost, "cost_unit": unit}}
          for tsc, v, r, rip, q, cost, _, _, tsc_cost in recs]
    ev += [{"name": "vcpu%d Umbra cost (%s)" % (v, unit), "ph": "C", "ts": us(tsc), "pid": guest,
            "args": {unit: cost}} for tsc, v, _, _, _, cost, _, _, _ in recs]
    ev += [{"name": "phase " + name + " ends", "ph": "i", "s": "g", "ts": us(tsc), "pid": guest,
            "tid": "vcpu0"} for tsc, name in phases]
    return {"traceEvents": ev, "displayTimeUnit": "ns", "otherData": {"cost_unit": unit}}


def to_png(path, guest, hz, recs, phases, unit):
    if not recs or not shutil.which("gnuplot"):
        return False
    t0 = recs[0][0]
    reasons = sorted({r[2] for r in recs})
    buckets, costs = {}, {}
    for tsc, _, r, _, _, cost, _, _, _ in recs:
        b = (tsc - t0) * 1000 // hz
        buckets.setdefault(b, {}).setdefault(r, 0)
        buckets[b][r] += 1
        costs.setdefault(b, {}).setdefault(r, 0)
        costs[b][r] += cost
    dat = path + ".dat"
    with open(dat, "w") as f:
        for b in range(max(buckets) + 1):
            f.write("%d %s %s\n" % (b, " ".join(str(buckets.get(b, {}).get(r, 0)) for r in reasons),
                                    " ".join(str(costs.get(b, {}).get(r, 0)) for r in reasons)))
    marks = "".join("set arrow from %d, graph 0 to %d, graph 1 nohead dt 2\n"
                    "set label 'end of %s' at %d, graph 0.95\n" %
                    ((t - t0) * 1000 // hz, (t - t0) * 1000 // hz, n, (t - t0) * 1000 // hz)
                    for t, n in phases if t >= t0)
    plot = lambda col0: ", ".join("'%s' using 1:%d with lines title '%s'" % (dat, col0 + i, r)
                                  for i, r in enumerate(reasons))
    script = ("set terminal png size 1200,900\nset output '%s'\nset termoption noenhanced\n"
              "set multiplot layout 2,1\nset xlabel 'ms from its first exit'\n%s"
              "set title 'exits of %s'\nset ylabel 'exits per ms'\nplot %s\n"
              "set title \"Umbra's cost of %s's exits, in %s\"\nset ylabel '%s per ms'\nplot %s\n"
              "unset multiplot\n" %
              (path, marks, guest, plot(2), guest, unit, unit, plot(2 + len(reasons))))
    return subprocess.run(["gnuplot"], input=script, text=True).returncode == 0


def main(argv):
    plugin_path = None
    if len(argv) == 5 and argv[1] == "--plugin":
        plugin_path, argv = argv[2], argv[:1] + argv[3:]
    if len(argv) != 3:
        sys.exit("usage: convert.py [--plugin EXITCOUNT_OUT] SERIAL_LOG OUTDIR")
    plugin = read_plugin(plugin_path) if plugin_path else None
    unit = "instructions" if plugin_path else "tsc_ticks"
    os.makedirs(argv[2], exist_ok=True)
    with open(argv[1], errors="replace") as f:
        found = list(frames(f))
    if not found:
        sys.exit("convert: no complete trace frame in " + argv[1])
    for guest, hz, recs, phases, rings, declared in found:
        if declared != len(recs):
            sys.exit("convert: %s: the frame says %d records, %d lines parse" %
                     (guest, declared, len(recs)))
        if plugin is not None:
            recs = join(guest, recs, rings, plugin, plugin_path)
        else:
            recs = [r + (r[5],) for r in recs]
        out = os.path.join(argv[2], guest)
        with open(out + ".json", "w") as f:
            json.dump(to_json(guest, hz, recs, phases, unit), f)
        png = to_png(out + ".png", guest, hz, recs, phases, unit)
        by = {}
        for r in recs:
            by[r[2]] = by.get(r[2], 0) + 1
        print("trace %s: %d records%s, cost in %s: sum=%d: %s" %
              (guest, len(recs), ", png" if png else "", unit, sum(r[5] for r in recs),
               " ".join("%s=%d" % kv for kv in sorted(by.items()))))


if __name__ == "__main__":
    main(sys.argv)
