#!/usr/bin/env python3
"""tools/check-generated.py: every generated file is what its generator makes.

    tools/check-generated.py [OUTPUT...]          check (make check-generated)
    tools/check-generated.py --regenerate [OUTPUT...]   rewrite them (make regenerate)
    options: --repo DIR (the tree; default this checkout), --list FILE (default
             DIR/tools/generated-files.txt)

The list (tools/generated-files.txt) names each generated file with the
command that makes it. The check copies the tree (the files git tracks and
the untracked ones it does not ignore, as they are in the working tree)
into a scratch folder, runs every command there from the copy's root, in
the list's order, and compares each output with the checkout's: a file
byte for byte, a folder file by file (changed, added, removed). So a
generator that writes an absolute path of the machine, or anything else the
place it runs in changes, fails too. Given OUTPUTs, only their commands
run. Checking everything also fails a file whose first lines say it is
generated ("do not edit", "@generated", "automatically generated") but that
the list does not name, outside third_party/. --regenerate runs the
commands the same way, then copies their outputs, and nothing else they
write (bench/report.py's plots, say), into the tree.

Prints one line per output (ok / FAIL, with the diff and the command that
regenerates it), then "N passed, N failed"; exit 1 on any failure, 2 on a
bad list. The environment passes through unchanged (HOME too: rustup's
rustfmt and cargo need the real one), with ~/.cargo/bin put first on PATH
as the Rust tests do. tools/check-generated-selftest.py shows that it fails
when it should.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join("tools", "generated-files.txt")
# What a generated file says of itself in its first lines.
MARKER = re.compile(r"\bdo\s+not\W+edit\b|@generated|automatically generated", re.I)
MARKER_LINES = 5
NOT_OURS = ("third_party/",)  # vendored copies: generated elsewhere, if at all
DIFF_LINES = 60


class ListError(Exception):
    pass


def read_list(path):
    """[(output, command)] in order, from the list file."""
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) != 2:
                raise ListError(f"{path}:{number}: want OUTPUT COMMAND, got {line!r}")
            output = os.path.normpath(parts[0])
            if os.path.isabs(output) or output.startswith(".."):
                raise ListError(f"{path}:{number}: {output} is not inside the tree")
            entries.append((output, parts[1]))
    outputs = [o for o, _ in entries]
    for o in outputs:
        if outputs.count(o) > 1:
            raise ListError(f"{path}: {o} is listed twice")
    return entries


def tree_files(root):
    """The tree's files, relative: git's view in a checkout, else every file."""
    if os.path.exists(os.path.join(root, ".git")):
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        names = sorted({n for n in out.decode().split("\0") if n})
        # A tracked file deleted in the working tree is not part of it.
        return [n for n in names if os.path.lexists(os.path.join(root, n))]
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        files += [os.path.relpath(os.path.join(folder, n), root) for n in names]
    return sorted(files)


def copy_tree(root, files, dest):
    """Copies files (relative to root) into dest, modes and links kept."""
    os.makedirs(dest, exist_ok=True)
    pack = subprocess.Popen(["tar", "-C", root, "--null", "--no-recursion", "-T", "-", "-cf", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    unpack = subprocess.Popen(["tar", "-C", dest, "-xf", "-"], stdin=pack.stdout)
    pack.stdout.close()
    pack.stdin.write("".join(name + "\0" for name in files).encode())
    pack.stdin.close()
    if pack.wait() or unpack.wait():
        raise OSError(f"copying {root} into {dest} failed")


def scratch_base():
    """Where scratch copies go: $TMPDIR if set, else /dev/shm where a program
    may run from it (in memory: a copy of the tree takes a thirtieth of the
    time it takes on the CI machine's disk), else /tmp."""
    if os.environ.get("TMPDIR"):
        return os.environ["TMPDIR"]
    try:
        if os.access("/dev/shm", os.W_OK) and not os.statvfs("/dev/shm").f_flag & os.ST_NOEXEC:
            return "/dev/shm"
    except OSError:
        pass
    return "/tmp"


def environment():
    env = dict(os.environ)
    cargo_bin = os.path.join(os.path.expanduser("~"), ".cargo", "bin")
    if os.path.isdir(cargo_bin):
        env["PATH"] = cargo_bin + os.pathsep + env.get("PATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run(command, cwd):
    """(exit status, output, seconds) of one generator."""
    start = time.monotonic()
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=environment(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return done.returncode, done.stdout.decode(errors="replace"), time.monotonic() - start


def under(name, folder):
    return name == folder or name.startswith(folder.rstrip("/") + "/")


def files_of(output, root, listed):
    """The files an output stands for in a tree: itself, or a folder's files."""
    if listed is not None:
        return [n for n in listed if under(n, output)]
    if os.path.isdir(os.path.join(root, output)):
        found = []
        for folder, dirs, names in os.walk(os.path.join(root, output)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            found += [os.path.relpath(os.path.join(folder, n), root) for n in names]
        return sorted(found)
    return [output] if os.path.lexists(os.path.join(root, output)) else []


def read(path):
    with open(path, "rb") as f:
        return f.read()


def differences(output, repo, repo_files, scratch):
    """Diff lines between the checkout's output and the scratch copy's."""
    have = set(files_of(output, repo, repo_files))
    made = set(files_of(output, scratch, None))
    if not have and not made:
        return [f"{output}: neither in the tree nor made by the command (a wrong path?)"]
    lines = []
    for name in sorted(have | made):
        old = read(os.path.join(repo, name)) if name in have else None
        new = read(os.path.join(scratch, name)) if name in made else None
        if old == new:
            continue
        if new is None:
            lines.append(f"{name}: in the tree, but the generator does not make it")
            continue
        if old is None:
            lines.append(f"{name}: made by the generator, missing from the tree")
            continue
        try:
            a, b = old.decode().splitlines(), new.decode().splitlines()
        except UnicodeDecodeError:
            lines.append(f"{name}: binary files differ")
            continue
        diff = list(difflib.unified_diff(a, b, f"{name} (committed)", f"{name} (generated)",
                                         lineterm=""))
        lines += diff or [f"{name}: differs (line endings or a final newline)"]
    return lines


def unlisted_generated(repo, repo_files, entries):
    """Files that say they are generated but that the list does not name."""
    found = []
    for name in repo_files:
        if name.startswith(NOT_OURS) or any(under(name, o) for o, _ in entries):
            continue
        path = os.path.join(repo, name)
        if os.path.islink(path):
            continue
        try:
            with open(path, errors="replace") as f:
                head = "".join(f.readline() for _ in range(MARKER_LINES))
        except OSError:
            continue
        if MARKER.search(head):
            found.append(name)
    return found


def select(entries, wanted):
    if not wanted:
        return entries
    wanted = [os.path.normpath(w) for w in wanted]
    unknown = [w for w in wanted if not any(under(w, o) or under(o, w) for o, _ in entries)]
    if unknown:
        raise ListError(f"not in the list: {', '.join(unknown)}")
    return [(o, c) for o, c in entries if any(under(w, o) or under(o, w) for w in wanted)]


def commands_in_order(entries):
    """[(command, [outputs])], each command once, in the list's order."""
    grouped = {}
    for output, command in entries:
        grouped.setdefault(command, []).append(output)
    return list(grouped.items())


def generate(repo, repo_files, entries):
    """Runs every command in a scratch copy of the tree, in order; yields
    (scratch, command, its outputs, exit status, output, seconds) after each."""
    with tempfile.TemporaryDirectory(prefix="check-generated.", dir=scratch_base()) as scratch:
        copy_tree(repo, repo_files, scratch)
        for command, outputs in commands_in_order(entries):
            yield (scratch, command, outputs) + run(command, scratch)


def check(repo, entries, everything):
    repo_files = tree_files(repo)
    passed = failed = 0
    print(f"check-generated: {len(entries)} generated outputs; each generator runs in a "
          "scratch copy of the tree and its outputs are compared with the tree's")
    for scratch, command, outputs, rc, log, seconds in generate(repo, repo_files, entries):
        for output in outputs:
            problems = ([f"the generator exited {rc}:"] + log.splitlines()[-30:]) if rc \
                else differences(output, repo, repo_files, scratch)
            if not problems:
                print(f"ok   {output}  ({command}; {seconds:.1f} s)")
                passed += 1
                continue
            failed += 1
            print(f"FAIL {output}: not what its generator makes")
            for line in problems[:DIFF_LINES]:
                print("    " + line)
            if len(problems) > DIFF_LINES:
                print(f"    ... ({len(problems) - DIFF_LINES} more lines)")
            print(f"    regenerate it: {command}")
            print("    (from the repository root; `make regenerate` regenerates every file)")
    if everything:
        unlisted = unlisted_generated(repo, repo_files, entries)
        if unlisted:
            failed += 1
            print(f"FAIL files that say they are generated are not in {LIST}:")
            for name in unlisted:
                print("    " + name)
            print(f"    add a line OUTPUT COMMAND for each to {LIST}")
        else:
            print(f"ok   every file that says it is generated is in {LIST}")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def regenerate(repo, entries):
    """Runs the generators as check() does, then puts their outputs, and
    only those, into the tree (a folder's files removed, added, replaced)."""
    repo_files = tree_files(repo)
    status = 0
    for scratch, command, outputs, rc, log, seconds in generate(repo, repo_files, entries):
        if rc:
            sys.stdout.write(log)
            print(f"regenerate: FAILED (exit {rc}): {command}; left as they were: "
                  f"{', '.join(outputs)}")
            status = 1
            continue
        for output in outputs:
            made = files_of(output, scratch, None)
            had = set(files_of(output, repo, repo_files))
            for name in had - set(made):
                os.remove(os.path.join(repo, name))
            # Only what changed: an unchanged file keeps its time (no rebuild).
            copy_tree(scratch, [n for n in made if n not in had or
                                read(os.path.join(repo, n)) != read(os.path.join(scratch, n))],
                      repo)
        print(f"regenerate: {', '.join(outputs)}  ({command}; {seconds:.1f} s)")
    return status


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outputs", nargs="*")
    parser.add_argument("--repo", default=ROOT)
    parser.add_argument("--list")
    parser.add_argument("--regenerate", action="store_true")
    args = parser.parse_args(argv)
    repo = os.path.abspath(args.repo)
    try:
        entries = select(read_list(args.list or os.path.join(repo, LIST)), args.outputs)
    except (ListError, OSError) as e:
        print(f"check-generated: {e}", file=sys.stderr)
        return 2
    if args.regenerate:
        return regenerate(repo, entries)
    return check(repo, entries, everything=not args.outputs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
