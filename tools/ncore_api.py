#!/usr/bin/env python3
"""tools/ncore_api.py — the public C ABI as data, read from the headers.

One reader of abi/include and abi/ncore.map for every tool that must agree
with them: tools/abi-check (exports == declarations == map, version nodes),
tools/api-coverage (which bindings reach each function),
bindings/go/gen-ncgo.py (the cgo shim) and tools/abi-check-selftest.sh (a
stub library with every function).

The headers follow a fixed style, which is what makes a small reader enough:
every function is one declaration `NCORE_API <return> <name>(<params>);`,
every struct `typedef struct ncore_x { <one member per declaration> }
ncore_x_t;`, and a versioned struct's first member is `uint32_t struct_size`.

As a command:
  ncore_api.py functions [HEADERS]  one line per function: name, header
  ncore_api.py stubs [HEADERS]      C source defining every function (returns 0)
  ncore_api.py newest-node [MAP]    the name of the map's newest version node
"""
from __future__ import annotations

import dataclasses
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS = os.path.join(ROOT, "abi", "include")
MAP = os.path.join(ROOT, "abi", "ncore.map")


@dataclasses.dataclass
class Param:
    type: str  # "const ncore_comm_config_t *", "size_t", ...
    name: str


@dataclasses.dataclass
class Function:
    name: str
    returns: str
    params: list  # of Param; empty for (void)
    header: str  # "comm.h"
    declaration: str  # the declaration, whitespace folded, without NCORE_API

    def writes_versioned_struct(self, structs: dict) -> bool:
        """True when a parameter is a non-const pointer to a versioned struct:
        the function writes the caller's struct (an *_init or an output)."""
        for p in self.params:
            base = p.type.replace("*", "").strip()
            if not p.type.startswith("const") and p.type.endswith("*") and \
                    structs.get(base) is not None and structs[base].versioned:
                return True
        return False


@dataclasses.dataclass
class Struct:
    name: str  # the typedef name, "ncore_comm_config_t"
    fields: list  # of Param
    header: str

    @property
    def versioned(self) -> bool:
        return bool(self.fields) and self.fields[0].name == "struct_size"


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _param(text: str) -> Param:
    """'const ncore_unique_id_t *id' -> Param('const ncore_unique_id_t *', 'id')."""
    text = _fold(text)
    m = re.match(r"^(.*?)(\w+)\s*(\[\s*\w*\s*\])?$", text)
    if not m:
        raise ValueError(f"cannot read parameter {text!r}")
    type_ = _fold(m.group(1))
    if type_.endswith("*"):
        type_ = re.sub(r"\s*\*", " *", type_).replace("* *", "**")
    return Param(type_, m.group(2))


def header_files(headers: str = HEADERS) -> list:
    """The subsystem headers in the order ncore.h includes them."""
    umbrella = open(os.path.join(headers, "ncore.h")).read()
    return [os.path.join(headers, h)
            for h in re.findall(r'#include "(ncore/[\w.]+\.h)"', umbrella)]


def functions(headers: str = HEADERS) -> list:
    """Every NCORE_API function, in header order."""
    out = []
    for path in header_files(headers):
        text = _strip_comments(open(path).read())
        for m in re.finditer(r"\bNCORE_API\s+([^;{]*?)\b(ncore_\w+)\s*\(([^)]*)\)\s*;",
                             text, re.S):
            returns = _fold(m.group(1))
            args = _fold(m.group(3))
            params = [] if args in ("", "void") else [_param(a) for a in args.split(",")]
            out.append(Function(m.group(2), returns, params, os.path.basename(path),
                                _fold(f"{returns} {m.group(2)}({args})")))
    return out


def structs(headers: str = HEADERS) -> dict:
    """Every public struct typedef, by typedef name."""
    out = {}
    for path in header_files(headers):
        text = _strip_comments(open(path).read())
        for m in re.finditer(r"typedef\s+struct\s+\w+\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
            fields = [_param(d) for d in m.group(1).split(";") if d.strip()]
            out[m.group(2)] = Struct(m.group(2), fields, os.path.basename(path))
    return out


def abi_version(headers: str = HEADERS) -> dict:
    """NCORE_ABI_VERSION, NCORE_VERSION_MAJOR / _MINOR of version.h."""
    text = open(os.path.join(headers, "ncore", "version.h")).read()
    values = {}
    for name in ("NCORE_ABI_VERSION", "NCORE_VERSION_MAJOR", "NCORE_VERSION_MINOR"):
        m = re.search(r"#define\s+" + name + r"\s+(\d+)", text)
        values[name] = int(m.group(1)) if m else None
    return values


@dataclasses.dataclass
class Node:
    name: str  # "NCORE_1.0"
    symbols: list  # explicit names under global:
    patterns: list  # global entries with a wildcard (the check refuses them)
    parent: str | None

    @property
    def version(self) -> tuple:
        m = re.match(r"^NCORE_(\d+)\.(\d+)$", self.name)
        return (int(m.group(1)), int(m.group(2))) if m else (-1, -1)


def version_nodes(path: str = MAP) -> list:
    """The version nodes of a linker version script, in file order."""
    text = _strip_comments(open(path).read())
    nodes = []
    for m in re.finditer(r"(\w[\w.]*)\s*\{(.*?)\}\s*(\w[\w.]*)?\s*;", text, re.S):
        body = m.group(2)
        glob = re.search(r"global\s*:(.*?)(?:local\s*:|$)", body, re.S)
        entries = [e.strip() for e in (glob.group(1) if glob else "").split(";") if e.strip()]
        nodes.append(Node(m.group(1),
                          [e for e in entries if not re.search(r"[*?\[]", e)],
                          [e for e in entries if re.search(r"[*?\[]", e)],
                          m.group(3)))
    return nodes


def stubs(headers: str = HEADERS) -> str:
    """C source defining every function as `return 0`, for a stand-in library."""
    lines = ["#include <ncore.h>"]
    for f in functions(headers):
        lines.append(f"NCORE_API {f.declaration} {{ return 0; }}")
    return "\n".join(lines) + "\n"


def main(argv: list) -> int:
    if len(argv) < 2 or argv[1] not in ("functions", "stubs", "newest-node"):
        print(__doc__.strip().split("As a command:")[1], file=sys.stderr)
        return 2
    if argv[1] == "newest-node":
        print(version_nodes(argv[2] if len(argv) > 2 else MAP)[-1].name)
        return 0
    headers = argv[2] if len(argv) > 2 else HEADERS
    if argv[1] == "functions":
        for f in functions(headers):
            print(f.name, f.header)
    else:
        sys.stdout.write(stubs(headers))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
