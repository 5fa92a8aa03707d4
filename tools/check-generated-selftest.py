#!/usr/bin/env python3
"""tools/check-generated-selftest.py: shows that tools/check-generated.py
fails when a generated file is not its generator's output, and only then.

Each case makes a scratch copy of this tree (what check-generated copies),
changes it, runs the checker on the copy (--repo) and expects it to pass or
to fail naming the output, the change and the command that regenerates it:
  passes: the unchanged copy; a hand-written conformance case added beside
    the generated ones;
  fails, for every output in tools/generated-files.txt: one of its files
    edited by hand (for a folder, a file its generator writes);
  fails, for every folder output: a generated file removed, and a stale
    copy of one left behind;
  fails: a function added to a public header without regenerating (the
    Rust bindings, the Go shim and the Python stub all stale); a crate's
    version moved without its lock file; a file that says it is generated
    but is not listed; a generator that writes the path it runs in; a
    generator that fails; an output that nothing makes; a malformed list
    (exit 2);
  and --regenerate puts back every edited, removed or stale output, and
    changes nothing else in the tree.
Prints PASS/FAIL per case and "N passed, N failed"; exit 1 on any failure.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKER = os.path.join(ROOT, "tools", "check-generated.py")
spec = importlib.util.spec_from_file_location("check_generated", CHECKER)
checker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checker)

results = {"passed": 0, "failed": 0}


class Copy:
    """One scratch copy of the tree for all cases: what a case changes,
    restore() puts back as it is in the tree."""

    def __init__(self, work):
        self.root = os.path.join(work, "tree")
        checker.copy_tree(ROOT, checker.tree_files(ROOT), self.root)
        self.touched = set()

    def path(self, name):
        """The copy's path of name, which the case is about to change."""
        self.touched.add(name)
        return os.path.join(self.root, name)

    def restore(self):
        for name in self.touched:
            path = os.path.join(self.root, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.remove(path)
            if os.path.exists(os.path.join(ROOT, name)):
                checker.copy_tree(ROOT, [n for n in checker.tree_files(ROOT)
                                         if checker.under(n, name)], self.root)
        self.touched = set()


def run_checker(copy, *args):
    done = subprocess.run([sys.executable, CHECKER, "--repo", copy.root, *args],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    copy.restore()
    return done.returncode, done.stdout.decode(errors="replace")


def expect(name, rc, out, want_rc, must_say=()):
    missing = [s for s in must_say if s not in out]
    if rc == want_rc and not missing:
        print(f"PASS {name} (checker exit {rc})")
        first = next((l for l in out.splitlines() if l.startswith("FAIL")), None)
        if first:
            print("    " + first)
        results["passed"] += 1
        return
    print(f"FAIL {name}: expected exit {want_rc}, got {rc}"
          + (f"; the output lacks {missing}" if missing else "") + ":")
    print("\n".join("    " + l for l in out.splitlines()[-40:]))
    results["failed"] += 1


def edit_by_hand(path):
    """Changes the last digit of the file (a number edited by hand, which
    keeps JSON, TOML or code well-formed); returns the edited line. In a
    file generated only between a "BEGIN GENERATED" and an "END GENERATED"
    line (abi/include/ncore/coll.h), the edit is made there: the last digit
    of that block, else a character added to its last line."""
    with open(path) as f:
        lines = f.read().split("\n")
    first, last = 0, len(lines)
    begin = [i for i, l in enumerate(lines) if "BEGIN GENERATED" in l]
    end = [i for i, l in enumerate(lines) if "END GENERATED" in l]
    if begin and end:
        first, last = begin[0] + 1, end[-1]
    for i in range(last - 1, first - 1, -1):
        digits = [j for j, c in enumerate(lines[i]) if c.isdigit()]
        if digits:
            j = digits[-1]
            lines[i] = lines[i][:j] + str((int(lines[i][j]) + 1) % 10) + lines[i][j + 1:]
            break
    else:
        if not (begin and end) or last <= first:
            raise SystemExit(f"self-test: {path} has no digit to edit")
        i = last - 1
        lines[i] += "x"
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return lines[i]


def files_made(copy, output, command):
    """The files the command writes under output (a folder): the folder is
    set aside, the command run, what it wrote listed, the folder put back."""
    path = os.path.join(copy.root, output)
    os.rename(path, path + ".aside")
    os.makedirs(path)
    rc, log, _ = checker.run(command, copy.root)
    made = checker.files_of(output, copy.root, None)
    shutil.rmtree(path)
    os.rename(path + ".aside", path)
    if rc or not made:
        raise SystemExit(f"self-test: {command} made nothing in an empty {output}:\n{log}")
    return made


def edited_outputs(copy, entries):
    """Each output edited by hand; a folder's generated file also removed,
    and a stale copy of it left behind."""
    for output, command in entries:
        if not os.path.isdir(os.path.join(copy.root, output)):
            line = edit_by_hand(copy.path(output))
            rc, out = run_checker(copy, output)
            expect(f"{output} edited by hand", rc, out, 1,
                   [f"FAIL {output}", f"-{line}", f"regenerate it: {command}"])
            continue
        made = files_made(copy, output, command)[0]
        line = edit_by_hand(copy.path(made))
        rc, out = run_checker(copy, output)
        expect(f"{made} edited by hand", rc, out, 1,
               [f"FAIL {output}", f"-{line}", f"regenerate it: {command}"])
        os.remove(copy.path(made))
        rc, out = run_checker(copy, output)
        expect(f"{made} removed", rc, out, 1,
               [f"FAIL {output}", f"{made}: made by the generator, missing"])
        stale = os.path.join(os.path.dirname(made), "stale-" + os.path.basename(made))
        shutil.copy2(os.path.join(ROOT, made), copy.path(stale))
        rc, out = run_checker(copy, output)
        expect(f"a stale {stale} left in {output}", rc, out, 1,
               [f"FAIL {output}", f"{stale}: in the tree, but the generator does not make it"])


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def changed_sources(copy):
    """Inputs changed and outputs not regenerated; a hand-written case."""
    write(copy.path("conformance/cases/selftest_hand_written.json"),
          '{"name": "selftest_hand_written", "ranks": 1, "steps": []}\n')
    rc, out = run_checker(copy, "conformance/cases")
    expect("a hand-written conformance case beside the generated ones", rc, out, 0,
           ["ok   conformance/cases"])

    header = copy.path("abi/include/ncore/comm.h")
    write(header, open(header).read().replace(
        "NCORE_END_DECLS",
        "/* Self-test. Returns NCORE_OK. */\n"
        "NCORE_API ncore_status_t ncore_selftest_added(int value);\n\nNCORE_END_DECLS"))
    rc, out = run_checker(copy)
    expect("a function added to a header, nothing regenerated", rc, out, 1,
           ["FAIL bindings/rust/ncore-sys/src/bindings.rs", "FAIL bindings/go/ncgo_gen.h",
            "FAIL bindings/python/ncore/_ncore.pyi", "ncore_selftest_added"])

    manifest = copy.path("bindings/rust/ncore/Cargo.toml")
    write(manifest, open(manifest).read().replace('version = "', 'version = "9', 1))
    rc, out = run_checker(copy)
    expect("a crate's version moved, its lock files not", rc, out, 1,
           ["FAIL bindings/rust/Cargo.lock", "FAIL conformance/runners/rust/Cargo.lock",
            "FAIL bench/rust/Cargo.lock"])

    write(copy.path("core/selftest_table.h"),
          "/* core/selftest_table.h: generated by tools/gen.py; do not edit. */\n")
    rc, out = run_checker(copy)
    expect("a file that says it is generated, not listed", rc, out, 1,
           ["are not in tools/generated-files.txt", "core/selftest_table.h"])


def bad_generators(copy, work):
    """Lists of one output whose generator misbehaves."""
    listing = os.path.join(work, "list.txt")
    cases = [
        ("a generator that writes the path it runs in", "where.txt  pwd > where.txt", 1,
         ["FAIL where.txt", f"-{copy.root}"]),
        ("a generator that fails", "where.txt  echo broken; exit 3", 1,
         ["FAIL where.txt", "the generator exited 3", "broken"]),
        ("an output that nothing makes", "where.text  pwd > where.txt", 1,
         ["FAIL where.text", "neither in the tree nor made by the command"]),
        ("a malformed list", "only-an-output", 2, ["want OUTPUT COMMAND"]),
    ]
    for name, line, want_rc, must_say in cases:
        write(copy.path("where.txt"), copy.root + "\n")
        write(listing, line + "\n")
        rc, out = run_checker(copy, "--list", listing)
        expect(name, rc, out, want_rc, must_say)


def regenerated(copy):
    """--regenerate undoes hand edits in the copy and touches nothing else."""
    made = [n for n in checker.tree_files(ROOT) if checker.under(n, "conformance/cases")]
    for name in ("bindings/rust/ncore-sys/src/bindings.rs", "bench/results/host-2ranks.md",
                 made[0]):
        edit_by_hand(copy.path(name))
    os.remove(copy.path(made[1]))
    shutil.copy2(os.path.join(ROOT, made[2]), copy.path("conformance/cases/stale-" +
                                                        os.path.basename(made[2])))
    done = subprocess.run([sys.executable, CHECKER, "--repo", copy.root, "--regenerate"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = done.stdout.decode(errors="replace")
    ours, theirs = checker.tree_files(ROOT), checker.tree_files(copy.root)
    differ = sorted(set(ours) ^ set(theirs)) + [
        n for n in ours if n in theirs and
        checker.read(os.path.join(ROOT, n)) != checker.read(os.path.join(copy.root, n))]
    copy.restore()
    if differ:
        out += "\nthe copy still differs from the tree: " + ", ".join(differ[:10])
    expect("--regenerate repairs the outputs and writes nothing else",
           1 if differ else done.returncode, out, 0)


def main():
    entries = checker.read_list(os.path.join(ROOT, checker.LIST))
    with tempfile.TemporaryDirectory(prefix="check-generated-selftest.",
                                     dir=checker.scratch_base()) as work:
        copy = Copy(work)
        rc, out = run_checker(copy)
        expect("the unchanged tree passes", rc, out, 0, ["0 failed"])
        edited_outputs(copy, entries)
        changed_sources(copy)
        bad_generators(copy, work)
        regenerated(copy)
        rc, out = run_checker(copy)
        expect("the copy, every case undone, passes again", rc, out, 0, ["0 failed"])
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 0 if results["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
