#!/usr/bin/env python3
"""ncore conformance: plans each case, runs it in every language, compares.

For each language whose runner is built, the cases (conformance/cases/*.json)
are grouped by rank count into batches, each run by one launch of tools'
ncore-run (driver/schedule.py); every case still gets its own world
communicator, objects and timeout, and a case a launch left without a
complete result runs again alone. Each runner prints a header record per case
(its LSA team), one JSON line per executed step and an end record. The
comparer then checks every line against the case's expectations (the one
that fits the rank's LSA team: driver/expect.py), and every language against
the others (status, message and value must be identical), and prints a
matrix and a final `N passed, N failed, N skipped` line.
"""
import argparse
import contextlib
import fnmatch
import json
import os
import sys
import tempfile

from driver import expect, selftest
from driver.launch import runner_command
from driver.plans import make_plan
from driver.schedule import Schedule

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("NCORE_BUILD_DIR", os.path.join(ROOT, "build"))
LANGUAGES = ("c", "python", "rust", "go")


def load_cases(pattern):
    cases = []
    for name in sorted(os.listdir(os.path.join(HERE, "cases"))):
        if name.endswith(".json"):
            with open(os.path.join(HERE, "cases", name)) as f:
                case = json.load(f)
            if fnmatch.fnmatch(case["name"], pattern):
                cases.append(case)
    return cases


@contextlib.contextmanager
def keep_or_temporary(keep):
    """The folder the launches work in: `keep` (made if needed, left
    behind), else a temporary one."""
    if keep:
        os.makedirs(keep, exist_ok=True)
        yield keep
    else:
        with tempfile.TemporaryDirectory(prefix="ncore-conformance-") as workdir:
            yield workdir


def current_backend():
    value = os.environ.get("NCORE_BACKEND", "host").lower()
    return value if value in ("host", "nccl") else "host"


def skip_reason(case, backend, reason, max_ranks):
    """Why `case` does not run in a language here, or None."""
    if backend not in case.get("backends", ["host", "nccl"]):
        return "backend"
    if reason is not None:
        return reason
    if max_ranks and case["ranks"] > max_ranks:
        return f"needs {case['ranks']} ranks"
    return None


def cell(case, language, schedule, failures):
    """A language's verdict on a case it ran: "pass" or "FAIL"."""
    run = schedule.results[language].get(case["name"])
    if run is None:
        problems = ["no output: " + (schedule.troubles[language].get(case["name"]) or "?")]
    else:
        problems = expect.check_case(case, run)
        trouble = schedule.troubles[language].get(case["name"])
        if trouble and problems:
            problems.append("launch: " + trouble)
    if problems:
        failures.append((case["name"], language, problems))
        return "FAIL"
    return "pass"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--cases", default="*", help="glob over case names")
    parser.add_argument("--plan", help="print the plan of CASE for rank 0 and exit")
    parser.add_argument("--max-ranks", type=int, default=0,
                        help="skip cases with more ranks (NCCL: one GPU per rank, "
                             "unless NCORE_OVERSUBSCRIBE=1)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="launches run at once (default 1)")
    parser.add_argument("--batch-size", type=int, default=32,
                        help="most cases one launch runs (default 32)")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep every launch's plans and output (output.log) in DIR "
                             "(default: a temporary folder, removed)")
    parser.add_argument("--self-test", action="store_true",
                        help="only check the driver's own logic (no runner needed)")
    args = parser.parse_args()
    if args.plan:
        for case in load_cases(args.plan):
            for rank in range(case["ranks"]):
                print(f"# rank {rank}\n" + make_plan(case, rank))
        return 0
    # The driver's logic first (the expectations chosen by topology, say):
    # a fault there would make every verdict after it meaningless.
    status = selftest.main(verbose=args.self_test)
    if status != 0 or args.self_test:
        return status
    languages = [l for l in args.languages.split(",") if l]
    cases = load_cases(args.cases)
    backend = current_backend()
    commands = {l: runner_command(ROOT, BUILD, l) for l in languages}
    cells = {case["name"]: {} for case in cases}
    work = {}
    for language in languages:
        command, reason = commands[language]
        runnable = []
        for case in cases:
            why = skip_reason(case, backend, reason, args.max_ranks)
            if why:
                cells[case["name"]][language] = f"skip({why})"
            else:
                runnable.append(case)
        if runnable:
            work[language] = (command, runnable, max(1, args.batch_size))
    failures = []
    with keep_or_temporary(args.keep) as workdir:
        # The runners' AUTO is the backend the matrix reports (unset means
        # host here, not whatever AUTO would pick on this machine).
        schedule = Schedule(ROOT, BUILD, workdir, args.jobs,
                            env=dict(os.environ, NCORE_BACKEND=backend))
        schedule.run(work)
        for case in cases:
            row = cells[case["name"]]
            ran = [l for l in languages if l not in row]
            for language in ran:
                row[language] = cell(case, language, schedule, failures)
            disagreements = expect.compare_languages(
                {l: schedule.results[l].get(case["name"]) for l in ran},
                expect.racing_steps(case))
            if disagreements:
                for language in ran:
                    row[language] = "FAIL"
                failures.append((case["name"], "cross-language", disagreements))
    width = max([len(c["name"]) for c in cases] + [10])
    print("case".ljust(width) + "  " + "  ".join(l.ljust(8) for l in languages))
    passed = failed = skipped = 0
    for case in cases:
        row = cells[case["name"]]
        passed += sum(row[l] == "pass" for l in languages)
        failed += sum(row[l] == "FAIL" for l in languages)
        skipped += sum(row[l].startswith("skip") for l in languages)
        print(case["name"].ljust(width) + "  " + "  ".join(row[l].ljust(8) for l in languages))
    for name, language, problems in failures:
        print(f"\nFAIL {name} [{language}]")
        for problem in problems[:10]:
            print(f"  {problem}")
    print(f"conformance ({backend}): {len(cases)} cases x {len(languages)} languages")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
