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
import textwrap
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
# Each writer fills a template: the fixed text, with {rows} (and the like)
# standing for what the table gives.

def call_args(row, op, root):
    """The arguments after (send, recv, count) a call of row takes: the
    operator where it reduces, the root where it is rooted (NCCL's order)."""
    return [op] * row.reduces + [root] * row.rooted


def fill(template, **parts):
    """template (dedented, without its first newline) with each {name}
    replaced by parts[name]."""
    text = textwrap.dedent(template).lstrip("\n")
    for name, value in parts.items():
        text = text.replace("{" + name + "}", value)
    return text


def rows(items, line):
    """One line per item, line(item), joined."""
    return "\n".join(line(item) for item in items)


def lower(flag_value):
    return str(flag_value).lower()


def fill_rows(template, t, part, collective, **more):
    """fill() with {parts}, part(name, per_rank, root_only) of each buffer
    column, and {collectives}, collective(row) of each COLL row."""
    return fill(template, generator=GENERATOR, table=TABLE,
                parts=rows(PARTS.items(), lambda p: part(p[0], *p[1])),
                collectives=rows(t.collectives, collective), **more)


RUST_IN_PLACE = {"SAME": "Same", "BLOCK": "Block", "NONE": "Refused"}


def rust_binding(t):
    def collective(c):
        return (f"pub(crate) const {c.kind}: Collective = row(\"ncore_{c.name}\", "
                f"{c.send}, {c.recv}, {RUST_IN_PLACE[c.in_place]});")
    return fill_rows("""
        //! The collectives' rows of the table of operations (core/op_table.h):
        //! what each one's buffers hold and where (the types: coll.rs), for the
        //! length checks this binding makes before the library touches memory.
        //! @generated by {generator} from {table}; do not edit.

        use crate::coll::InPlace::{Block, Refused, Same};
        use crate::coll::{part, row, Collective, Part};

        // The buffer columns.
        {parts}

        // The collectives, one per row.
        {collectives}
        """, t, lambda name, pr, ro: f"pub(crate) const {name}: Part = part({lower(pr)}, "
        f"{lower(ro)});", collective)


def go_part(part):
    """ALL_1 -> partAll1, ROOT_N -> partRootN."""
    where, n = part.split("_")
    return "part" + where.title() + n


def go_binding(t):
    width = max(len("coll" + c.go) for c in t.collectives)

    def collective(c):
        return (f"\t{'coll' + c.go:<{width}} = collOp{{\"ncore_{c.name}\", "
                f"{go_part(c.send)}, {go_part(c.recv)}}}")
    return fill_rows("""
        // Code generated by {generator} from {table}; DO NOT EDIT.

        package ncore

        // The collectives' rows of the table of operations (core/op_table.h):
        // what each one's buffers hold and where (the types: coll.go), for the
        // size checks the binding makes before C touches a Go slice.

        // The buffer columns.
        var (
        {parts}
        )

        // The collectives, one per row.
        var (
        {collectives}
        )
        """, t, lambda name, pr, ro: f"\t{go_part(name):<9} = collPart{{{lower(pr)}, "
        f"{lower(ro)}}}", collective)


def python_binding(t):
    return fill_rows('''
        """What each collective does with its buffers: the rows of the table of
        operations (core/op_table.h), for the checks this binding makes before it
        calls the library. Generated by {generator} from {table}; do not
        edit."""

        from typing import NamedTuple


        class Part(NamedTuple):
            """What a collective's buffer holds and where it is used."""

            per_rank: bool  # holds nranks * count elements, else count
            root_only: bool  # used on root only: may be None elsewhere


        {parts}


        class Collective(NamedTuple):
            """One collective's row."""

            function: str  # its C function
            send: Part
            recv: Part
            in_place: str  # "same", "block" or "none"


        {collectives}
        ''', t, lambda name, pr, ro: f"{name} = Part({pr}, {ro})",
        lambda c: f'{c.kind} = Collective("ncore_{c.name}", {c.send}, {c.recv}, '
        f'"{c.in_place.lower()}")')


def conformance_table(t):
    return fill_rows('''
        """The table of operations (core/op_table.h) as data, for the case
        generator (conformance/tools/make_cases.py) and the driver's self-test.
        Generated by {generator} from {table}; do not edit."""

        from collections import namedtuple

        # per_rank: holds nranks * count elements (else count); root_only: used
        # on root only.
        Part = namedtuple("Part", "per_rank root_only")
        # count: the count parameter's name; in_place: "same", "block" or "none".
        Collective = namedtuple("Collective", "name reduces rooted send recv count in_place")
        # writes: the call writes its buffer (else reads it).
        P2p = namedtuple("P2p", "name writes")
        # lsa: reaches a peer that must be in the caller's LSA team.
        OneSided = namedtuple("OneSided", "name lsa")

        {parts}

        COLLECTIVES = (
        {collectives}
        )
        P2P = (
        {p2p}
        )
        ONESIDED = (
        {onesided}
        )
        ''', t, lambda name, pr, ro: f"{name} = Part({pr}, {ro})",
        lambda c: f'    Collective("{c.name}", {c.reduces}, {c.rooted}, {c.send}, {c.recv}, '
        f'"{c.count}", "{c.in_place.lower()}"),',
        p2p=rows(t.p2p, lambda p: f'    P2p("{p.name}", {p.buffer == "WRITTEN"}),'),
        onesided=rows(t.onesided, lambda o: f'    OneSided("{o.name}", {o.lsa}),'))


def c_runner(t):
    def collective_call(c):
        extra = "".join(", " + a for a in call_args(c, "op_redop(a->step)", "a->root"))
        return (f'  if (strcmp(op, "{c.name}") == 0)\n'
                f"    return ncore_{c.name}(a->comm, a->send, a->recv, a->count, a->dtype"
                f"{extra}, a->stream);")

    def p2p_call(p):
        return (f'  if (strcmp(op, "{p.name}") == 0)\n'
                f"    return ncore_{p.name}(a->comm, a->buf, a->count, a->dtype, a->peer, a->stream);")
    return fill("""
        /* conformance/runners/c/op_table_gen.c — the runner's call of every
         * collective and point-to-point row of the table of operations
         * (core/op_table.h). GENERATED by {generator}; do not edit. */
        #include <string.h>

        #include "ops.h"

        op_table_kind_t op_table_kind(const char *op) {
          static const struct {
            const char *name;
            op_table_kind_t kind;
          } rows[] = {
        {kinds}
          };
          for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            if (strcmp(rows[i].name, op) == 0) return rows[i].kind;
          return OP_TABLE_NONE;
        }

        ncore_status_t op_table_call(const char *op, const op_call_t *a) {
        {collectives}
        {p2p}
          return NCORE_ERR_INTERNAL;
        }
        """, generator=GENERATOR,
        kinds=rows([(c.name, "COLLECTIVE") for c in t.collectives]
                   + [(p.name, "P2P") for p in t.p2p],
                   lambda k: f'      {{"{k[0]}", OP_TABLE_{k[1]}}},'),
        collectives=rows(t.collectives, collective_call),
        p2p=rows(t.p2p, p2p_call))


def go_runner(t):
    def collective_call(c):
        args = ", ".join(["send", "recv"] + call_args(c, "a.redop()", "a.root") + ["a.stream"])
        return (f'\t"{c.name}": func(c *ncore.Communicator, a callStep) error {{\n'
                f"\t\tsend, recv := a.buffers({lower(per_rank(c.send))}, "
                f"{lower(per_rank(c.recv))})\n"
                f"\t\treturn c.{c.go}({args})\n"
                "\t},")

    def p2p_call(p):
        return (f'\t"{p.name}": func(c *ncore.Communicator, a callStep) error {{\n'
                "\t\t_, buf := a.buffers(false, false)\n"
                f"\t\treturn c.{p.go}(buf, a.peer, a.stream)\n"
                "\t},")
    return fill("""
        // Code generated by {generator} from {table}; DO NOT EDIT.

        package main

        import "ncore.dev/ncore"

        // collectiveCalls runs each collective row of the table of operations
        // through the binding, each buffer described with the elements the call
        // touches in it (nranks * count for an _N buffer).
        var collectiveCalls = map[string]func(c *ncore.Communicator, a callStep) error{
        {collectives}
        }

        // p2pCalls runs each point-to-point row through the binding.
        var p2pCalls = map[string]func(c *ncore.Communicator, a callStep) error{
        {p2p}
        }
        """, generator=GENERATOR, table=TABLE,
        collectives=rows(t.collectives, collective_call),
        p2p=rows(t.p2p, p2p_call))


def python_runner(t):
    return fill('''
        """The collective and point-to-point rows of the table of operations
        (core/op_table.h): what the runner passes after (comm, send, recv,
        count, dtype). Generated by {generator}; do not edit."""

        # name: (takes an operator, takes a root)
        COLLECTIVES = {
        {collectives}
        }
        P2P = ({p2p})
        ''', generator=GENERATOR,
        collectives=rows(t.collectives, lambda c: f'    "{c.name}": ({c.reduces}, {c.rooted}),'),
        p2p=", ".join(f'"{p.name}"' for p in t.p2p))


def rust_runner(t):
    def collective_call(c):
        args = ", ".join(["&a.send", "&mut a.recv", "a.count"]
                         + call_args(c, "(a.redop)()", "a.root") + ["a.stream"])
        return f'        "{c.name}" => comm.{c.name}({args}),'

    def p2p_call(p):
        buf = "&mut a.buf" if p.buffer == "WRITTEN" else "&a.buf"
        return f'        "{p.name}" => comm.{p.name}({buf}, a.count, a.peer, a.stream),'
    return fill("""
        //! The runner's call of every collective and point-to-point row of the
        //! table of operations (core/op_table.h) through the ncore crate.
        //! @generated by {generator}; do not edit.

        use ncore::{Communicator, Result};

        use crate::ops_data::{CollectiveArgs, P2pArgs};

        /// Whether `op` is a collective.
        pub fn is_collective(op: &str) -> bool {
            matches!(
                op,
                {names}
            )
        }

        /// Whether `op` is a point-to-point call.
        pub fn is_p2p(op: &str) -> bool {
            matches!(op, {p2p_names})
        }

        /// Runs collective `op` with `a`'s arguments.
        pub fn collective(comm: &Communicator, op: &str, a: &mut CollectiveArgs) -> Result<()> {
            match op {
        {collectives}
                _ => unreachable!("{op} is no collective of core/op_table.h"),
            }
        }

        /// Runs point-to-point call `op` with `a`'s arguments.
        pub fn p2p(comm: &Communicator, op: &str, a: &mut P2pArgs) -> Result<()> {
            match op {
        {p2p}
                _ => unreachable!("{op} is no point-to-point call of core/op_table.h"),
            }
        }
        """, generator=GENERATOR,
        names="\n            | ".join(f'"{c.name}"' for c in t.collectives),
        p2p_names=" | ".join(f'"{p.name}"' for p in t.p2p),
        collectives=rows(t.collectives, collective_call),
        p2p=rows(t.p2p, p2p_call))


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
