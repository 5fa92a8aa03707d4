"""The table of operations (core/op_table.h) as Python values, for the
generators that write what follows from it (tools/gen-op-table.py and the
writers it imports): read_table() parses the rows of CORE_OPERATIONS (one
per line, names and numbers only: the header says so) and checks them; a
row that breaks a rule of the table (a rooted collective without a
root-only buffer, an in-place rule its shapes cannot have, a shape the
collectives' common rule does not cover) raises TableError naming its
line."""
import os
import re
import textwrap
from typing import List, NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = "core/op_table.h"

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


# ------------------------------------------------- for the writers
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
