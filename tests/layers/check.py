#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""check-layers: every #include and every linked symbol of Umbra against docs/design.md's matrix.

usage: check.py DESIGN_MD OBJDIR SOURCE...   (sources as the Makefile builds them; their
directories' headers are checked too; objects are OBJDIR/<source>.o)
Prints one line per checked file or object ("ok"/"not ok"), then checks that mutations of the
matrix are caught, and ends with "layers: N passed, M failed".
"""
import os
import re
import subprocess
import sys


def tables(design):
    """The layer and upcall tables that follow their <!-- layers --> / <!-- upcalls --> markers."""
    found = {}
    lines = open(design).read().splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"<!-- (layers|upcalls):", line)
        if not m:
            continue
        rows = []
        for row in lines[i + 1:]:
            if not row.startswith("|"):
                break
            cells = [c.strip().strip("`") for c in row.strip("|").split("|")]
            if set(cells[0]) <= set("- "):
                continue
            rows.append(cells)
        found[m.group(1)] = rows[1:]  # without the header row
    if "layers" not in found or "upcalls" not in found:
        sys.exit(f"check-layers: {design} has no layers or upcalls table")
    layers = [(name, paths.split(), set(uses.split())) for name, paths, uses in found["layers"]]
    upcalls = {(frm, to, sym, hdr) for frm, to, sym, hdr, _why in found["upcalls"]}
    return layers, upcalls


def layer_of(path, layers):
    """The layer whose path is the longest prefix of path (a file entry beats its directory)."""
    best, best_len = None, -1
    for name, paths, _ in layers:
        for p in paths:
            if (path == p or (p.endswith("/") and path.startswith(p))) and len(p) > best_len:
                best, best_len = name, len(p)
    return best


def includes(path):
    with open(path, errors="replace") as f:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)


def nm(obj, undefined):
    args = ["nm", "-u" if undefined else "--defined-only", obj]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if undefined:
            syms.append(parts[-1])
        elif len(parts) == 3 and parts[1].isupper():  # global definitions only
            syms.append(parts[2])
    return syms


def check(layers, upcalls, objdir, sources):
    allowed = {name: uses for name, _, uses in layers}
    up_headers = {(frm, to, hdr) for frm, to, _sym, hdr in upcalls}
    up_syms = {(frm, to, sym) for frm, to, sym, _hdr in upcalls}
    files = set(sources)
    for d in {os.path.dirname(s) for s in sources}:
        files |= {os.path.join(d, f) for f in os.listdir(d) if f.endswith(".h")}
    results = []  # (name, [problems])
    for path in sorted(files):
        me = layer_of(path, layers)
        if me is None:
            results.append((path, ["in no layer of the matrix"]))
            continue
        bad = []
        for inc in includes(path):
            if not os.path.exists(inc):
                continue  # a sibling or system header: the compiler finds it, no layer edge
            to = layer_of(inc, layers)
            if (me, to, inc) in up_headers:
                continue
            if to is None or to not in allowed[me]:
                bad.append(f'includes "{inc}" ({to}), which {me} may not use')
        results.append((path, bad))

    objects = {s: os.path.join(objdir, s + ".o") for s in sources}
    missing = [o for o in objects.values() if not os.path.exists(o)]
    if missing:
        sys.exit(f"check-layers: objects missing (build first): {missing[:3]}")
    owner = {}
    for src, obj in objects.items():
        for sym in nm(obj, False):
            owner[sym] = layer_of(src, layers)
    for src, obj in sorted(objects.items()):
        me = layer_of(src, layers)
        bad = []
        for sym in nm(obj, True):
            to = owner.get(sym)  # None: the linker script's or libgcc's, no layer
            if to and to not in allowed[me] and (me, to, sym) not in up_syms:
                bad.append(f"calls {sym} ({to}), which {me} may not use")
        results.append((obj, bad))
    return results


def report(results):
    passed = failed = 0
    for name, bad in results:
        if bad:
            failed += 1
            print(f"not ok - {name}")
            for b in bad:
                print(f"#   {b}")
        else:
            passed += 1
            print(f"ok - {name}")
    return passed, failed


def self_test(layers, upcalls, objdir, sources):
    """The check must be able to fail: each mutation of the matrix must find violations."""
    mutations = {
        "vmm may not use mmu": ([(n, p, u - {"mmu"} if n == "vmm" else u) for n, p, u in layers],
                                upcalls),
        "arch may not use lib": ([(n, p, u - {"lib"} if n == "arch" else u) for n, p, u in layers],
                                 upcalls),
        "no layer may use abi": ([(n, p, u - {"abi"} if n != "abi" else u) for n, p, u in layers],
                                 upcalls),
        "no upcall to pv_hypercall": (layers, {u for u in upcalls if u[2] != "pv_hypercall"}),
    }
    passed = failed = 0
    for what, (mlayers, mupcalls) in mutations.items():
        found = sum(len(b) for _, b in check(mlayers, mupcalls, objdir, sources))
        if found:
            passed += 1
            print(f"ok - mutation '{what}' is caught ({found} violations)")
        else:
            failed += 1
            print(f"not ok - mutation '{what}' is not caught")
    return passed, failed


def main(argv):
    design, objdir, sources = argv[0], argv[1], argv[2:]
    layers, upcalls = tables(design)
    passed, failed = report(check(layers, upcalls, objdir, sources))
    sp, sf = self_test(layers, upcalls, objdir, sources)
    print(f"layers: {passed + sp} passed, {failed + sf} failed")
    return 1 if failed + sf else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
