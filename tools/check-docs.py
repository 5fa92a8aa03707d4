#!/usr/bin/env python3
"""tools/check-docs.py — the docs say what the code is: four checks, each a
test of "N passed, N failed" (make test runs them, tools/run-test-suites.sh).

  headers    every public header (abi/include/**/*.h) is named in the docs'
             header list: the bullet of docs/architecture.md that starts
             with `abi/include/ncore/*.h`.
  paths      every repository path a doc cites exists. The docs: README.md,
             docs/*.md, bindings/*/README.md, tests/README.md. A citation is
             a link target or a `backquoted` word that looks like a path (a
             "/" and no spaces; read from the repository's top, else from the
             doc's folder). Not paths: build outputs (build/, bazel-*),
             absolute and home paths, URLs, patterns (*, <...>, $VAR, ...),
             and the placeholders of the README (/path/to/ncore, PREFIX/...).
  readme     every command block of README.md (```sh, ```console, ```bash,
             a fence with no language, an indented block) is either run by
             the install tests — tagged `<!-- test: NAME -->` on the line
             before, as tests/install/readme.py reads them — or marked
             `<!-- not run here: WHY -->` there, WHY saying why (at least
             three words).
  variables  every NCORE_* variable the code reads (getenv, nccl_env_long,
             os.environ / os.getenv, env::var / env::var_os, os.Getenv /
             os.LookupEnv in core/, bindings/, examples/, tests/,
             conformance/, bench/, tools/) is in a list of the docs: a table
             row or a bullet that names it in backquotes (the README's
             "Environment variables", core/nccl/README.md's knobs,
             tests/README.md's test variables, ...).

Usage:
  tools/check-docs.py              the self-test, then the repository
  tools/check-docs.py ROOT         the tree at ROOT only
  tools/check-docs.py --self-test  plants one miss of each kind in a scratch
                                   tree (and a clean tree), checks each is found
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER_LIST = re.compile(r"^- `abi/include/ncore/\*\.h`")
CODE_DIRS = ("core", "bindings", "examples", "tests", "conformance", "bench", "tools")
CODE_EXTENSIONS = (".c", ".h", ".cu", ".cuh", ".py", ".rs", ".go")
# Generated or fetched trees inside the code folders: not the project's code.
SKIP_PARTS = {"build", "target", "results", "__pycache__", ".pytest_cache", "vendor"}
ENV_READ = re.compile(
    r'(?:getenv|nccl_env_long|environ\.get|environ\[|env::var|env::var_os|'
    r'Getenv|LookupEnv)\s*\(?\s*"(NCORE_[A-Z0-9_]+)"')
COMMAND_LANGUAGES = {"", "sh", "bash", "console", "shell"}
TEST_TAG = re.compile(r"^<!-- test: [a-z0-9-]+ -->\s*$")
NOT_RUN = re.compile(r"^<!-- not run here: (.+?) -->\s*$")
BACKQUOTED = re.compile(r"`([^`\s]+)`")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def docs(root):
    out = [os.path.join(root, "README.md"), os.path.join(root, "tests", "README.md")]
    out += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    out += sorted(glob.glob(os.path.join(root, "bindings", "*", "README.md")))
    return [p for p in out if os.path.isfile(p)]


def check_headers(root):
    """Names of public headers missing from the header list."""
    arch = os.path.join(root, "docs", "architecture.md")
    lines = open(arch).read().splitlines() if os.path.isfile(arch) else []
    listed = None
    for i, line in enumerate(lines):
        if HEADER_LIST.match(line):
            j = i + 1
            while j < len(lines) and lines[j].startswith("  "):
                j += 1
            listed = "\n".join(lines[i:j])
            break
    if listed is None:
        return ["docs/architecture.md: no header list (a bullet starting "
                "\"- `abi/include/ncore/*.h`\")"]
    problems = []
    for path in sorted(glob.glob(os.path.join(root, "abi", "include", "**", "*.h"),
                             recursive=True)):
        rel = os.path.relpath(path, os.path.join(root, "abi", "include"))
        name = os.path.basename(rel)
        if rel == "ncore.h":
            continue  # the umbrella the list is under
        if "`%s`" % name not in listed:
            problems.append("abi/include/%s: not in docs/architecture.md's header "
                            "list; add `%s` there with what it holds" % (rel, name))
    return problems


def looks_like_path(word):
    if "/" not in word or word.startswith(("/", "~", "http:", "https:", "build/",
                                           "bazel-", "$", "-")):
        return False
    if any(c in word for c in "*<>$={}|,;:()'\"") or "..." in word or "%" in word:
        return False
    if word.startswith("./") or re.match(r"^\w+\.(dev|com|org|io)/", word):
        return False  # a program in the reader's folder; a module path, not a file
    if re.match(r"^(ncore|core)_\w+/_?\w+$", word):
        return False  # two functions, ncore_group_start/end, not a path
    if word.startswith(("path/to", "PREFIX/", "DESTDIR", "nvidia/", "lib/", "include/",
                        "bin/", "src/", "target/", "dist/", "venv/", "installed/")):
        return False  # an install's, a build's or a user's folder, not this tree's
    return re.match(r"^[A-Za-z0-9_.][A-Za-z0-9_./+-]*$", word) is not None


def candidates(word):
    """A cited path as files to look for: `a/b.c/.h` is a/b.c and a/b.h."""
    word = word.rstrip(".")
    m = re.match(r"^(.*)\.(\w+)/\.(\w+)$", word)
    if m:
        return [m.group(1) + "." + m.group(2), m.group(1) + "." + m.group(3)]
    return [word]


def tree_suffixes(root):
    """Every file and folder of the tree as its path and each of its
    trailing parts (core/nccl/x.c: also nccl/x.c, x.c): a doc may cite a
    path from the folder it is about (`ncore/comm.h` beside
    abi/include, `tests/nccl.rs` in the Rust crate's guide)."""
    out = set()
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "bazel-")) and d != "build"]
        rel = os.path.relpath(folder, root)
        for name in dirs + names:
            parts = os.path.normpath(os.path.join(rel, name)).split(os.sep)
            for i in range(len(parts)):
                out.add("/".join(parts[i:]))
    return out


def ignored_by_git(root, path):
    """1 when git ignores path in root's checkout: an output the build or a
    test makes, which a fresh clone does not have yet."""
    # As a folder too: a pattern like `build/` matches only a folder, and a
    # path that is not there yet is not known to be one.
    for candidate in (path, path.rstrip("/") + "/"):
        try:
            if subprocess.run(["git", "-C", root, "check-ignore", "-q", candidate],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0:
                return True
        except OSError:
            return False
    return False


def check_paths(root):
    problems = []
    known = tree_suffixes(root)
    for doc in docs(root):
        rel_doc = os.path.relpath(doc, root)
        text = open(doc).read()
        cited = {w for w in BACKQUOTED.findall(text) if looks_like_path(w)}
        # A link is read from the doc's folder, as a renderer reads it.
        links = {w for w in LINK.findall(text) if not w.startswith(("http:", "https:", "mailto:"))}
        for word in sorted(cited | links):
            bases = (os.path.dirname(doc),) if word in links and word not in cited \
                else (root, os.path.dirname(doc))
            for path in candidates(word):
                if any(os.path.exists(os.path.join(b, path)) for b in bases):
                    continue
                if word in cited and path.rstrip("/") in known:
                    continue
                if ignored_by_git(root, path):
                    continue  # a build's output (bindings/python/build): made, not kept
                if True:
                    problems.append("%s cites %s, which does not exist (a moved or "
                                    "removed file: cite where it is now)" % (rel_doc, path))
    return problems


def command_blocks(text):
    """(line number, first line, the line before) of each command block."""
    lines = text.splitlines()
    out = []
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            if not in_fence:
                language = line[3:].strip()
                if language in COMMAND_LANGUAGES:
                    out.append((i + 1, line, lines[i - 1] if i else ""))
            in_fence = not in_fence
        elif not in_fence and line.startswith("    ") and line.strip() and \
                (i == 0 or not lines[i - 1].strip()) and \
                (i < 2 or not lines[i - 2].lstrip().startswith(("-", "|", "*"))) and \
                not (i >= 2 and lines[i - 2].startswith("    ")):
            # An indented block: after a blank line, not a list item's text.
            before = lines[i - 2] if i >= 2 else ""
            out.append((i + 1, line, before))
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                i += 1
            continue
        i += 1
    return out


def check_readme(root):
    path = os.path.join(root, "README.md")
    if not os.path.isfile(path):
        return ["README.md: missing"]
    problems = []
    for number, first, before in command_blocks(open(path).read()):
        if TEST_TAG.match(before):
            continue
        m = NOT_RUN.match(before)
        if m and len(m.group(1).split()) >= 3:
            continue
        problems.append("README.md:%d: a command block (%s) neither run by the "
                        "install tests (<!-- test: NAME --> on the line before, "
                        "tests/install/) nor marked <!-- not run here: WHY --> "
                        "with why" % (number, first.strip()[:40]))
    return problems


def code_files(root):
    for top in CODE_DIRS:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in SKIP_PARTS and not d.startswith(".")]
            for name in names:
                path = os.path.join(folder, name)
                # The checker's own self-test plants variables nobody reads.
                if name.endswith(CODE_EXTENSIONS) and os.path.abspath(path) != os.path.abspath(__file__):
                    yield path


def check_variables(root):
    read = {}
    for path in code_files(root):
        try:
            text = open(path, errors="replace").read()
        except OSError:
            continue
        for name in ENV_READ.findall(text):
            read.setdefault(name, os.path.relpath(path, root))
    listed = set()
    for doc in docs(root) + sorted(glob.glob(os.path.join(root, "core", "**", "README.md"),
                                             recursive=True)):
        for line in open(doc).read().splitlines():
            if line.lstrip().startswith(("|", "- ", "* ")):
                listed.update(re.findall(r"`(NCORE_[A-Z0-9_]+)", line))
    return ["%s reads %s, which no doc's variable list names (the README's "
            "\"Environment variables\", or the list of the docs of its layer)"
            % (where, name) for name, where in sorted(read.items()) if name not in listed]


CHECKS = (("headers", check_headers), ("paths", check_paths),
          ("readme", check_readme), ("variables", check_variables))


def check(root, quiet=False):
    passed = failed = 0
    for name, fn in CHECKS:
        problems = fn(root)
        if problems:
            failed += 1
            if not quiet:
                print("FAIL docs %s:" % name)
                for p in problems:
                    print("    " + p)
        else:
            passed += 1
            if not quiet:
                print("ok   docs %s" % name)
    return passed, failed


CLEAN = {
    "README.md": "# x\n\nSee [the guide](docs/guide.md) and `tools/run.sh`.\n\n"
                 "<!-- test: setup -->\n```sh\nmake demo\n```\n\n"
                 "<!-- not run here: it needs a GPU -->\n```sh\nmake gpu\n```\n\n"
                 "| variable | meaning |\n| --- | --- |\n| `NCORE_A` | a |\n\n"
                 "```c\nint main(void) { return 0; }\n```\n",
    "docs/guide.md": "- `abi/include/ncore/*.h` — one per subsystem (`comm.h`,\n"
                     "  `p2p.h`).\n",
    "docs/architecture.md": "- `abi/include/ncore/*.h` — one per subsystem (`comm.h`,\n"
                            "  `p2p.h`).\n",
    "abi/include/ncore.h": "",
    "abi/include/ncore/comm.h": "",
    "abi/include/ncore/p2p.h": "",
    "tools/run.sh": "",
    "core/env.c": 'const char *a = getenv("NCORE_A");\n',
}
PLANTED = {
    "a header not listed": {"abi/include/ncore/window.h": ""},
    "a cited path that does not exist": {"README.md": CLEAN["README.md"] + "\nRun `tools/gone.sh`.\n"},
    "a link to a moved file": {"README.md": CLEAN["README.md"] + "\n[old](tools/launcher/main.c)\n"},
    "an untagged command block": {"README.md": CLEAN["README.md"] + "\n```sh\nmake bench\n```\n"},
    "an indented command block, untagged": {"README.md": CLEAN["README.md"] + "\n    make soak\n"},
    "a not-run marker without a reason": {"README.md": CLEAN["README.md"] +
                                          "\n<!-- not run here: GPU -->\n```sh\nmake x\n```\n"},
    "an undocumented variable (C)": {"core/more.c": 'nccl_env_long("NCORE_B", 0);\n'},
    "an undocumented variable (Python)": {"bindings/python/x.py": 'os.environ.get("NCORE_C")\n'},
    "an undocumented variable (Rust)": {"bindings/rust/x.rs": 'std::env::var_os("NCORE_D")\n'},
    "an undocumented variable (Go)": {"bindings/go/x.go": 'os.Getenv("NCORE_E")\n'},
}


def self_test():
    passed = failed = 0
    cases = [("a clean tree", {}, False)] + [(n, t, True) for n, t in PLANTED.items()]
    for name, changes, must_fail in cases:
        root = tempfile.mkdtemp(prefix="check-docs-")
        try:
            for path, content in dict(CLEAN, **changes).items():
                os.makedirs(os.path.dirname(os.path.join(root, path)) or root, exist_ok=True)
                with open(os.path.join(root, path), "w") as f:
                    f.write(content)
            _, failures = check(root, quiet=True)
            ok = (failures > 0) == must_fail
        finally:
            shutil.rmtree(root)
        verdict = ("found" if must_fail else "passes") if ok else \
            ("NOT FOUND" if must_fail else "FAILS")
        print("check-docs self-test: %s: %s (%s)" % ("ok" if ok else "FAIL", name, verdict))
        passed += ok
        failed += not ok
    return passed, failed


def main(argv):
    if argv[1:] == ["--self-test"]:
        p, f = self_test()
    elif len(argv) == 2:
        p, f = check(argv[1])
    else:
        p1, f1 = self_test()
        p2, f2 = check(REPO)
        p, f = p1 + p2, f1 + f2
    print("%d passed, %d failed" % (p, f))
    return 1 if f else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
