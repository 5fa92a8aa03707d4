"""The collectives' entry points and methods, written from their rows of the
table of operations (core/op_table.h) by tools/gen-op-table.py:

  core/coll_gen.c                           the C entry points, one explicit
                                            definition each (grep and ctags
                                            find them)
  bindings/rust/ncore/src/coll_gen.rs       Communicator's methods and their
                                            _in_place twins
  bindings/go/coll_gen.go                   Communicator's methods
  bindings/python/ncore/_collectives_gen.py CollectivesMixin (nccl.core's
                                            names and signatures)

Each method is the row's call through its binding's one checking helper
(Rust coll_args / coll_in_place_args in coll.rs, Go prepareColl in
coll.go, Python _collective in _collectives.py), and its documentation is
the row in words (describe_* below): what lands where, which buffer holds
how much, where the root matters, how it runs in place. A row the rule of
the table covers needs nothing written by hand in any binding."""
from op_table import call_args, fill, per_rank, root_only

# ------------------------------------------------------------ the words
# Phrases of one row, shared by every language; `send`, `recv` and `count`
# are the names as the language writes them (with its markup).


def whose(part, every="every rank's"):
    """Whose buffer a column is: root's where only root uses it."""
    return "root's" if root_only(part) else every


def describe_effect(c, send, recv, op):
    """What the collective computes, as the table's rule says (op_table.h:
    "What it computes follows from the shape"), as a clause."""
    if root_only(c.send):  # one source: the rule allows no reduction here
        if per_rank(c.send):
            return f"block r of root's {send} lands in rank r's {recv}"
        return f"root's {send} is copied into every rank's {recv}"
    if c.reduces:
        if per_rank(c.send):
            target = ("block root of the result lands in root's " if root_only(c.recv)
                      else "block r of the result lands in rank r's ")
            return f"{send} is reduced over ranks with {op}; {target}{recv}"
        return f"{send} is reduced over ranks with {op} into {whose(c.recv)} {recv}"
    if per_rank(c.send):
        target = "root's" if root_only(c.recv) else "rank j's"
        block = "block root" if root_only(c.recv) else "block j"
        return f"{block} of every rank r's {send} lands in block r of {target} {recv}"
    return f"every rank r's {send} lands in block r of {whose(c.recv)} {recv}"


def elements(part, count):
    return f"nranks * {count} elements" if per_rank(part) else f"{count} elements"


def where_used(part, nothing):
    """The note of a buffer only root uses: what it may be elsewhere."""
    return f" (used on root only: {nothing} elsewhere)" if root_only(part) else ""


def describe_in_place(c, send, recv, same):
    """When the call runs in place, as a sentence."""
    if c.in_place == "SAME":
        return f"In place when {send} and {recv} are {same}."
    if c.in_place == "NONE":
        return f"Not in place: {send} and {recv} being {same} is refused."
    whole, block = (send, recv) if per_rank(c.send) else (recv, send)
    on_root = " (on root)" if c.rooted else ""
    return f"In place when {block} is block `rank` of {whole}{on_root}."


def twin_everywhere(c, table):
    """The row that is c with every root-only buffer used on every rank
    (reduce -> allreduce, gather -> allgather), if the table has it:
    nccl.core's root=None calls it."""
    if not c.rooted or root_only(c.send):
        return None
    everywhere = c.recv.replace("ROOT_", "ALL_")
    for t in table.collectives:
        if (not t.rooted and t.reduces == c.reduces and t.send == c.send
                and t.recv == everywhere):
            return t
    return None


def comment_lines(text, prefix, width=80):
    """text wrapped into lines of at most width that start with prefix."""
    lines, line = [], prefix
    for word in text.split():
        if line != prefix and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = prefix
        line += word if line == prefix else " " + word
    lines.append(line)
    return "\n".join(lines)


def wrap_args(head, args, tail, indent=None, width=80):
    """head + args joined by ", " + tail, wrapped at width with continued
    lines starting at indent (default: under the first argument, as
    clang-format, rustfmt's visual style and black's older style do)."""
    indent = " " * len(head) if indent is None else indent
    lines, line = [], head
    for i, arg in enumerate(args):
        piece = arg + (", " if i < len(args) - 1 else tail)
        if line != head and line != indent and len(line) + len(piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = indent
        line += piece
    lines.append(line)
    return "\n".join(lines)


# -------------------------------------------------------------------- C

def c_params(c):
    params = ["ncore_comm_t comm", "const void *sendbuf", "void *recvbuf",
              f"size_t {c.count}", "ncore_dtype_t dtype"]
    return params + call_args(c, "ncore_redop_t op", "int root") + ["ncore_stream_t stream"]


def c_config_params(c):
    """The parameters of ncore_<name>_config: the row's, then config."""
    return c_params(c) + ["const ncore_coll_config_t *config"]


def c_entry_points(t):
    def entry(c, twin):
        suffix, params, config = (("_config", c_config_params(c), "config") if twin
                                  else ("", c_params(c), "NULL"))
        head = f"NCORE_API ncore_status_t ncore_{c.name}{suffix}("
        signature = wrap_args(head, params, ") {")
        call = wrap_args("  return core_collective(",
                         [f"CORE_COLL_{c.kind}", "comm", "sendbuf", "recvbuf", c.count, "dtype",
                          "op" if c.reduces else "NCORE_SUM", "root" if c.rooted else "0",
                          "stream", config], ");")
        return f"{signature}\n{call}\n}}\n"
    return fill("""
        /* core/coll_gen.c — the collectives' entry points (ncore/coll.h), one
         * definition per COLL row of the table of operations (core/op_table.h)
         * and its _config twin: written out, not made by a macro, so that grep
         * and ctags find each. ncore/coll.h declares each, so the compiler
         * holds the two to one signature. GENERATED by tools/gen-op-table.py;
         * do not edit. */
        #include "coll.h"

        {entries}""", entries="\n".join(entry(c, twin) for c in t.collectives
                                        for twin in (False, True)))


COLL_HEADER = "abi/include/ncore/coll.h"
TWINS_BEGIN = "/* BEGIN GENERATED _config twins */\n"
TWINS_END = "/* END GENERATED _config twins */\n"


def c_config_declarations(t):
    """abi/include/ncore/coll.h with the block between its two marks
    rewritten: one documented declaration of ncore_<name>_config per COLL
    row (the rest of the header is written by hand)."""
    def declaration(c):
        doc = comment_lines(f"ncore_{c.name} with a per-call configuration (NULL: as "
                            f"ncore_{c.name}); config: borrowed for the call.", " * ", 80)
        head = f"NCORE_API ncore_status_t ncore_{c.name}_config("
        return f"/*{doc[2:]} */\n{wrap_args(head, c_config_params(c), ');')}\n"
    import os
    from op_table import ROOT
    text = open(os.path.join(ROOT, COLL_HEADER)).read()
    before, rest = text.split(TWINS_BEGIN, 1)
    _, after = rest.split(TWINS_END, 1)
    return (before + TWINS_BEGIN + "\n".join(declaration(c) for c in t.collectives)
            + TWINS_END + after)


# ----------------------------------------------------------------- Rust

def rust_doc(text, indent="    "):
    return comment_lines(text, indent + "/// ", 80)


def rust_describe(c, count):
    effect = describe_effect(c, "`send`", "`recv`", "`op`")
    in_place = (f"In place: [`{c.name}_in_place`](Self::{c.name}_in_place)."
                if c.in_place != "NONE" else "Not in place.")
    return (f"Runs `ncore_{c.name}`: {effect}. `send` holds "
            f"{elements(c.send, f'`{count}`')}{where_used(c.send, 'not read')}, `recv` "
            f"{elements(c.recv, f'`{count}`')}{where_used(c.recv, 'not written')}. {in_place}")


def rust_in_place_describe(c, count):
    if c.in_place == "SAME":
        layout = f"`buf` is both `send` and `recv` (`{count}` elements)"
    else:
        whole, block = ("send", "recv") if per_rank(c.send) else ("recv", "send")
        layout = (f"`buf` is `{whole}` (nranks * `{count}` elements) and `{block}` is its "
                  f"block `rank`")
        if c.rooted:
            layout += f" on root; elsewhere `buf` is `{block}` (`{count}` elements)"
    return f"In-place [`{c.name}`](Self::{c.name}): {layout}."


def rust_call(c, send, recv, indent, config=False):
    """check(unsafe { the C call }), laid out as rustfmt lays it out; the
    _config twin with config."""
    args = ["a.comm", send, recv, c.count, "a.dtype"] + call_args(c, "op.raw()", "root") + [
        "a.stream"] + (["&config.raw"] if config else [])
    name = f"ncore_{c.name}_config" if config else f"ncore_{c.name}"
    call = f"sys::{name}({', '.join(args)})"
    short = len(", ".join(args)) <= 60  # rustfmt's fn_call_width
    if short and len(f"{indent}check(unsafe {{ {call} }})") <= 100:
        return f"{indent}check(unsafe {{ {call} }})"
    if short and len(f"{indent}    {call}") <= 100:
        return f"{indent}check(unsafe {{\n{indent}    {call}\n{indent}}})"
    inner = indent + "        "
    return (f"{indent}check(unsafe {{\n{indent}    sys::{name}(\n"
            + "".join(f"{inner}{a},\n" for a in args) + f"{indent}    )\n{indent}}})")


def rust_params(c, buffers, config=False):
    params = ["&self"] + buffers + [f"{c.count}: usize"] + call_args(
        c, "op: RedOp", "root: i32") + ["stream: Option<&Stream>"] + (
        ["config: &CollConfig"] if config else [])
    return "".join(f"        {p},\n" for p in params)


def rust_methods(t):
    def method(c, in_place, config):
        root = "root" if c.rooted else "0"
        base = c.name + ("_in_place" if in_place else "")
        name = base + ("_config" if config else "")
        if config:
            doc = (f"[`{base}`](Self::{base}) with a per-call configuration "
                   f"(`ncore_{c.name}_config`).")
        else:
            doc = rust_in_place_describe(c, c.count) if in_place else rust_describe(c, c.count)
        if in_place:
            head = (f"    pub fn {name}<B: BufferMut + ?Sized>(\n"
                    f"{rust_params(c, ['buf: &mut B'], config)}")
            args = (f"        let a = self.coll_in_place_args(&op_table::{c.kind}, buf, "
                    f"{c.count}, {root}, stream)?;\n")
            safety = "        // SAFETY: coll_in_place_args checked what the call touches in buf.\n"
        else:
            head = (f"    pub fn {name}<S: Buffer + ?Sized, R: BufferMut + ?Sized>(\n"
                    f"{rust_params(c, ['send: &S', 'recv: &mut R'], config)}")
            args = (f"        let a = self.coll_args(&op_table::{c.kind}, send, recv, "
                    f"{c.count}, {root}, stream)?;\n")
            safety = ("        // SAFETY: coll_args checked what the call touches; borrowed "
                      "for it.\n")
        if config:
            args += f'        let config = config.to_raw("ncore_{c.name}_config")?;\n'
            safety = (safety.rstrip(".\n") + "; config's\n"
                      "        // pointers are borrowed for the call too.\n")
        return (f"{rust_doc(doc)}\n{head}    ) -> Result<()> {{\n{args}{safety}"
                f"{rust_call(c, 'a.send', 'a.recv', '        ', config)}\n    }}\n")

    def methods(c):
        forms = [False] if c.in_place == "NONE" else [False, True]
        return "\n".join(method(c, in_place, config) for in_place in forms
                         for config in (False, True))
    return fill("""
        //! The collectives: one method per row of the table of operations
        //! (core/op_table.h), with its `_in_place` twin where the row runs in
        //! place, and a `_config` twin of each taking a [`CollConfig`]; the
        //! checks they share are coll.rs's.
        //! @generated by tools/gen-op-table.py from core/op_table.h; do not edit.

        use ncore_sys as sys;

        use crate::buffer::{Buffer, BufferMut};
        use crate::coll_config::CollConfig;
        use crate::comm::Communicator;
        use crate::error::{check, Result};
        use crate::op_table;
        use crate::stream::Stream;
        use crate::types::RedOp;

        impl Communicator {
        {methods}}
        """, methods="\n".join(methods(c) for c in t.collectives))


# ------------------------------------------------------------------- Go

def go_describe(c):
    effect = describe_effect(c, "send", "recv", "op")
    if not per_rank(c.send) and not root_only(c.send):
        count = "len(send)"
    elif not per_rank(c.recv) and not root_only(c.recv):
        count = "len(recv)"
    else:
        count = "len(send) / nranks (a multiple of nranks)"
    return (f"{c.go} runs ncore_{c.name}: {effect}. The count n is {count}; send holds "
            f"{elements(c.send, 'n')}{where_used(c.send, 'may be nil')}, recv "
            f"{elements(c.recv, 'n')}{where_used(c.recv, 'may be nil')}. "
            + describe_in_place(c, "send", "recv", "the same memory").replace("`", ""))


def go_methods(t):
    def method(c):
        params = ", ".join(["send, recv Buffer"] + call_args(c, "op ReduceOp", "root int")
                           + ["stream *Stream"])
        root = "root" if c.rooted else "0"
        args = (["c.ch()", "a.send.hp", "a.send.dp", "a.recv.hp", "a.recv.dp",
                 "C.size_t(a.count)", "C.int(a.dtype)"]
                + call_args(c, "C.int(op)", "a.root") + ["stream.arg()"])
        call = wrap_args(f"\treturn done(fromResult(C.ncgo_{c.name}(", args,
                         ")), c, send, recv)", "\t\t", width=100)
        twin_call = wrap_args(f"\treturn done(fromResult(C.ncgo_{c.name}_config(",
                              args + ["cc.ptr()"], ")), c, send, recv)", "\t\t", width=100)
        twin_doc = (f"{c.go}Config is {c.go} with a per-call configuration (nil: none), "
                    f"through ncore_{c.name}_config.")
        return (f"{comment_lines(go_describe(c), '// ', 80)}\n"
                f"func (c *Communicator) {c.go}({params}) error {{\n"
                f"\ta, err := c.prepareColl(&coll{c.go}, send, recv, {root}, stream)\n"
                "\tif err != nil {\n\t\treturn err\n\t}\n"
                f"{call}\n}}\n\n"
                f"{comment_lines(twin_doc, '// ', 80)}\n"
                f"func (c *Communicator) {c.go}Config({params}, config *CollConfig) error {{\n"
                f"\ta, err := c.prepareColl(&coll{c.go}, send, recv, {root}, stream)\n"
                "\tif err != nil {\n\t\treturn err\n\t}\n"
                "\tcc, err := config.toC()\n"
                "\tif err != nil {\n\t\treturn err\n\t}\n"
                "\tdefer cc.free()\n"
                f"{twin_call}\n}}\n")
    return fill("""
        // Code generated by tools/gen-op-table.py from core/op_table.h; DO NOT EDIT.

        package ncore

        /*
        #include "ncgo.h"
        */
        import "C"

        // The collectives: one method per row of the table of operations
        // (core/op_table.h) and its Config twin (a CollConfig); the checks they
        // share are coll.go's.

        {methods}""", methods="\n".join(method(c) for c in t.collectives))


# --------------------------------------------------------------- Python

def python_counts(c):
    """How the method takes the count from the buffers (_collective)."""
    if root_only(c.send):
        exact = ("one block of it (its count // nranks)" if per_rank(c.send)
                 else "as many elements")
        return (f"The count comes from recvbuf; sendbuf is used on root only (may be None "
                f"elsewhere), where recvbuf holds exactly {exact}.")
    count = ("sendbuf's count // nranks (a tail short of a block is not sent)"
             if per_rank(c.send) else "sendbuf's count")
    if per_rank(c.send) == per_rank(c.recv):
        needed = "as many elements as sendbuf"
    elif per_rank(c.recv):
        needed = "nranks times the count"
    else:
        needed = "the count"
    where = " where it is used (on root only: may be None elsewhere)" if root_only(c.recv) else ""
    return f"The count is {count}; recvbuf holds at least {needed}{where}."


def python_describe(c, twin):
    text = f"Runs ncore_{c.name}: {describe_effect(c, 'sendbuf', 'recvbuf', 'op')}."
    if twin:
        text += f" root=None: on every rank, i.e. {twin.name}."
    text += " " + python_counts(c)
    text += " " + describe_in_place(c, "sendbuf", "recvbuf", "the same memory").replace("`", "")
    raises = "mismatched dtypes, a buffer smaller than the call needs, wrong device, bad buffers"
    raises += ", root out of range" if c.rooted else ""
    return (comment_lines(text, "        ", 80).lstrip() + "\n\n        Raises:\n"
            + comment_lines(f"NcclInvalid: {raises}.", "            ", 80).replace(
                "\n            ", "\n                ") + "\n        ")


def python_method(c, t):
    twin = twin_everywhere(c, t)
    params = (["self", "sendbuf: NcclBufferSpec", "recvbuf: NcclBufferSpec"]
              + ["op: NcclRedOpSpec"] * c.reduces)
    if c.rooted:
        params.append("root: Optional[int] = None" if twin else "root: int")
    head = f"    def {c.name}("
    signature = wrap_args(head, params + ["*", "stream: Optional[NcclStreamSpec] = None",
                                          "config: Optional[NCCLCollConfig] = None"],
                          ") -> None:", width=99)
    body = [f'        """{python_describe(c, twin)}"""']
    if c.send == c.recv == "ALL_1":
        body.append(python_hot_path(c))
        return signature + "\n" + "\n".join(body) + "\n"
    if twin:
        twin_args = ", ".join(["sendbuf", "recvbuf"] + ["op"] * twin.reduces)
        body += ["        if root is None:",
                 f"            self.{twin.name}({twin_args}, stream=stream, config=config)",
                 "            return"]
    root = "root" if c.rooted else "None"
    body.append(wrap_args("        send, recv, count, dtype = self._collective(",
                          [f"_op_table.{c.kind}", "sendbuf", "recvbuf", root], ")",
                          width=99))
    args = (["self._live()", "send", "recv", "count", "dtype"]
            + call_args(c, "_op_value(op)", "root") + ["resolve_stream(stream)"])
    body.append(python_call(c, args, "        "))
    return signature + "\n" + "\n".join(body) + "\n"


def python_call(c, args, indent):
    """The C call: the plain function without a config, its _config twin
    with one (coll_config_to_c checks and converts it)."""
    plain = wrap_args(f"{indent}    raw.ncore_{c.name}(", args, ")", width=99)
    twin = wrap_args(f"{indent}    raw.ncore_{c.name}_config(",
                     args + ["coll_config_to_c(config)"], ")", width=99)
    return f"{indent}if config is None:\n{plain}\n{indent}else:\n{twin}"


def python_hot_path(c):
    """_collective's rule for two count buffers used on every rank (no root),
    in place when they are one, written out: the call path the NCCL backend
    times (docs/architecture.md, "The call path on NCCL")."""
    return fill(f"""
        # _collective's rule for two count buffers, in place when they are one,
        # written out for the hot path (docs/architecture.md, "The call path on
        # NCCL").
        handle = self._live()
        in_place = recvbuf is sendbuf  # the common case: one resolution
        # `writes` positionally: a keyword costs the hot path time of its own.
        send_ptr, count, dtype = self._call_args(handle, sendbuf, "sendbuf", in_place)
        op_value = _op_value(op)
        stream_handle = resolve_stream(stream)
        if in_place:
            recv_ptr = send_ptr
        else:
            recv_ptr, recv_count, recv_dtype = self._call_args(handle, recvbuf, "recvbuf", True)
            if recv_dtype != dtype:
                _dtype_mismatch(dtype, recv_dtype)
            _at_least("recvbuf", recv_count, count)
        """).rstrip("\n").replace("\n", "\n        ").join(["        ", ""]) + "\n" + python_call(
        c, ["handle", "send_ptr", "recv_ptr", "count", "dtype", "op_value", "stream_handle"],
        "        ")


def python_methods(t):
    return fill('''
        """Collective methods of Communicator (nccl.core page "Collective
        Communication Methods"), one per row of the table of operations
        (core/op_table.h); the checks they share are _collectives.py's.
        Generated by tools/gen-op-table.py from core/op_table.h; do not edit."""

        from __future__ import annotations

        from typing import Optional

        from . import _op_table
        from ._collectives import (CollectiveChecks, NcclRedOpSpec, _at_least, _dtype_mismatch,
                                   _op_value)
        from ._lib import raw
        from .buffer import resolve_stream
        from .config import NCCLCollConfig, coll_config_to_c
        from .typing import NcclBufferSpec, NcclStreamSpec


        class CollectivesMixin(CollectiveChecks):
            """{names}"""

        {methods}''', names=comment_lines(
        f"The {len(t.collectives)} collectives of Communicator, one per COLL row: "
        + ", ".join(c.name for c in t.collectives) + ". Every method also "
        "raises NcclInvalid naming recvbuf (sendbuf where it runs in place) where the call "
        "would write into read-only memory (buffer.writable), and takes config= (an "
        "NCCLCollConfig: that call's configuration, through the C _config twin).", "    ",
        80).lstrip(),
                methods="\n".join(python_method(c, t) for c in t.collectives))


OUTPUTS = {
    "core/coll_gen.c": c_entry_points,
    COLL_HEADER: c_config_declarations,
    "bindings/rust/ncore/src/coll_gen.rs": rust_methods,
    "bindings/go/coll_gen.go": go_methods,
    "bindings/python/ncore/_collectives_gen.py": python_methods,
}
