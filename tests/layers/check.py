#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""check-layers: every #include and every linked symbol of Umbra against docs/design.md's matrix.

usage: check.py DESIGN_MD OBJDIR SOURCE...   (sources as the Makefile builds them; their
directories' headers are checked too; objects are OBJDIR/<source>.o)
Prints one line per checked file or object ("ok"/"not ok"), one for the module graph (a module
is a .c with its .h of the same base name; no include cycle between modules at all), then
checks that mutations of the matrix and of the graph are caught,
and ends with "layers: N passed, M failed".
"""
import functools
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


@functools.lru_cache(maxsize=None)  # the mutations re-check the same objects
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


def checked_files(sources):
    """The sources and every header of their directories."""
    files = set(sources)
    for d in {os.path.dirname(s) for s in sources}:
        files |= {os.path.join(d, f) for f in os.listdir(d) if f.endswith(".h")}
    return files


def module_graph(files):
    """Module -> {module it includes: the first file whose #include makes that edge}."""
    graph = {}
    for path in sorted(files):
        me = os.path.splitext(path)[0]
        edges = graph.setdefault(me, {})
        for inc in includes(path):
            to = os.path.splitext(inc)[0]
            if os.path.exists(inc) and to != me:
                edges.setdefault(to, f"{path} includes {inc}")
                graph.setdefault(to, {})
    return graph


def components(graph):
    """Module -> the number of its strongly connected component (Tarjan, iterative)."""
    index, low, comp, stack, on = {}, {}, {}, [], set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp[w] = v
                    if w == v:
                        break
    return comp


def shortest_cycle(graph, comp, start):
    """The shortest path start -> ... -> start inside start's component (breadth first)."""
    prev, queue = {}, [start]
    for v in queue:
        for w in sorted(graph[v]):
            if comp[w] != comp[start] or w in prev:
                continue
            prev[w] = v
            if w == start:
                path = [start]
                while True:
                    path.append(prev[path[-1]])
                    if path[-1] == start:
                        return path[::-1]
            queue.append(w)
    raise AssertionError(f"{start} is in a component but on no cycle")


def cycle_problems(graph):
    """Every include cycle between modules, each with its path and the includes that make it."""
    bad = []
    rest = {m: dict(e) for m, e in graph.items()}
    while True:
        comp = components(rest)
        sizes = {}
        for c in comp.values():
            sizes[c] = sizes.get(c, 0) + 1
        starts = sorted(m for m, c in comp.items() if sizes[c] > 1)
        if not starts:
            return bad
        path = shortest_cycle(rest, comp, starts[0])
        why = "; ".join(rest[a][b] for a, b in zip(path, path[1:]))
        bad.append(f"include cycle {' -> '.join(path)} ({why})")
        del rest[path[-2]][path[-1]]  # report each cycle once, then look for the next


def check(layers, upcalls, objdir, sources):
    allowed = {name: uses for name, _, uses in layers}
    up_headers = {(frm, to, hdr) for frm, to, _sym, hdr in upcalls}
    up_syms = {(frm, to, sym) for frm, to, sym, _hdr in upcalls}
    files = checked_files(sources)
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


def tally(found):
    """One line per mutation: caught (what it found, the first of it) or not."""
    passed = failed = 0
    for what, problems in found.items():
        if problems:
            passed += 1
            print(f"ok - mutation '{what}' is caught ({len(problems)}: {problems[0]})")
        else:
            failed += 1
            print(f"not ok - mutation '{what}' is not caught")
    return passed, failed


def graph_self_test(graph):
    """The cycle check must be able to fail: an include that closes a cycle and a format of the
    loader including the dispatcher must each be caught."""
    comp = components(graph)
    frm, to = min((m, t) for m, e in graph.items() for t in e if comp[m] != comp[t])
    closed = {m: dict(e) for m, e in graph.items()}
    closed[to][frm] = "the mutation's include"
    # The loader's dispatcher includes every format; a format including it back is a cycle.
    fmt = min((t for t in graph.get("vmm/load/loader", {}) if "vmm/load/format" in graph[t]),
              default="vmm/load/loader")  # no format: a self-include, which catches nothing
    back = {m: dict(e) for m, e in graph.items()}
    back.setdefault(fmt, {})["vmm/load/loader"] = "the mutation's include"
    mutations = {f"an include {to} -> {frm} closing a cycle": closed,
                 f"{fmt} including its dispatcher vmm/load/loader": back}
    return tally({what: cycle_problems(mgraph) for what, mgraph in mutations.items()})


def self_test(layers, upcalls, objdir, sources):
    """The check must be able to fail: each mutation of the matrix must find violations."""
    def without(layer, use):
        return [(n, p, u - {use} if n == layer else u) for n, p, u in layers]
    mutations = {
        "vmm-core may not use mmu": (without("vmm-core", "mmu"), upcalls),
        "vmm-core may not use vmm-dev": (without("vmm-core", "vmm-dev"), upcalls),
        "vmm-load may not use vmm-core": (without("vmm-load", "vmm-core"), upcalls),
        "vmm-debug may not use vmm-core": (without("vmm-debug", "vmm-core"), upcalls),
        "arch may not use lib": (without("arch", "lib"), upcalls),
        "no layer may use abi": ([(n, p, u - {"abi"} if n != "abi" else u) for n, p, u in layers],
                                 upcalls),
        "no upcall to pv_hypercall": (layers, {u for u in upcalls if u[2] != "pv_hypercall"}),
    }
    return tally({what: [b for _, bad in check(mlayers, mupcalls, objdir, sources) for b in bad]
                  for what, (mlayers, mupcalls) in mutations.items()})


def main(argv):
    design, objdir, sources = argv[0], argv[1], argv[2:]
    layers, upcalls = tables(design)
    graph = module_graph(checked_files(sources))
    results = check(layers, upcalls, objdir, sources)
    results.append(("module include graph", cycle_problems(graph)))
    passed, failed = report(results)
    sp, sf = self_test(layers, upcalls, objdir, sources)
    gp, gf = graph_self_test(graph)
    print(f"layers: {passed + sp + gp} passed, {failed + sf + gf} failed")
    return 1 if failed + sf + gf else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
