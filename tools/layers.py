#!/usr/bin/env python3
"""layers.py - checks that the library's layers are true, from its object files' symbols.

    tools/layers.py [OBJ_DIR]          (default: build/obj; run by make test)

src/ is six folders, each calling only the ones below it (src/README.md, "Layers"). A file
calls another when its object uses a global name (nm: U) that only the other defines. The
check fails when a file calls a file of a higher layer, unless the call is in UP_ALLOWED, or
when files call each other in a loop (a knot: a strongly connected component of two or more
files), unless the knot is in KNOTS_ALLOWED. Both lists are the ones src/README.md gives.
"""
import os
import subprocess
import sys
from collections import defaultdict

LAYERS = ["base", "records", "errors", "checks", "api", "report"]  # bottom first

# (caller, callee, name): the process's lifecycle orders the report, which nothing else does
UP_ALLOWED = {
    ("api/lifecycle", "report/report", "mt_report_prepare"),
    ("api/lifecycle", "report/write", "mt_report_at_exit"),
    ("api/lifecycle", "report/report", "mt_report_lock"),
    ("api/lifecycle", "report/report", "mt_report_unlock"),
    ("api/crash", "report/write", "mt_report_crash_text"),
}

# pairs that are one concern each
KNOTS_ALLOWED = {
    frozenset({"records/stats", "records/timeline"}),
    frozenset({"api/pool", "api/pool_tracked"}),
    frozenset({"checks/guard", "checks/page_guard"}),
}


def nm(args):
    out = subprocess.run(["nm"] + args, capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()}


def load(root):
    files = {}
    for layer in LAYERS:
        folder = os.path.join(root, layer)
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if name.endswith(".o"):
                files[layer + "/" + name[:-2]] = os.path.join(folder, name)
    return files


def calls(files):
    defined = {f: nm(["--defined-only", "-g", p]) for f, p in files.items()}
    owners = defaultdict(set)
    for f, names in defined.items():
        for n in names:
            owners[n].add(f)
    edges = defaultdict(lambda: defaultdict(set))
    for f, p in files.items():
        for n in nm(["-u", p]):
            if len(owners.get(n, ())) == 1:
                g = next(iter(owners[n]))
                if g != f:
                    edges[f][g].add(n)
    return edges


def knots(nodes, edges):
    """Strongly connected components of two or more files (Tarjan, iterative)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(frozenset(comp))
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "build/obj"
    files = load(root)
    if not files:
        sys.exit("layers.py: no object files under %s (build first)" % root)
    edges = calls(files)
    problems = []
    for f in sorted(files):
        for g in sorted(edges[f]):
            if LAYERS.index(g.split("/")[0]) <= LAYERS.index(f.split("/")[0]):
                continue
            for n in sorted(edges[f][g]):
                if (f, g, n) not in UP_ALLOWED:
                    problems.append("call up a layer: %s -> %s (%s)" % (f, g, n))
    for comp in knots(sorted(files), edges):
        if comp not in KNOTS_ALLOWED:
            ties = ["%s -> %s: %s" % (f, g, ", ".join(sorted(edges[f][g])))
                    for f in sorted(comp) for g in sorted(edges[f]) if g in comp]
            problems.append("knot of %d files: %s\n    %s" %
                            (len(comp), ", ".join(sorted(comp)), "\n    ".join(ties)))
    for p in problems:
        print("layers: " + p)
    if problems:
        print("layers: %d problems; src/README.md (Layers) says what is allowed" % len(problems))
        return 1
    print("layers: %d files, %d caller-callee pairs, as src/README.md allows" %
          (len(files), sum(len(v) for v in edges.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
