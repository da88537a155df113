#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Reads the exitcount plugin's trace: Umbra instructions per exit by kind, and per workload op."""
# insns.py TRACE BENCHLOG CSV ELF
# insns.py --linux OPS TRACE LBENCHLOG CSV: the Linux workloads (tests/linux/bench.sh): ubench
#   calls STATS twice around each workload, in the order its LBENCH lines name them
#   TRACE     the plugin's output (tests/bench/exitcount.c: E, M, T and P lines)
#   BENCHLOG  the bench guest's BENCH lines, each followed by a BENCH_SNAPS line (snap= names
#             the first STATS call of the workload, pairs= how many consecutive pairs it measured)
#   CSV       results.csv: rows are appended (mode "cached", as the plugin runs that mode)
#   ELF       umbra.elf, to name the functions of a profile (P lines)
# The modelled hardware cost of an operation is exits x BENCH_VMRT_CYCLES (a VM round trip,
# default 1400 cycles) + Umbra's instructions / BENCH_IPC (default 1.0): see docs/bench.md.
import os
import subprocess
import sys

# Exits a host interrupt ended (the slice timer): they come with elapsed time, not with the
# work, and the bench's exit counts leave them out too.
TIMED = {"hostirq"}
HOT = ["cr3", "fill", "ptwrite", "io", "hypercall"]


def model():
    """The cost model's parameters: VM round trip in cycles, instructions per cycle."""
    return (float(os.environ.get("BENCH_VMRT_CYCLES", "1400")),
            float(os.environ.get("BENCH_IPC", "1.0")))


def pct(sorted_vals, p):
    """The p-th percentile by nearest rank."""
    if not sorted_vals:
        return 0
    k = max(1, -(-len(sorted_vals) * p // 100))
    return sorted_vals[min(k, len(sorted_vals)) - 1]


def kind_table(exits, rows, what):
    """Prints exits, median, p99 and max of Umbra's instructions per exit kind; adds CSV rows."""
    print("\nUmbra instructions per exit, #VMEXIT to VMRUN (QEMU TCG plugin, %s, exact):" % what)
    print("%-10s %8s %8s %8s %8s" % ("kind", "exits", "median", "p99", "max"))
    kinds = sorted({k for k, _, _ in exits}, key=lambda k: (HOT.index(k) if k in HOT else 99, k))
    per_kind = {}
    for k in kinds:
        v = sorted(u for kk, u, _ in exits if kk == k)
        per_kind[k] = v
        print("%-10s %8d %8d %8d %8d" % (k, len(v), pct(v, 50), pct(v, 99), v[-1]))
        rows += [("exit-kind", "kind=" + k, "exits", len(v)),
                 ("exit-kind", "kind=" + k, "umbra_insns_median", pct(v, 50)),
                 ("exit-kind", "kind=" + k, "umbra_insns_p99", pct(v, 99))]
    return per_kind


def read_trace(trace):
    """Exits (kind, Umbra insns, guest insns before), marks (exit index), totals, profile."""
    exits, marks, totals, prof = [], [], "", []
    with open(trace) as f:
        for line in f:
            w = line.split()
            if w[0] == "E":
                exits.append((w[2], int(w[3]), int(w[4])))
            elif w[0] == "M":
                marks.append(int(w[2]))
            elif w[0] == "T":
                totals = " ".join(w[2:])
            elif w[0] == "P":
                prof.append((int(w[1], 16), int(w[2])))
    return exits, marks, totals, prof


def linux(ops, trace, lbench, csv):
    """Umbra's and the guest's instructions per operation of each ubench workload."""
    rt, ipc = model()
    exits, marks, _, _ = read_trace(trace)
    order = []
    with open(lbench) as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] == "LBENCH" and w[1] not in order:
                order.append(w[1])
    if 2 * len(order) > len(marks):
        print("insns: %d workloads but %d STATS marks" % (len(order), len(marks)), file=sys.stderr)
        sys.exit(1)
    rows = []
    kind_table(exits, rows, "Linux guest, boot and workloads")
    with open(csv, "a") as out:
        for _, params, metric, value in rows:
            out.write("cached,exit-kind,%s,%s,%s\n" % (params, metric, value))
        for k, wl in enumerate(order):
            a, b = marks[2 * k], marks[2 * k + 1]
            # All exits between the two calls, as ubench's own exit counts (exits_total).
            umbra = sum(u for _, u, _ in exits[a + 1:b])
            guest = sum(g for _, _, g in exits[a + 1:b + 1])
            print("bench-linux: %-5s %10.1f Umbra instructions/op %12.1f guest instructions/op "
                  "(%d exits)" % (wl, umbra / ops, guest / ops, b - a - 1))
            out.write("cached,%s,ops=%d,umbra_insns_per_op,%d\n" % (wl, ops, round(umbra / ops)))
            out.write("cached,%s,ops=%d,guest_insns_per_op,%d\n" % (wl, ops, round(guest / ops)))
            out.write("cached,%s,ops=%d,model_cycles_per_op,%d\n" %
                      (wl, ops, round(((b - a - 1) * rt + umbra / ipc) / ops)))


def main():
    if sys.argv[1] == "--linux":
        linux(int(sys.argv[2]), *sys.argv[3:6])
        return
    trace, benchlog, csv, elf = sys.argv[1:5]
    rt, ipc = model()
    exits, marks, totals, prof = read_trace(trace)
    rows = []
    per_kind = kind_table(exits, rows, "cached mode")
    print("totals:", totals)

    print("\nPer operation (exits less host-interrupt ones; model = exits x %g cycles + Umbra "
          "instructions / IPC %g):" % (rt, ipc))
    print("%-10s %-22s %9s %12s %12s %14s" % ("workload", "params", "exits/op", "umbra ins/op",
                                              "guest ins/op", "model cyc/op"))
    per_op = {}
    # Each window's exits, one cost each: the medians below are the cost of one operation's
    # exit whatever the host's load (a mean takes in the few exits that do time-driven work,
    # a device's deadline passed, whose number depends on how fast the emulator ran).
    per_window = {}
    with open(benchlog) as f:
        lines = f.read().splitlines()
    for line, nxt in zip(lines, lines[1:] + [""]):
            if not line.startswith("BENCH ") or not nxt.startswith("BENCH_SNAPS "):
                continue
            kv = dict(t.split("=", 1) for t in (line + " " + nxt).split() if "=" in t)
            wl, ops = kv["workload"], int(kv["ops"])
            params = " ".join(t for t in line.split()[1:]
                              if "=" in t and t.split("=")[0] not in
                              ("workload", "ops", "cycles_per_op", "exits_per_op_x1000",
                               "faults_per_op_x1000", "snap", "pairs"))
            s0, pairs = int(kv["snap"]), int(kv["pairs"])
            if s0 + 2 * pairs > len(marks):
                print("insns: %s %s: snapshot %d has no mark in the trace (%d marks)" %
                      (wl, params, s0 + 2 * pairs - 1, len(marks)), file=sys.stderr)
                sys.exit(1)
            n = umbra = guest = 0
            for p in range(pairs):
                a, b = marks[s0 + 2 * p], marks[s0 + 2 * p + 1]
                for i in range(a + 1, b + 1):
                    k, u, g = exits[i]
                    guest += g
                    if i < b and k not in TIMED:
                        n += 1
                        umbra += u
                        per_window.setdefault((wl, params), []).append(u)
            # A forkflood rewrite's flush: the CR3 load after the closing STATS call, where the
            # stores' out-of-sync table catches up (the first exit there not timer-driven).
            then = 0
            if "then_cr3_cycles_per_op" in kv:
                for p in range(pairs):
                    b = marks[s0 + 2 * p + 1]
                    nxt = [e for e in exits[b + 1:b + 4] if e[0] not in TIMED][:1]
                    if not nxt or nxt[0][0] != "cr3":
                        print("insns: %s %s: no CR3 load after round %d" % (wl, params, p),
                              file=sys.stderr)
                        sys.exit(1)
                    then += nxt[0][1]
                rows.append((wl, params, "umbra_insns_then_cr3_per_op",
                             round((umbra + then) / ops)))
            cost = (n * rt + umbra / ipc) / ops
            per_op[(wl, params)] = (n / ops, umbra / ops)
            print("%-10s %-22s %9.3f %12.1f %12.1f %14.1f" % (wl, params, n / ops, umbra / ops,
                                                            guest / ops, cost))
            if "then_cr3_cycles_per_op" in kv:
                print("%-10s %-22s %9s %12.1f   (with the CR3 load that follows)" %
                      ("", "", "", (umbra + then) / ops))
            rows += [(wl, params, "plugin_exits_per_op_x1000", round(n * 1000 / ops)),
                     (wl, params, "umbra_insns_per_op", round(umbra / ops)),
                     (wl, params, "guest_insns_per_op", round(guest / ops)),
                     (wl, params, "model_cycles_per_op", round(cost))]
    with open(csv, "a") as f:
        for wl, params, metric, value in rows:
            f.write("cached,%s,%s,%s,%s\n" % (wl, params, metric, value))

    if prof:
        # The profile: per function, instructions per exit of the profiled kind.
        kind = os.environ.get("BENCH_PROFILE", "").split(",")[0]
        opts = dict(o.split("=", 1) for o in os.environ.get("BENCH_PROFILE", "").split(",")
                    if "=" in o)
        hi, lo = int(opts.get("profile_max", 1 << 62)), int(opts.get("profile_min", 0))
        nexits = max(1, len([u for u in per_kind.get(kind, []) if lo <= u <= hi]))
        names = subprocess.run(["addr2line", "-f", "-e", elf] + ["0x%x" % a for a, _ in prof],
                               capture_output=True, text=True).stdout.split("\n")[0::2]
        by_fn = {}
        for (_, n), name in zip(prof, names):
            by_fn[name] = by_fn.get(name, 0) + n
        print("\nprofile of %s exits: instructions per exit by function" % kind)
        for name, n in sorted(by_fn.items(), key=lambda t: -t[1])[:80]:
            print("%8.1f %s" % (n / nexits, name))

    # The hot cases as the targets name them, for run.sh (one line, key=value).
    def window_median(wl, params):
        us = sorted(per_window.get((wl, params), []))
        return pct(us, 50) if us else -1
    print("INSNS cr3_switch=%d null_median=%d fill_median=%d ptwrite_median=%d" %
          (window_median("ctxswitch", "P=8 W=16"), window_median("nullcall", "call=version"),
           pct(per_kind.get("fill", []), 50) if per_kind.get("fill") else -1,
           pct(per_kind.get("ptwrite", []), 50) if per_kind.get("ptwrite") else -1))


main()
