#!/usr/bin/env python3
"""tools/gen-op-table.py [--check]: writes the copies of the table of
operations (core/op_table.h) that other languages need, so that no binding,
runner or case generator writes a collective's facts down again:

  bindings/rust/ncore/src/op_table.rs      the Rust binding's buffer shapes
  bindings/go/op_table_gen.go              the Go binding's buffer shapes
  bindings/python/ncore/_op_table.py       the Python binding's buffer shapes
  conformance/driver/op_table.py           every row, for make_cases.py and
                                           the driver's self-test
  conformance/runners/c/op_table_gen.c     each runner's call of every
  conformance/runners/go/op_table_gen.go   collective and point-to-point
  conformance/runners/python/op_table.py   row through its binding
  conformance/runners/rust/src/op_table.rs

The C library reads core/op_table.h itself (its X-macro); this script
parses the same rows (one per line, names and numbers only: the header says
so) and checks them: a row that breaks a rule of the table (a rooted
collective without a root-only buffer, an in-place rule its shapes cannot
have, a shape the collectives' common rule does not cover) stops it.

Run from anywhere: /usr/bin/python3 tools/gen-op-table.py. The output
depends on core/op_table.h only (no time, path or tool version in it).
--check: writes nothing, exits 1 naming each output that differs from what
the table gives (or any row error).
"""
import os
import re
import sys
from typing import List, NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = "core/op_table.h"
GENERATOR = "tools/gen-op-table.py"

PARTS = {  # column value -> (per_rank, root_only)
    "ALL_1": (False, False),
    "ALL_N": (True, False),
    "ROOT_1": (False, True),
    "ROOT_N": (True, True),
}
IN_PLACE = ("SAME", "BLOCK", "NONE")


class Collective(NamedTuple):
    name: str
    kind: str
    nccl: str
    go: str
    reduces: bool
    rooted: bool
    send: str  # a PARTS key
    recv: str
    count: str
    in_place: str  # an IN_PLACE value


class P2p(NamedTuple):
    name: str
    nccl: str
    go: str
    buffer: str  # READ or WRITTEN


class OneSided(NamedTuple):
    name: str
    lsa: bool


class Table(NamedTuple):
    collectives: List[Collective]
    p2p: List[P2p]
    onesided: List[OneSided]


class TableError(Exception):
    pass


def per_rank(part):
    return PARTS[part][0]


def root_only(part):
    return PARTS[part][1]


def flag(text, where):
    if text not in ("0", "1"):
        raise TableError(f"{where}: {text!r} is not 0 or 1")
    return text == "1"


def check_collective(row, where):
    """The rules of a COLL row (core/op_table.h)."""
    if row.kind != row.name.upper():
        raise TableError(f"{where}: KIND {row.kind} is not the name in capitals")
    for column in ("send", "recv"):
        if getattr(row, column) not in PARTS:
            raise TableError(f"{where}: {column} {getattr(row, column)!r} is none of "
                             f"{', '.join(PARTS)}")
    if row.in_place not in IN_PLACE:
        raise TableError(f"{where}: in_place {row.in_place!r} is none of {', '.join(IN_PLACE)}")
    if row.rooted != (root_only(row.send) or root_only(row.recv)):
        raise TableError(f"{where}: rooted must be 1 exactly when a buffer is ROOT_")
    n_parts = per_rank(row.send) + per_rank(row.recv)
    if row.in_place == "SAME" and n_parts:
        raise TableError(f"{where}: SAME in place needs two count buffers")
    if row.in_place == "BLOCK" and n_parts != 1:
        raise TableError(f"{where}: BLOCK in place needs one nranks * count buffer")
    # The common rule (op_table.h: "What it computes follows from the
    # shape") covers these shapes only.
    if root_only(row.send) and (row.reduces or per_rank(row.recv)):
        raise TableError(f"{where}: a root-only sendbuf has one source: it can neither "
                         "reduce nor fill an nranks * count recvbuf")
    if not root_only(row.send) and not row.reduces and not per_rank(row.recv):
        raise TableError(f"{where}: from every rank into a count recvbuf needs a "
                         "reduction")
    if row.reduces and per_rank(row.recv):
        raise TableError(f"{where}: a reduction gives count elements, not nranks * count")


def parse(text):
    """The rows of CORE_OPERATIONS in text (core/op_table.h)."""
    m = re.search(r"^#define CORE_OPERATIONS\(COLL, P2P, ONESIDED\)[^\n]*\\\n((?:[^\n]*\\\n)*[^\n]*)",
                  text, re.M)
    if not m:
        raise TableError(f"{TABLE}: no #define CORE_OPERATIONS(COLL, P2P, ONESIDED)")
    line0 = text[:m.start(1)].count("\n") + 1
    table = Table([], [], [])
    names = set()
    for number, line in enumerate(m.group(1).split("\n"), line0):
        body = line.rstrip().rstrip("\\").strip()
        if not body:
            continue
        where = f"{TABLE}:{number}"
        row = re.fullmatch(r"(COLL|P2P|ONESIDED)\(([^()]*)\)", body)
        if not row:
            raise TableError(f"{where}: not a row: {body!r}")
        args = [a.strip() for a in row.group(2).split(",")]
        if not all(re.fullmatch(r"\w+", a) for a in args):
            raise TableError(f"{where}: arguments are names and numbers only: {body!r}")
        kind = row.group(1)
        want = {"COLL": 10, "P2P": 4, "ONESIDED": 2}[kind]
        if len(args) != want:
            raise TableError(f"{where}: {kind} takes {want} arguments, not {len(args)}")
        if args[0] in names or not re.fullmatch(r"[a-z][a-z0-9_]*", args[0]):
            raise TableError(f"{where}: name {args[0]!r} is taken or not lower-case")
        names.add(args[0])
        if kind == "COLL":
            name, k, nccl, go, reduces, rooted, send, recv, count, in_place = args
            c = Collective(name, k, nccl, go, flag(reduces, where), flag(rooted, where),
                           send, recv, count, in_place)
            check_collective(c, where)
            table.collectives.append(c)
        elif kind == "P2P":
            if args[3] not in ("READ", "WRITTEN"):
                raise TableError(f"{where}: buffer {args[3]!r} is not READ or WRITTEN")
            table.p2p.append(P2p(*args))
        else:
            table.onesided.append(OneSided(args[0], flag(args[1], where)))
    if not table.collectives:
        raise TableError(f"{TABLE}: no COLL row")
    return table


def read_table(root=ROOT):
    with open(os.path.join(root, TABLE)) as f:
        return parse(f.read())


# ---------------------------------------------------------------- writers

def calls_args(row, names):
    """The arguments after (send, recv, count) a binding's call of row takes:
    the operator where it reduces, the root where it is rooted."""
    out = []
    if row.reduces:
        out.append(names["op"])
    if row.rooted:
        out.append(names["root"])
    return out


def rust_binding(t):
    lines = [
        "//! What each collective does with its buffers: the rows of the table of",
        "//! operations (core/op_table.h), for the length checks this binding makes",
        "//! before the library touches memory (the library cannot see a slice's",
        f"//! length). @generated by {GENERATOR} from {TABLE}; do not edit.",
        "",
        "/// What one buffer of a collective holds and where it is used.",
        "#[derive(Clone, Copy)]",
        "pub(crate) struct Part {",
        "    /// Holds nranks * count elements, else count.",
        "    pub(crate) per_rank: bool,",
        "    /// Used on root only: not looked at elsewhere.",
        "    pub(crate) root_only: bool,",
        "}",
        "",
    ]
    for part, (pr, ro) in PARTS.items():
        lines += [f"/// `{part}`.",
                  f"pub(crate) const {part}: Part = Part {{",
                  f"    per_rank: {str(pr).lower()},",
                  f"    root_only: {str(ro).lower()},",
                  "};",
                  ""]
    lines += [
        "/// How a collective runs in place.",
        "#[derive(Clone, Copy, PartialEq, Eq)]",
        "pub(crate) enum InPlace {",
        "    /// sendbuf == recvbuf.",
        "    Same,",
        "    /// The count buffer is block `rank` of the nranks * count one.",
        "    Block,",
        "    /// The library refuses sendbuf == recvbuf.",
        "    Refused,",
        "}",
        "",
        "/// One collective's row.",
        "pub(crate) struct Collective {",
        "    /// Its C function, for messages.",
        "    pub(crate) function: &'static str,",
        "    /// What sendbuf holds.",
        "    pub(crate) send: Part,",
        "    /// What recvbuf holds.",
        "    pub(crate) recv: Part,",
        "    /// How it runs in place.",
        "    pub(crate) in_place: InPlace,",
        "}",
    ]
    rust_in_place = {"SAME": "Same", "BLOCK": "Block", "NONE": "Refused"}
    for c in t.collectives:
        lines += ["",
                  f"/// `ncore_{c.name}`.",
                  f"pub(crate) const {c.kind}: Collective = Collective {{",
                  f"    function: \"ncore_{c.name}\",",
                  f"    send: {c.send},",
                  f"    recv: {c.recv},",
                  f"    in_place: InPlace::{rust_in_place[c.in_place]},",
                  "};"]
    return "\n".join(lines) + "\n"


def go_binding(t):
    width = max(len("coll" + c.go) for c in t.collectives)
    lines = [
        f"// Code generated by {GENERATOR} from {TABLE}; DO NOT EDIT.",
        "",
        "package ncore",
        "",
        "// What each collective does with its buffers: the rows of the table of",
        "// operations (core/op_table.h), for the size checks the binding makes",
        "// before C touches a Go slice.",
        "",
        "// collPart is what a collective's buffer holds and where it is used.",
        "type collPart struct {",
        "\tperRank  bool // holds nranks * count elements, else count",
        "\trootOnly bool // used on root only: may be nil elsewhere",
        "}",
        "",
        "// collOp is one collective's row.",
        "type collOp struct {",
        "\tfn         string // its C function, for messages",
        "\tsend, recv collPart",
        "}",
        "",
        "// The buffer columns of the table.",
        "var (",
    ]
    for part, (pr, ro) in PARTS.items():
        lines.append(f"\t{go_part(part):<9} = collPart{{{str(pr).lower()}, {str(ro).lower()}}}")
    lines += [")", "", "// The collectives, one per row.", "var ("]
    for c in t.collectives:
        lines.append(f"\t{'coll' + c.go:<{width}} = collOp{{\"ncore_{c.name}\", "
                     f"{go_part(c.send)}, {go_part(c.recv)}}}")
    lines.append(")")
    return "\n".join(lines) + "\n"


def go_part(part):
    """ALL_1 -> partAll1, ROOT_N -> partRootN."""
    where, n = part.split("_")
    return "part" + where.title() + n


def python_binding(t):
    lines = [
        '"""What each collective does with its buffers: the rows of the table of',
        "operations (core/op_table.h), for the checks this binding makes before it",
        f"calls the library. Generated by {GENERATOR} from {TABLE}; do not",
        'edit."""',
        "",
        "from typing import NamedTuple",
        "",
        "",
        "class Part(NamedTuple):",
        '    """What a collective\'s buffer holds and where it is used."""',
        "",
        "    per_rank: bool  # holds nranks * count elements, else count",
        "    root_only: bool  # used on root only: may be None elsewhere",
        "",
        "",
    ]
    for part, (pr, ro) in PARTS.items():
        lines.append(f"{part} = Part({pr}, {ro})")
    lines += [
        "",
        "",
        "class Collective(NamedTuple):",
        '    """One collective\'s row."""',
        "",
        "    function: str  # its C function",
        "    send: Part",
        "    recv: Part",
        '    in_place: str  # "same", "block" or "none"',
        "",
        "",
    ]
    for c in t.collectives:
        lines.append(f'{c.kind} = Collective("ncore_{c.name}", {c.send}, {c.recv}, '
                     f'"{c.in_place.lower()}")')
    return "\n".join(lines) + "\n"


def conformance_table(t):
    lines = [
        '"""The table of operations (core/op_table.h) as data, for the case',
        "generator (conformance/tools/make_cases.py) and the driver's self-test.",
        f'Generated by {GENERATOR} from {TABLE}; do not edit."""',
        "",
        "from typing import NamedTuple",
        "",
        "",
        "class Part(NamedTuple):",
        "    per_rank: bool  # holds nranks * count elements, else count",
        "    root_only: bool  # used on root only",
        "",
        "",
        "class Collective(NamedTuple):",
        "    name: str",
        "    reduces: bool",
        "    rooted: bool",
        "    send: Part",
        "    recv: Part",
        "    count: str  # the count parameter's name",
        '    in_place: str  # "same", "block" or "none"',
        "",
        "",
        "class P2p(NamedTuple):",
        "    name: str",
        "    writes: bool  # the call writes its buffer (else reads it)",
        "",
        "",
        "class OneSided(NamedTuple):",
        "    name: str",
        "    lsa: bool  # reaches a peer that must be in the caller's LSA team",
        "",
        "",
    ]
    for part, (pr, ro) in PARTS.items():
        lines.append(f"{part} = Part({pr}, {ro})")
    lines += ["", "COLLECTIVES = ("]
    for c in t.collectives:
        lines.append(f'    Collective("{c.name}", {c.reduces}, {c.rooted}, {c.send}, {c.recv}, '
                     f'"{c.count}", "{c.in_place.lower()}"),')
    lines += [")", "P2P = ("]
    for p in t.p2p:
        lines.append(f'    P2p("{p.name}", {p.buffer == "WRITTEN"}),')
    lines += [")", "ONESIDED = ("]
    for o in t.onesided:
        lines.append(f'    OneSided("{o.name}", {o.lsa}),')
    lines.append(")")
    return "\n".join(lines) + "\n"


def c_runner(t):
    lines = [
        "/* conformance/runners/c/op_table_gen.c — the runner's call of every",
        " * collective and point-to-point row of the table of operations",
        f" * (core/op_table.h). GENERATED by {GENERATOR}; do not edit. */",
        "#include <string.h>",
        "",
        '#include "ops.h"',
        "",
        "op_table_kind_t op_table_kind(const char *op) {",
        "  static const struct {",
        "    const char *name;",
        "    op_table_kind_t kind;",
        "  } rows[] = {",
    ]
    for c in t.collectives:
        lines.append(f'      {{"{c.name}", OP_TABLE_COLLECTIVE}},')
    for p in t.p2p:
        lines.append(f'      {{"{p.name}", OP_TABLE_P2P}},')
    lines += [
        "  };",
        "  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)",
        "    if (strcmp(rows[i].name, op) == 0) return rows[i].kind;",
        "  return OP_TABLE_NONE;",
        "}",
        "",
        "ncore_status_t op_table_call(const char *op, const op_call_t *a) {",
    ]
    for c in t.collectives:
        extra = "".join(", " + x for x in calls_args(c, {"op": "op_redop(a->step)",
                                                          "root": "a->root"}))
        lines += [f'  if (strcmp(op, "{c.name}") == 0)',
                  f"    return ncore_{c.name}(a->comm, a->send, a->recv, a->count, a->dtype"
                  f"{extra}, NULL);"]
    for p in t.p2p:
        lines += [f'  if (strcmp(op, "{p.name}") == 0)',
                  f"    return ncore_{p.name}(a->comm, a->buf, a->count, a->dtype, a->peer, "
                  "NULL);"]
    lines += ["  return NCORE_ERR_INTERNAL;", "}"]
    return "\n".join(lines) + "\n"


def go_runner(t):
    lines = [
        f"// Code generated by {GENERATOR} from {TABLE}; DO NOT EDIT.",
        "",
        "package main",
        "",
        'import "ncore.dev/ncore"',
        "",
        "// collectiveCalls runs each collective row of the table of operations",
        "// through the binding, each buffer described with the elements the call",
        "// touches in it (nranks * count for an _N buffer).",
        "var collectiveCalls = map[string]func(c *ncore.Communicator, a callStep) error{",
    ]
    for c in t.collectives:
        args = ", ".join(["send", "recv"] + calls_args(c, {"op": "a.redop()", "root": "a.root"})
                         + ["nil"])
        lines += [f'\t"{c.name}": func(c *ncore.Communicator, a callStep) error {{',
                  f"\t\tsend, recv := a.buffers({str(per_rank(c.send)).lower()}, "
                  f"{str(per_rank(c.recv)).lower()})",
                  f"\t\treturn c.{c.go}({args})",
                  "\t},"]
    lines += [
        "}",
        "",
        "// p2pCalls runs each point-to-point row through the binding.",
        "var p2pCalls = map[string]func(c *ncore.Communicator, a callStep) error{",
    ]
    for p in t.p2p:
        lines += [f'\t"{p.name}": func(c *ncore.Communicator, a callStep) error {{',
                  "\t\t_, buf := a.buffers(false, false)",
                  f"\t\treturn c.{p.go}(buf, a.peer, nil)",
                  "\t},"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def python_runner(t):
    lines = [
        '"""The collective and point-to-point rows of the table of operations',
        "(core/op_table.h): what the runner passes after (comm, send, recv,",
        f"count, dtype). Generated by {GENERATOR}; do not edit.\"\"\"",
        "",
        "# name: (takes an operator, takes a root)",
        "COLLECTIVES = {",
    ]
    for c in t.collectives:
        lines.append(f'    "{c.name}": ({c.reduces}, {c.rooted}),')
    lines += ["}", "P2P = (" + ", ".join(f'"{p.name}"' for p in t.p2p) + ")"]
    return "\n".join(lines) + "\n"


def rust_runner(t):
    lines = [
        "//! The runner's call of every collective and point-to-point row of the",
        "//! table of operations (core/op_table.h) through the ncore crate.",
        f"//! @generated by {GENERATOR}; do not edit.",
        "",
        "use ncore::{Communicator, DeviceSlice, RedOp, Result};",
        "",
        "/// Whether `op` is a collective.",
        "pub fn is_collective(op: &str) -> bool {",
        "    matches!(",
        "        op,",
    ]
    names = [f'"{c.name}"' for c in t.collectives]
    lines.append("        " + "\n            | ".join(names))
    lines += [
        "    )",
        "}",
        "",
        "/// Whether `op` is a point-to-point call.",
        "pub fn is_p2p(op: &str) -> bool {",
        "    matches!(op, " + " | ".join(f'"{p.name}"' for p in t.p2p) + ")",
        "}",
        "",
        "/// Runs collective `op`; `redop` is read only by those that reduce.",
        "pub fn collective(",
        "    comm: &Communicator,",
        "    op: &str,",
        "    send: &DeviceSlice,",
        "    recv: &mut DeviceSlice,",
        "    count: usize,",
        "    root: i32,",
        "    redop: impl Fn() -> RedOp,",
        ") -> Result<()> {",
        "    match op {",
    ]
    for c in t.collectives:
        args = ", ".join(["send", "recv", "count"]
                         + calls_args(c, {"op": "redop()", "root": "root"}) + ["None"])
        lines.append(f'        "{c.name}" => comm.{c.name}({args}),')
    lines += [
        '        _ => unreachable!("{op} is no collective of core/op_table.h"),',
        "    }",
        "}",
        "",
        "/// Runs point-to-point call `op` on `buf`.",
        "pub fn p2p(",
        "    comm: &Communicator,",
        "    op: &str,",
        "    buf: &mut DeviceSlice,",
        "    count: usize,",
        "    peer: i32,",
        ") -> Result<()> {",
        "    match op {",
    ]
    for p in t.p2p:
        arg = "buf" if p.buffer == "WRITTEN" else "&*buf"
        lines.append(f'        "{p.name}" => comm.{p.name}({arg}, count, peer, None),')
    lines += [
        '        _ => unreachable!("{op} is no point-to-point call of core/op_table.h"),',
        "    }",
        "}",
    ]
    return "\n".join(lines) + "\n"


OUTPUTS = {
    "bindings/rust/ncore/src/op_table.rs": rust_binding,
    "bindings/go/op_table_gen.go": go_binding,
    "bindings/python/ncore/_op_table.py": python_binding,
    "conformance/driver/op_table.py": conformance_table,
    "conformance/runners/c/op_table_gen.c": c_runner,
    "conformance/runners/go/op_table_gen.go": go_runner,
    "conformance/runners/python/op_table.py": python_runner,
    "conformance/runners/rust/src/op_table.rs": rust_runner,
}


def main(argv):
    try:
        table = read_table()
    except TableError as e:
        print(f"gen-op-table: {e}", file=sys.stderr)
        return 1
    differ = []
    for path, writer in OUTPUTS.items():
        text = writer(table)
        full = os.path.join(ROOT, path)
        old = open(full).read() if os.path.exists(full) else None
        if old == text:
            continue
        if "--check" in argv:
            differ.append(path)
            continue
        with open(full, "w") as f:
            f.write(text)
        print(f"gen-op-table: wrote {path}")
    for path in differ:
        print(f"gen-op-table: {path} is not what {TABLE} gives: run "
              f"/usr/bin/python3 {GENERATOR}", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
