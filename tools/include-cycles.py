#!/usr/bin/env python3
"""tools/include-cycles.py — the library's sources depend on one another
without a cycle, and only on what they may.

A module is a .c file and the .h of the same name in the same folder (a
header without a .c is a module of its own). Module A depends on module B
when a file of A
  - includes a header of B (`#include "..."`, resolved as the compiler
    does: relative to the including file, then to core/), or
  - calls (or takes the address of) a function that B's .c defines and a
    header A includes declares: a header that declares other files'
    functions cannot hide a dependency.
A cycle among modules fails the check. Where the library comes from is
checked too: a library file may include only core/, the public headers
(abi/include), the headers of kernels/ (what the CUDA kernels and the
backend launching them share) and system headers; the library's Bazel
target (BUILD, ncore_core) takes its sources only from core/ and generated
files, and its headers from core/ and kernels/*.h; and the programs that use
the library as a user does (examples/, bench/, conformance/runners/)
include no header of the repository but their own and the installed ones.

Usage:
  tools/include-cycles.py   the self-test below, then the repository's
      check; one "N passed, N failed" over both (make test runs this)
  tools/include-cycles.py ROOT...   check the trees at ROOT; prints each
      cycle and "N passed, N failed" (one test per folder of core/, and one
      per boundary: library includes, library target, clients)
  tools/include-cycles.py --self-test   plants cycles in a scratch tree
      (two headers including each other, a .c and another module's
      header, two files calling each other through one shared header, a
      three-module ring, a library file including tools/, a library target
      compiling tools/, directly or through a list of a .bzl it loads, a
      demo including a core/ header) and checks that each is found, and
      that a tree without one passes
  tools/include-cycles.py --graph [ROOT]  prints the dependency edges
"""
import os
import re
import shutil
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY_DIRS = ("core",)
ALLOWED_OUTSIDE = ("abi/include", "kernels")
# Programs that use the library as its users do: the installed headers only.
CLIENT_DIRS = ("examples", "bench", "conformance/runners")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
# A function definition at file scope: a line starting in column 0 with a
# type and a name, its parameters, then "{" (the project's style).
DEFINITION = re.compile(
    r"^(?!static\b|typedef\b|#)([A-Za-z_][\w\s\*]*?)\b([A-Za-z_]\w*)\s*\(([^;{}]*?)\)\s*\{",
    re.M | re.S)
STATIC_DEFINITION = re.compile(
    r"^static\s+(?:inline\s+)?[\w\s\*]*?\b([A-Za-z_]\w*)\s*\([^;{}]*?\)\s*\{",
    re.M | re.S)
# A declaration at file scope: the same, ending in ";".
DECLARATION = re.compile(
    r"^(?!static\b|typedef\b|#|return\b)([A-Za-z_][\w\s\*]*?)\b([A-Za-z_]\w*)\s*\(([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*)\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?;",
    re.M | re.S)
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined"}


def strip(text):
    """The text without comments and string literals (line breaks kept)."""
    text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return STRING.sub('""', text)


def module_of(path):
    folder, name = os.path.split(path)
    return os.path.join(folder, os.path.splitext(name)[0])


def library_files(root):
    out = []
    for top in LIBRARY_DIRS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(out)


def resolve(root, including, target):
    """The repository path an #include "target" in `including` names, or
    None when it is none of the repository's files (a system header)."""
    for base in (os.path.dirname(including), "core", "."):
        path = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(os.path.join(root, path)):
            return path
    return None


def analyse(root):
    """(edges, problems): edges {module: {module: [why, ...]}}; problems a
    list of boundary violations."""
    files = library_files(root)
    text = {f: open(os.path.join(root, f), errors="replace").read() for f in files}
    code = {f: strip(t) for f, t in text.items()}
    includes = {}
    problems = []
    for f in files:
        includes[f] = []
        for target in INCLUDE.findall(COMMENT.sub("", text[f])):
            path = resolve(root, f, target)
            if path is None:
                continue
            if not any(path == d or path.startswith(d + "/")
                       for d in LIBRARY_DIRS + ALLOWED_OUTSIDE):
                problems.append("%s includes %s (outside core/): library "
                                "sources may include only core/, the public "
                                "headers, kernels/*.h and system headers" % (f, path))
                continue
            if path.startswith(ALLOWED_OUTSIDE):
                continue
            includes[f].append(path)
    # Which module defines each non-static function; which functions each
    # header declares.
    owner = {}
    for f in files:
        if f.endswith(".c"):
            for m in DEFINITION.finditer(code[f]):
                if m.group(2) not in KEYWORDS:
                    owner.setdefault(m.group(2), set()).add(module_of(f))
    declared = {}
    for f in files:
        if f.endswith(".h"):
            declared[f] = {m.group(2) for m in DECLARATION.finditer(code[f])
                           if m.group(2) not in KEYWORDS}
    edges = {}

    def add(a, b, why):
        if a != b:
            edges.setdefault(a, {}).setdefault(b, []).append(why)

    for f in files:
        me = module_of(f)
        for h in includes[f]:
            add(me, module_of(h), "%s includes %s" % (f, h))
        if not f.endswith(".c"):
            continue
        # Functions reachable through the headers this file includes
        # (directly or through its own header).
        seen, todo, visible = set(), list(includes[f]), set()
        while todo:
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            visible |= declared.get(h, set())
            todo.extend(includes.get(h, []))
        own_static = set(STATIC_DEFINITION.findall(code[f]))
        used = set(IDENT.findall(code[f])) - own_static
        for name in sorted(used & visible):
            for mod in owner.get(name, ()):
                add(me, mod, "%s uses %s" % (f, name))
    return edges, problems


def cycles(edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(edges) | {b for bs in edges.values() for b in bs}

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def one_cycle(edges, component):
    """A shortest path around the component, as a list of modules."""
    members = set(component)
    start = component[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return component


def bzl_lists(root, text):
    """The list constants of the .bzl files text loads: {NAME: [str]}."""
    lists = {}
    for label in re.findall(r'load\(\s*"//([^":]*):([^"]+)"', text):
        path = os.path.join(root, label[0], label[1])
        if not os.path.isfile(path):
            continue
        body = re.sub(r"#[^\n]*", "", open(path).read())
        for name, items in re.findall(r"^(\w+)\s*=\s*\[(.*?)\]", body, re.M | re.S):
            lists[name] = re.findall(r'"([^"]+)"', items)
    return lists


def library_target_problems(root):
    """Sources or headers of BUILD's ncore_core from outside core/, named
    in BUILD or in a list of a .bzl file it loads."""
    path = os.path.join(root, "BUILD")
    if not os.path.isfile(path):
        return []
    text = re.sub(r"#[^\n]*", "", open(path).read())
    lists = bzl_lists(root, text)
    m = re.search(r'name\s*=\s*"ncore_core"(.*?)\n\)', text, re.S)
    if m is None:
        return ["BUILD: no ncore_core target found"]
    problems = []
    for field in ("srcs", "hdrs"):
        f = re.search(r"\b" + field + r"\s*=\s*(.*?),?\n\s{4}\w+\s*=", m.group(1), re.S)
        if f is None:
            continue
        items = re.findall(r'"([^"]+)"', f.group(1))
        for name in re.findall(r"\b[A-Z][A-Z0-9_]+\b", f.group(1)):
            items += lists.get(name, [])
        for item in items:
            if item.startswith(":") or item.startswith("core/"):
                continue
            if field == "hdrs" and item.startswith("kernels/") and item.endswith(".h"):
                continue
            problems.append("BUILD: ncore_core's %s take %s, outside core/ "
                            "(the library builds from core/ only)" %
                            (field, item))
    return problems


def client_problems(root):
    """Clients' quoted includes of the repository's headers outside their
    own folder (only the installed headers are theirs to use)."""
    problems = []
    for top in CLIENT_DIRS:
        base = os.path.join(root, top)
        for folder, _, names in os.walk(base):
            for name in sorted(names):
                if not name.endswith((".c", ".h", ".cc", ".cu")):
                    continue
                f = os.path.relpath(os.path.join(folder, name), root)
                text = COMMENT.sub("", open(os.path.join(root, f), errors="replace").read())
                for target in INCLUDE.findall(text):
                    path = os.path.normpath(os.path.join(os.path.dirname(f), target))
                    if not os.path.isfile(os.path.join(root, path)):
                        continue  # a system or installed header
                    if os.path.commonpath([path, os.path.dirname(f)]) != os.path.dirname(f) \
                            and not path.startswith(top + "/"):
                        problems.append("%s includes %s: a client of the "
                                        "library uses only the installed "
                                        "headers (<ncore.h>)" % (f, path))
    return problems


def check(root, quiet=False):
    """(passed, failed) for the tree at root; prints what fails."""
    edges, problems = analyse(root)
    found = cycles(edges)
    folders = sorted({os.path.dirname(f) for f in library_files(root)})
    failed_folders = set()
    for component in found:
        path = one_cycle(edges, component)
        failed_folders.update(os.path.dirname(m) for m in component)
        if quiet:
            continue
        print("include-cycles: a cycle among %d modules (%s); one loop: %s" %
              (len(component), ", ".join(component), " -> ".join(path)))
        for a, b in zip(path, path[1:]):
            print("    %s -> %s: %s" % (a, b, "; ".join(edges[a][b][:3])))
    boundaries = [problems, library_target_problems(root),
                  client_problems(root)]
    if not quiet:
        for group in boundaries:
            for p in group:
                print("include-cycles: " + p)
    passed = len(folders) - len(failed_folders) + sum(not g for g in boundaries)
    failed = len(failed_folders) + sum(bool(g) for g in boundaries)
    return passed, failed


def self_test():
    """Plants each kind of fault in a scratch tree; the check must find it."""
    cases = {
        "no cycle": ({
            "core/a.h": "int a(void);\n",
            "core/a.c": '#include "a.h"\n#include "b.h"\nint a(void) {\n  return b();\n}\n',
            "core/b.h": "int b(void);\n",
            "core/b.c": '#include "b.h"\nint b(void) {\n  return 1;\n}\n',
            "core/x/c.c": '#include "../a.h"\nint c(void) {\n  return a();\n}\n',
            "BUILD": 'cc_library(\n    name = "ncore_core",\n'
                     '    srcs = glob(["core/*.c"]) + [":fatbin"],\n'
                     '    hdrs = glob(["core/*.h"]),\n)\n',
            "examples/demo/demo.c": '#include "demo.h"\n#include <ncore.h>\n',
            "examples/demo/demo.h": "",
        }, False),
        "headers including each other": ({
            "core/a.h": '#include "b.h"\n',
            "core/b.h": '#include "a.h"\n',
        }, True),
        "a .c and another module's header": ({
            "core/a.h": "int a(void);\n",
            "core/a.c": '#include "a.h"\n#include "b.h"\nint a(void) {\n  return b();\n}\n',
            "core/b.h": "int b(void);\n",
            "core/b.c": '#include "b.h"\n#include "a.h"\nint b(void) {\n  return a();\n}\n',
        }, True),
        "two files calling each other through one shared header": ({
            "core/x/shared.h": "int a(void);\nint b(int n);\n",
            "core/x/a.c": '#include "shared.h"\nint a(void) {\n  return b(1);\n}\n',
            "core/x/b.c": '#include "shared.h"\nint b(int n) {\n  return n ? a() : 0;\n}\n',
        }, True),
        "three modules in a ring": ({
            "core/a.h": '#include "b.h"\n',
            "core/b.h": '#include "c.h"\n',
            "core/c.h": "",
            "core/c.c": '#include "a.h"\n',
        }, True),
        "a library file including tools/": ({
            "core/a.c": '#include "tools/env.h"\n',
            "tools/env.h": "int env(void);\n",
        }, True),
        "a library target compiling tools/": ({
            "core/a.c": "",
            "BUILD": 'cc_library(\n    name = "ncore_core",\n'
                     '    srcs = glob(["core/*.c"]) + ["tools/env.c"],\n'
                     '    hdrs = glob(["core/*.h"]),\n)\n',
        }, True),
        "a library list in a .bzl naming tools/": ({
            "core/a.c": "",
            "tools/BUILD": "",
            "tools/library.bzl": 'LIBRARY_SOURCES = [\n    "core/*.c",\n    "tools/*.c",\n]\n',
            "BUILD": 'load("//tools:library.bzl", "LIBRARY_SOURCES")\n'
                     'cc_library(\n    name = "ncore_core",\n'
                     '    srcs = glob(LIBRARY_SOURCES),\n'
                     '    copts = [],\n)\n',
        }, True),
        "a demo including a core/ header": ({
            "core/a.h": "int a(void);\n",
            "examples/demo/demo.c": '#include "../../core/a.h"\n',
        }, True),
    }
    passed = failed = 0
    for name, (tree, must_fail) in cases.items():
        root = tempfile.mkdtemp(prefix="include-cycles-")
        try:
            for path, content in tree.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as f:
                    f.write(content)
            _, bad = check(root, quiet=True)
        finally:
            shutil.rmtree(root)
        ok = (bad > 0) == must_fail
        print("include-cycles self-test: %s: %s (%s)" %
              ("ok" if ok else "FAILED", name,
               "found" if bad else "none found"))
        passed += ok
        failed += not ok
    return passed, failed


def main(argv):
    if argv[:1] == ["--self-test"]:
        passed, failed = self_test()
    elif argv[:1] == ["--graph"]:
        edges, _ = analyse(argv[1] if len(argv) > 1 else REPO)
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print("%s -> %s: %s" % (a, b, "; ".join(edges[a][b][:3])))
        return 0
    else:
        passed = failed = 0
        if not argv:
            passed, failed = self_test()
        for root in argv or [REPO]:
            p, f = check(root)
            passed += p
            failed += f
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
