#!/usr/bin/env python3
"""bindings/go/gen-ncgo.py [--compile-check]: writes bindings/go/ncgo_gen.h,
the cgo wrappers of the Go binding, from the public headers
(tools/ncore_api.py reads them), so that the shim cannot drift from the ABI
(tools/check-generated.py fails when the committed file is not its output).

Every NCORE_API function that returns ncore_status_t gets

    static inline ncgo_result ncgo_<name>(<params>) {
      return ncgo_result_of(ncore_<name>(<args>));
    }

(ncgo.h says why: the error message is read in the same C call), unless
ncgo.h defines ncgo_<name> by hand. Functions that return their value
directly (ncore_abi_version, ncore_*_is_valid, ncore_last_error_status,
...) need no wrapper: Go calls them as C.ncore_<name>.

Parameters cross as Go can hold them:
  - an enum or ncore_redop_t: int, cast back;
  - ncore_stream_t: uintptr_t (NCGO_STREAM);
  - a buffer (void * / const void *): a pair `void *<name>_hp, uintptr_t
    <name>_dp` (NCGO_PTR: a Go pointer valid for the call, or an address),
    except where the library keeps the pointer (ADDRESS_ONLY below): then
    only `uintptr_t <name>`, since Go memory must never be kept by C;
  - const struct DLTensor *: uintptr_t (a tensor some framework owns);
  - an out-parameter of an enum, ncore_redop_t or ncore_status_t: int *;
    void ** and ncore_stream_t *: uintptr_t *; each through a C temporary;
  - everything else (handles, sizes, ints, strings, struct pointers) as is.

--compile-check: writes nothing; exits 1 when ncgo.h (with the committed
ncgo_gen.h) does not compile cleanly against the headers with -Wall -Wextra
-Werror (so a hand-written wrapper that passes a wrong type fails too). Run
by bindings/go/test.sh.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import ncore_api  # noqa: E402

OUT = os.path.join(HERE, "ncgo_gen.h")

# Functions that return a status as their value instead of reporting one.
NOT_CALLS = {"ncore_last_error_status"}

# (function, parameter) pairs whose pointer the library keeps after the call
# (a registration, an allocation being freed): Go passes an address only.
ADDRESS_ONLY = {
    ("ncore_register_buffer", "ptr"),
    ("ncore_register_window", "ptr"),
    ("ncore_mem_free", "ptr"),
}


def enum_types(headers):
    """Names of the enum typedefs, plus ncore_redop_t (an int32_t)."""
    text = "".join(open(p).read() for p in ncore_api.header_files(headers))
    names = set(re.findall(r"typedef\s+enum\s+\w+\s*\{.*?\}\s*(\w+)\s*;", text, re.S))
    return names | {"ncore_redop_t"}


def wrapper(f, enums):
    """The C text of ncgo_<name> for function f."""
    params, args, before, after = [], [], [], []
    for p in f.params:
        t, n = p.type, p.name
        base = t.replace("const", "").replace("*", "").strip()
        if t in enums:
            params.append(f"int {n}")
            args.append(f"({t}){n}")
        elif t == "ncore_stream_t":
            params.append(f"uintptr_t {n}")
            args.append(f"NCGO_STREAM({n})")
        elif t in ("void *", "const void *"):
            if (f.name, n) in ADDRESS_ONLY:
                params.append(f"uintptr_t {n}")
                args.append(f"(void *){n}")
            else:
                params += [f"void *{n}_hp", f"uintptr_t {n}_dp"]
                args.append(f"NCGO_PTR({n}_hp, {n}_dp)")
        elif t == "const struct DLTensor *":
            params.append(f"uintptr_t {n}")
            args.append(f"(const struct DLTensor *){n}")
        elif t.endswith(" *") and not t.startswith("const") and \
                (base in enums or base == "ncore_status_t"):
            params.append(f"int *{n}")
            before.append(f"{base} {n}_value = ({base})0;")
            args.append(f"&{n}_value")
            after.append(f"*{n} = (int){n}_value;")
        elif t in ("void **", "ncore_stream_t *"):
            value_type = "void *" if t == "void **" else "ncore_stream_t "
            params.append(f"uintptr_t *{n}")
            before.append(f"{value_type}{n}_value = NULL;")
            args.append(f"&{n}_value")
            after.append(f"*{n} = (uintptr_t){n}_value;")
        else:
            params.append(f"{t}{'' if t.endswith('*') else ' '}{n}")
            args.append(n)
    short = f.name[len("ncore_"):]
    head = f"static inline ncgo_result ncgo_{short}({', '.join(params) or 'void'})"
    call = f"{f.name}({', '.join(args)})"
    if not before:
        return f"{head} {{\n  return ncgo_result_of({call});\n}}\n"
    body = [f"  {line}" for line in before]
    body.append(f"  ncgo_result r = ncgo_result_of({call});")
    body += [f"  {line}" for line in after]
    body.append("  return r;")
    return head + " {\n" + "\n".join(body) + "\n}\n"


def generate(headers=ncore_api.HEADERS):
    hand = set(re.findall(r"\bncgo_(\w+)\s*\(", open(os.path.join(HERE, "ncgo.h")).read()))
    enums = enum_types(headers)
    parts = ["""/* ncgo_gen.h — GENERATED by bindings/go/gen-ncgo.py from abi/include; do not
 * edit: change the headers (or ncgo.h, for a wrapper written by hand) and
 * run `python3 bindings/go/gen-ncgo.py`. Included by ncgo.h. */
#ifndef NCORE_GO_NCGO_GEN_H
#define NCORE_GO_NCGO_GEN_H
"""]
    header = None
    for f in ncore_api.functions(headers):
        if f.returns != "ncore_status_t" or f.name in NOT_CALLS or \
                f.name[len("ncore_"):] in hand:
            continue
        if f.header != header:
            header = f.header
            parts.append(f"\n/* ---- {header} ---- */\n")
        parts.append(wrapper(f, enums))
    parts.append("\n#endif /* NCORE_GO_NCGO_GEN_H */\n")
    return "".join(parts)


def compiles(headers=ncore_api.HEADERS):
    """Compiles ncgo.h (and so ncgo_gen.h) strictly; returns the errors."""
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "ncgo_check.c")
        with open(source, "w") as f:
            f.write('#include "ncgo.h"\n')
        done = subprocess.run(
            ["gcc", "-std=gnu11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
             "-Wno-unused-function", "-I", HERE, "-I", headers, source],
            capture_output=True, text=True)
    return done.returncode == 0, done.stderr


def main(argv):
    if "--compile-check" not in argv:
        with open(OUT, "w") as f:
            f.write(generate())
        print(f"gen-ncgo: wrote {os.path.relpath(OUT, ROOT)}")
        return 0
    clean, errors = compiles()
    if clean:
        print("gen-ncgo: ncgo.h compiles against the headers with -Wall -Wextra -Werror")
        return 0
    print("gen-ncgo: ncgo.h does not compile cleanly against the headers:\n" + errors)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
