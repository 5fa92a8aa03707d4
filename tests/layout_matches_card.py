#!/usr/bin/env python3
"""tests/layout_matches_card.py: the repository's layout is the design
card's (../shared/docs/ARCHITECTURE.md, "Layout (top level is fixed)",
whose entries are CARD below) and the README's Layout table says where
everything is:

- every entry of the card exists at the top level;
- every tracked top-level entry is the card's or one of the few the Bazel
  build needs beside it (EXTRAS, each with its reason);
- every CUDA source the library compiles is in kernels/ (BUILD's fatbin
  takes kernels/*.cu; no .cu or .cuh anywhere in core/ or abi/), and the
  kernels include nothing of core/;
- every top-level entry is named in the README's Layout table, and every
  path that table names exists.

Run by `make test` (tools/run-test-suites.sh); prints one line per check,
then "N passed, N failed"; exits 1 when any failed."""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The card's top level, in its order.
CARD = ["WORKSPACE", "BUILD", ".bazelrc", "Makefile", "abi", "core", "kernels",
        "bindings", "tests", "conformance", "tools", "bench", "examples", "docs",
        "README.md"]
# What the build and the repository need beside the card, and why.
EXTRAS = {
    "library.bzl": "the library's sources and flags, loaded by BUILD; a .bzl "
                   "must sit in a package, and making core/ one would cut the "
                   "top-level target off from its sources",
    "third_party": "the offline Bazel build's local repositories and NCCL's "
                   "headers (the card: Bazel, offline)",
    ".ci": "CI's entry point (.ci/run)",
    ".gitignore": "git's",
}


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return [line for line in out.splitlines() if line]


def readme_layout_paths():
    """The backticked paths in the first column of README's Layout table."""
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    paths = []
    for row in section.splitlines():
        if not row.startswith("| `"):
            continue
        first = row.split("|")[1]
        paths += re.findall(r"`([^`]+)`", first)
    return paths


def main():
    files = tracked()
    top = sorted({f.split("/")[0] for f in files})
    results = []

    def check(ok, what):
        results.append(ok)
        print(("ok   " if ok else "FAIL ") + what)

    for entry in CARD:
        check(entry in top, f"the card's {entry} is at the top level")
    for entry in top:
        check(entry in CARD or entry in EXTRAS,
              f"top-level {entry} is the card's" if entry in CARD else
              f"top-level {entry}: {EXTRAS.get(entry, 'neither the card nor a known extra')}")

    cuda = [f for f in files if f.endswith((".cu", ".cuh"))]
    misplaced = [f for f in cuda if f.split("/")[0] in ("core", "abi")]
    check(not misplaced, "no CUDA source in core/ or abi/"
          + (f" (found: {', '.join(misplaced)})" if misplaced else ""))
    build = open(os.path.join(ROOT, "BUILD")).read()
    check('glob(["kernels/*.cu"' in build,
          "BUILD's fatbin compiles kernels/*.cu")
    library_kernels = [f for f in cuda if f.startswith("kernels/")]
    check(bool(library_kernels), f"kernels/ holds the library's kernels ({len(library_kernels)})")
    for f in library_kernels + [f for f in files if f.startswith("kernels/") and f.endswith(".h")]:
        text = open(os.path.join(ROOT, f)).read()
        bad = re.findall(r'#include\s+"(?:\.\./)*core/[^"]+"', text)
        check(not bad, f"{f} includes nothing of core/" + (f" ({bad})" if bad else ""))

    paths = readme_layout_paths()
    named_tops = {p.strip("/").split("/")[0] for p in paths}
    for entry in top:
        if entry in (".gitignore", "README.md"):
            continue
        check(entry in named_tops, f"README's Layout names {entry}")
    for p in paths:
        check(bool(glob.glob(os.path.join(ROOT, p))), f"README's Layout path {p} exists")

    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
