#!/usr/bin/env python3
"""scripts/check-deps.py [--repo DIR] BUILD_DIR: porta's layering, checked.

Fails (exit 1, one line per finding) when
  - a module depends on a module that is not below it in LAYERS (an include of
    its headers or a call of a function it defines),
  - two source files depend on each other, directly or around a longer
    cycle (a file is its .c and its .h together: x.c includes y.h, or x.c
    calls a function only y.c defines),
  - a file includes another module's internal header (<mod>/internal*.h, or
    a header guarded by #ifndef PORTA_INSIDE_<MOD>, is for <mod>/ and
    tests/unit/<mod>/ only).
Includes are read from the sources; calls from the objects of BUILD_DIR
(nm: what each object leaves undefined and what each defines), so a call
through a header-less extern is seen too.  Exit 2 on a usage error.
--repo DIR checks another tree laid out the same way (tests/layout uses it).
The layers and the reasons for them are docs/design.md's "Modules".
"""
import json
import os
import re
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

# Each module and the modules it may use.  Nothing may use a module above it.
LAYERS = {
    "common": [],
    "policy": ["common"],
    "wire": ["common"],
    "decision": ["common", "policy"],
    "tools": ["common", "policy"],
    "dns": ["common", "policy", "wire", "decision"],
    "tls": ["common", "policy"],
    "netproxy": ["common", "policy", "wire", "decision", "dns", "tls"],
    "sandbox": ["common", "policy"],
    "host": ["common", "policy", "wire", "decision", "dns", "sandbox"],
    "supervisor": ["common", "policy", "wire", "decision", "dns", "tls", "netproxy", "sandbox",
                   "host"],
    "src": ["common", "policy", "wire", "decision", "dns", "tls", "netproxy", "sandbox", "host",
            "supervisor"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def rel(path):
    return os.path.relpath(os.path.realpath(path), REPO)


def module_of(path):
    top = path.split("/", 1)[0]
    return top if top in LAYERS else None


def is_internal(path):
    """A module's own header: internal*.h, or one that refuses to compile
    outside its module (#ifndef PORTA_INSIDE_<MOD>, CMakeLists.txt's
    porta_module())."""
    if os.path.basename(path).startswith("internal"):
        return True
    with open(os.path.join(REPO, path), encoding="utf-8", errors="replace") as f:
        return "#ifndef PORTA_INSIDE_" in f.read()


def unit_of(path):
    """A file's unit: its path without the extension (x.c and x.h are one)."""
    return os.path.splitext(path)[0]


def sources():
    """Every .c and .h of the modules, as repository-relative paths."""
    out = []
    for mod in LAYERS:
        base = os.path.join(REPO, mod)
        for root, _dirs, files in os.walk(base):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(rel(os.path.join(root, f)))
    return sorted(out)


def test_sources():
    out = []
    for root, _dirs, files in os.walk(os.path.join(REPO, "tests")):
        for f in files:
            if f.endswith((".c", ".h")):
                out.append(rel(os.path.join(root, f)))
    return sorted(out)


def includes(path):
    """The repository files PATH includes with quotes, resolved the way the
    compiler does: next to PATH first, then from the repository root."""
    with open(os.path.join(REPO, path), encoding="utf-8", errors="replace") as f:
        text = f.read()
    found = []
    for name in INCLUDE.findall(text):
        for cand in (os.path.join(os.path.dirname(path), name), name):
            if os.path.isfile(os.path.join(REPO, cand)):
                found.append(os.path.normpath(cand))
                break
    return found


def objects(build):
    """(source, object) for every module source compiled in BUILD."""
    db = os.path.join(build, "compile_commands.json")
    try:
        with open(db, encoding="utf-8") as f:
            entries = json.load(f)
    except OSError as e:
        sys.exit(f"check-deps: {db}: {e.strerror} (configure the build first)")
    out = []
    for e in entries:
        src = rel(os.path.join(e["directory"], e["file"]))
        if module_of(src) is None or src.startswith("tools/"):
            continue
        args = e.get("arguments") or shlex.split(e["command"])
        obj = e.get("output") or args[args.index("-o") + 1]
        obj = os.path.join(e["directory"], obj)
        if os.path.isfile(obj):
            out.append((src, obj))
    return out


def symbols(obj):
    """(defined, undefined) global symbol names of one object file."""
    res = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True)
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRVW":
            defined.add(name)
    return defined, undefined


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, onstack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        onstack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    global REPO
    args = argv[1:]
    if len(args) == 3 and args[0] == "--repo":
        REPO = os.path.realpath(args[1])
        args = args[2:]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    build = args[0]
    findings = []
    graph = {}
    why = {}

    def edge(a, b, reason):
        ua, ub = unit_of(a), unit_of(b)
        if ua == ub:
            return
        graph.setdefault(ua, set()).add(ub)
        why.setdefault((ua, ub), reason)
        ma, mb = module_of(a), module_of(b)
        if ma and mb and ma != mb and mb not in LAYERS[ma]:
            findings.append(f"layer: {a} ({ma}) uses {b} ({mb}) by {reason}; "
                            f"{ma} may use only: {', '.join(LAYERS[ma]) or 'nothing'}")

    for src in sources():
        for inc in includes(src):
            edge(src, inc, f"#include \"{inc}\"")

    for src in sources() + test_sources():
        for inc in includes(src):
            if not is_internal(inc):
                continue
            owner = inc.split("/", 1)[0]
            if src.startswith(owner + "/") or src.startswith(f"tests/unit/{owner}/"):
                continue
            findings.append(f"internal: {src} includes {inc}, which is {owner}/'s own")

    objs = objects(build)
    if not objs:
        print(f"check-deps: no module objects under {build} (build first)", file=sys.stderr)
        return 2
    defs, undefs = {}, {}
    for src, obj in objs:
        d, u = symbols(obj)
        undefs[src] = u
        for name in d:
            defs.setdefault(name, set()).add(src)
    for src, u in undefs.items():
        for name in sorted(u):
            owners = defs.get(name, set())
            if len(owners) == 1:
                (dst,) = owners
                edge(src, dst, f"calling {name}()")

    for comp in cycles(graph):
        ring = " -> ".join(comp)
        detail = "; ".join(f"{a} -> {b} ({why[(a, b)]})"
                           for a in comp for b in comp if (a, b) in why)
        findings.append(f"cycle: {ring}: {detail}")

    for f in findings:
        print(f"check-deps: {f}")
    if findings:
        print(f"check-deps: {len(findings)} finding(s)", file=sys.stderr)
        return 1
    print(f"check-deps: {len(graph)} files, {sum(len(v) for v in graph.values())} "
          f"dependencies, no cycle, layers kept")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
