#!/usr/bin/python3
"""Fail when the library's sources depend on each other in a cycle.

usage: check-dependency-cycles.py [--root DIR] [--modules] OBJECT.o [OBJECT.o...]
       check-dependency-cycles.py --self-test

OBJECT.o are the library's object files, compiled from src/<module>/<file>.c (CMake
passes $<TARGET_OBJECTS:tp_objects>; the source path is read from the object's path).

Two graphs are built and each must be acyclic:

  files    one node per .c file of src/. A -> B when A references a global symbol
           (function or variable) that B defines, read with `nm` from the objects,
           so static helpers and inline functions never count and no C parsing is
           needed.
  modules  one node per folder of src/ (core, graph, plan, ...). M -> N when a file
           of M references a symbol defined in N, or includes a header of N
           (`#include "..."`). A header under src/N/ belongs to N; a public header
           include/tensorplan/X.h belongs to the module that defines most of the
           functions it declares (a header that declares none, e.g. types only,
           belongs to no module and adds no edge).

One more rule rides on the same symbol tables: only src/env/ may read the environment
(getenv, secure_getenv): the library's behaviour is set through its API
(include/tensorplan/env.h).

A cycle means two files (or modules) cannot be understood, tested or reused one
without the other; the fix is to move the shared piece below both. Every cycle is
printed with the symbols or includes behind each edge. Exit 0 when both graphs are
acyclic, 1 otherwise (2 on usage errors). --modules also prints the module graph
(each module and the modules it depends on).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
OBJ_RE = re.compile(r"(?:^|/)(src/.+\.c)\.(?:o|obj)$")


def nm_symbols(objs):
    """{object: (defined, undefined)} global symbol names, from one nm run over all objects."""
    out = subprocess.run(["nm", "-P", "-A"] + list(objs), capture_output=True, text=True,
                         check=True).stdout
    syms = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        obj, sep, rest = line.rpartition(": ")
        parts = rest.split()
        if not sep or obj not in syms or len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            syms[obj][1].add(name)
        elif kind in "TDBRCGSVW" and kind.isupper():
            syms[obj][0].add(name)
    return syms


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def resolve_include(root, from_file, name):
    for base in (os.path.dirname(from_file), "src", "include"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None  # a system header or one outside the tree


def module_of_source(path):
    parts = path.split("/")
    return parts[1] if len(parts) >= 3 and parts[0] == "src" else None


def sccs(nodes, edges):
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def one_cycle(comp, edges):
    """A shortest cycle through the first node of a strongly connected component."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    frontier = [start]
    while frontier:
        nxt_frontier = []
        for n in frontier:
            for m in sorted(edges.get(n, ())):
                if m not in members:
                    continue
                if m == start:
                    path = [n]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if m not in prev:
                    prev[m] = n
                    nxt_frontier.append(m)
        frontier = nxt_frontier
    return comp + [start]


def add_edge(edges, why, a, b, reason):
    if a is None or b is None or a == b:
        return
    edges.setdefault(a, set()).add(b)
    why.setdefault((a, b), set()).add(reason)


def analyse(root, objects):
    sources = {}
    for obj in objects:
        m = OBJ_RE.search(obj.replace(os.sep, "/"))
        if not m:
            raise ValueError(f"{obj}: not an object compiled from src/<module>/<file>.c")
        sources[m.group(1)] = obj

    defined_by, uses = {}, {}
    table = nm_symbols(sources.values())
    for src, obj in sorted(sources.items()):
        d, u = table[obj]
        uses[src] = u
        for s in d:
            defined_by.setdefault(s, src)

    file_edges, file_why = {}, {}
    mod_edges, mod_why = {}, {}
    for src, used in uses.items():
        for s in used:
            dst = defined_by.get(s)
            if dst:
                add_edge(file_edges, file_why, src, dst, s + "()")
                add_edge(mod_edges, mod_why, module_of_source(src), module_of_source(dst),
                         f"{src} uses {s} from {dst}")

    # Headers: every header reachable from the sources, with its owning module.
    headers, includes = {}, {}
    todo = list(sources)
    seen = set(todo)
    while todo:
        f = todo.pop()
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            text = fh.read()
        if f.endswith(".h"):
            headers[f] = strip_comments(text)
        for name in INCLUDE_RE.findall(text):
            h = resolve_include(root, f, name)
            if h:
                includes.setdefault(f, set()).add(h)
                if h not in seen:
                    seen.add(h)
                    todo.append(h)

    owner = {}
    for h, text in headers.items():
        mod = module_of_source(h)
        if mod is None:
            votes = {}
            for name in set(CALL_RE.findall(text)):
                src = defined_by.get(name)
                if src:
                    votes[module_of_source(src)] = votes.get(module_of_source(src), 0) + 1
            if votes:
                mod = max(sorted(votes), key=lambda k: votes[k])
        owner[h] = mod

    for f, hs in includes.items():
        fm = module_of_source(f) if f.startswith("src/") and f.endswith(".c") else owner.get(f)
        for h in hs:
            add_edge(mod_edges, mod_why, fm, owner.get(h), f"{f} includes {h}")

    report = []
    for src, used in sorted(uses.items()):
        reads = sorted(used & {"getenv", "secure_getenv"})
        if reads and not src.startswith("src/env/"):
            report.append(f"environment read outside src/env/: {src} calls {', '.join(reads)}")
    for label, nodes, edges, why in (
        ("file", set(sources), file_edges, file_why),
        ("module", {module_of_source(s) for s in sources}, mod_edges, mod_why),
    ):
        for comp in sccs(nodes, edges):
            cyc = one_cycle(comp, edges)
            report.append(f"{label} cycle among {len(comp)}: {' -> '.join(cyc)}")
            for a, b in zip(cyc, cyc[1:]):
                reasons = sorted(why[(a, b)])
                more = f" (+{len(reasons) - 3} more)" if len(reasons) > 3 else ""
                report.append(f"  {a} -> {b}: {', '.join(reasons[:3])}{more}")
    modules = {m: sorted(mod_edges.get(m, ())) for m in sorted({module_of_source(s) for s in sources})}
    return len(sources), report, modules


SELF_TEST_FILES = {
    "src/core/base.c": '#include "core/base.h"\nint base_twice(int x) { return 2 * x; }\n',
    "src/core/base.h": "int base_twice(int x);\n",
    "include/pub/top.h": "int top_value(void);\n",
    "src/top/top.c": '#include "core/base.h"\n#include "pub/top.h"\n'
                     "int top_value(void) { return base_twice(21); }\n",
}


def self_test():
    """Prove the check passes an acyclic tree and catches a file and a module cycle."""
    if not shutil.which("cc"):
        print("self-test: no C compiler (cc)")
        return 1
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:

        def build(files):
            shutil.rmtree(os.path.join(tmp, "t"), ignore_errors=True)
            objs = []
            for rel, text in files.items():
                p = os.path.join(tmp, "t", rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w", encoding="utf-8") as fh:
                    fh.write(text)
            for rel in files:
                if rel.endswith(".c"):
                    obj = os.path.join(tmp, "t", "obj", rel + ".o")
                    os.makedirs(os.path.dirname(obj), exist_ok=True)
                    subprocess.run(["cc", "-c", "-I", os.path.join(tmp, "t", "src"), "-I",
                                    os.path.join(tmp, "t", "include"), "-o", obj,
                                    os.path.join(tmp, "t", rel)], check=True)
                    objs.append(obj)
            return analyse(os.path.join(tmp, "t"), objs)[1]

        def expect(what, files, needles):
            nonlocal failures
            rep = build(files)
            text = "\n".join(rep)
            ok = all(n in text for n in needles) if needles else not rep
            print(f"self-test {'ok' if ok else 'FAILED'}: {what}")
            if not ok:
                print(text or "(no cycle reported)")
                failures += 1

        def base_including_top(body):
            files = dict(SELF_TEST_FILES)
            files["src/core/base.c"] = '#include "core/base.h"\n#include "pub/top.h"\n' + body
            return files

        expect("acyclic tree passes", SELF_TEST_FILES, [])
        expect("call cycle between two files is caught",
               base_including_top("int base_twice(int x) { return x ? 2 * x : top_value(); }\n"),
               ["file cycle among 2: src/core/base.c -> src/top/top.c -> src/core/base.c",
                "base_twice()", "top_value()"])
        expect("include of a higher module's header is a module cycle",
               base_including_top("int base_twice(int x) { return 2 * x; }\n"),
               ["module cycle among 2: core -> top -> core",
                "src/core/base.c includes include/pub/top.h"])
        expect("getenv outside src/env/ is caught",
               base_including_top("#include <stdlib.h>\n"
                                  "int base_twice(int x) { return getenv(\"X\") ? x : 2 * x; }\n"),
               ["environment read outside src/env/: src/core/base.c calls getenv"])
    print(f"{4 - failures} passed, {failures} failed")
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    args = argv[1:]
    root = ROOT
    if len(args) >= 2 and args[0] == "--root":
        root, args = os.path.realpath(args[1]), args[2:]
    show_modules = bool(args) and args[0] == "--modules"
    if show_modules:
        args = args[1:]
    args = [a for arg in args for a in arg.split(";") if a]  # CMake passes a ;-list
    if not args:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        n, report, modules = analyse(root, args)
    except (ValueError, OSError, subprocess.CalledProcessError) as e:
        print(f"check-dependency-cycles: {e}", file=sys.stderr)
        return 2
    if show_modules:
        for m, deps in modules.items():
            print(f"{m}: {' '.join(deps) or '-'}")
    if report:
        print("\n".join(report))
        print(f"check-dependency-cycles: FAILED ({n} library files): break each cycle by moving "
              "the shared piece below both; read the environment only in src/env/")
        return 1
    print(f"check-dependency-cycles: {n} library files, no cycle between files or modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
