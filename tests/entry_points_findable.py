#!/usr/bin/env python3
"""tests/entry_points_findable.py: every entry point of the table of
operations (core/op_table.h: ncore_<name> of each COLL, P2P and ONESIDED
row, and ncore_<name>_config of each COLL row) has one definition in the library's sources that a reader's tools
find: a line of core/ that starts `NCORE_API ncore_status_t ncore_<name>(`
(what grep -n finds) and a function tag of Universal Ctags. A definition
made by a macro (as the collectives' once were) fails both.

Run by `make test` (tools/run-test-suites.sh); prints one line per entry
point, then "N passed, N failed"; exits 1 when any failed. Needs ctags
(Debian's universal-ctags, which `make deps` installs)."""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from op_table import read_table  # noqa: E402

SOURCES = "core/**/*.c"


def grep_definitions(name, files):
    """The file:line places of lines that start name's definition."""
    start = re.compile(r"^NCORE_API ncore_status_t " + re.escape(name) + r"\(")
    found = []
    for path in files:
        with open(os.path.join(ROOT, path)) as f:
            found += [f"{path}:{i}" for i, line in enumerate(f, 1) if start.match(line)]
    return found


def ctags_functions(files):
    """{function name: [file:line]} of every C function ctags finds."""
    out = subprocess.run(["ctags", "-x", "--c-kinds=f", "--language-force=C", *files],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    tags = {}
    for line in out.splitlines():
        fields = line.split(None, 4)  # name kind line file text
        if len(fields) >= 4 and fields[1] == "function":
            tags.setdefault(fields[0], []).append(f"{fields[3]}:{fields[2]}")
    return tags


def main():
    table = read_table(ROOT)
    names = ["ncore_" + row.name
             for rows in (table.collectives, table.p2p, table.onesided) for row in rows]
    names += ["ncore_" + row.name + "_config" for row in table.collectives]  # the twins
    files = sorted(os.path.relpath(p, ROOT)
                   for p in glob.glob(os.path.join(ROOT, SOURCES), recursive=True))
    try:
        tags = ctags_functions(files)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"FAIL ctags did not run ({e}): install universal-ctags (make deps)")
        print(f"0 passed, {len(names)} failed")
        return 1
    passed = failed = 0
    for name in names:
        grepped, tagged = grep_definitions(name, files), tags.get(name, [])
        if len(grepped) == 1 and len(tagged) == 1:
            passed += 1
            print(f"ok   {name}: {grepped[0]}")
        else:
            failed += 1
            print(f"FAIL {name}: grep finds {grepped or 'no definition'}, ctags "
                  f"{tagged or 'no function'}; define it written out (one line "
                  f"'NCORE_API ncore_status_t {name}(' in core/), not through a macro")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
