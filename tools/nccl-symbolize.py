#!/usr/bin/env python3
"""tools/nccl-symbolize.py: names the libnccl frames of stacks from a GPU
machine, where libnccl is stripped, with addr2line against an unstripped
build of the same source (or its `objcopy --only-keep-debug` file): the
crash stacks the test harness prints (backtrace_symbols_fd:
`libnccl.so.2(+0xOFF)` or `(symbol+0xOFF)`) and the cuda-gdb stacks of
tools/gpu-hang-stacks.sh (`0xADDR in ... from .../libnccl.so.2`, after its
NCCLBASE line). Each LOG gets a LOG.sym beside it, with a `=> function at
file:line` line under each such frame.

Usage: tools/nccl-symbolize.py UNSTRIPPED STRIPPED LOG...
  UNSTRIPPED: the build with symbols (or its debug file); STRIPPED: the
  library the stacks came from (for its exported symbols)."""
import re
import subprocess
import sys

BACKTRACE = re.compile(r"libnccl\.so[.\d]*\((\w*)\+0x([0-9a-f]+)\)")
GDB_FRAME = re.compile(r"#\d+\s+0x([0-9a-f]+) in \S+ \(.*\) from \S*libnccl")
BASE = re.compile(r"NCCLBASE ([0-9a-f]+)")


def exported_symbols(library):
    """Name -> offset of the library's dynamic symbols."""
    out = subprocess.run(["nm", "-D", "--defined-only", library],
                         capture_output=True, text=True, check=True).stdout
    table = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            table[parts[2]] = int(parts[0], 16)
    return table


def describe(unstripped, offset):
    """The function (inlined ones first) and source line at offset."""
    out = subprocess.run(["addr2line", "-f", "-C", "-i", "-e", unstripped, hex(offset)],
                         capture_output=True, text=True).stdout.split("\n")
    return " <- ".join(f"{out[i]} at {out[i + 1].split('/src/')[-1]}"
                       for i in range(0, len(out) - 1, 2))


def symbolize(log, unstripped, exported):
    base = None
    lines = []
    with open(log, errors="replace") as f:
        for line in f:
            lines.append(line.rstrip("\n"))
            found = BASE.match(line)
            if found:
                base = int(found.group(1), 16)
            found = BACKTRACE.search(line)
            if found:
                offset = int(found.group(2), 16) + exported.get(found.group(1), 0)
                lines.append("    => " + describe(unstripped, offset))
            found = GDB_FRAME.search(line)
            if found and base is not None:
                lines.append("    => " + describe(unstripped, int(found.group(1), 16) - base))
    with open(log + ".sym", "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    unstripped, stripped = argv[1], argv[2]
    exported = exported_symbols(stripped)
    for log in argv[3:]:
        symbolize(log, unstripped, exported)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
