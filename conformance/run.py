#!/usr/bin/env python3
"""ncore conformance: plans each case, runs it in every language, compares.

For each case in conformance/cases/*.json and each language whose runner is
built, the case's plan (its steps without expectations, see README.md) is
written to a file and run on `ranks` processes with tools' ncore-run. Each
runner prints one JSON line per executed step. The comparer then checks
every line against the case's expectations, and every language against the
others (status, message and value must be identical), and prints a matrix and
a final `N passed, N failed, N skipped` line.
"""
import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("NCORE_BUILD_DIR", os.path.join(ROOT, "build"))
LANGUAGES = ("c", "python", "rust", "go")
DTYPES = {
    "int8": ("b", 1), "uint8": ("B", 1), "int32": ("i", 4), "uint32": ("I", 4),
    "int64": ("q", 8), "uint64": ("Q", 8), "float16": ("e", 2),
    "float32": ("f", 4), "float64": ("d", 8), "bfloat16": (None, 2),
    "float8_e4m3": (None, 1), "float8_e5m2": (None, 1),
}


# ---------------------------------------------------------------- planning

def plan_value(value):
    """Encodes one argument for the plan: no spaces, no JSON needed."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        if any(c in value for c in " \t\n="):
            raise ValueError(f"string argument {value!r} may not hold spaces or '='")
        return value
    if isinstance(value, dict):
        return ",".join(f"{k}:{plan_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        if value and isinstance(value[0], dict):
            return ";".join(plan_value(v) for v in value)
        return ",".join(plan_value(v) for v in value)
    raise ValueError(f"cannot encode {value!r}")


def per_rank(value, rank):
    """Resolves {"per_rank": [...]} to this rank's value, at any depth (a
    wait descriptor's peer, say)."""
    if isinstance(value, dict) and set(value) == {"per_rank"}:
        return per_rank(value["per_rank"][rank], rank)
    if isinstance(value, dict):
        return {k: per_rank(v, rank) for k, v in value.items()}
    if isinstance(value, list):
        return [per_rank(v, rank) for v in value]
    return value


def make_plan(case, rank):
    """The plan text one rank runs: header, then one line per step."""
    lines = [f"case {case['name']}", f"ranks {case['ranks']}",
             f"timeout_ms {case.get('timeout_ms', 10000)}"]
    for index, step in enumerate(case["steps"]):
        ranks = step.get("ranks")
        if ranks is not None and rank not in ranks:
            continue
        args = []
        for key, value in step.items():
            if key in ("op", "ranks", "expect", "comment"):
                continue
            args.append(f"{key}={plan_value(per_rank(value, rank))}")
        lines.append(" ".join([str(index), step["op"]] + args))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- runners

def runner_command(language):
    """The command that runs a plan file in `language`, or (None, reason)."""
    if language == "c":
        path = os.path.join(BUILD, "bin", "ncore-conformance-c")
        return ([path], None) if os.path.exists(path) else (None, "c runner not built")
    if language == "python":
        ext = [f for f in os.listdir(os.path.join(ROOT, "bindings", "python", "ncore"))
               if f.startswith("_ncore")] if os.path.isdir(
                   os.path.join(ROOT, "bindings", "python", "ncore")) else []
        if not ext:
            return None, "python extension not built"
        # The interpreter running this script: the one the extension was
        # built for (Debian's python3 here, the venv's on the GPU machines).
        return ([sys.executable, os.path.join(HERE, "runners", "python", "runner.py")],
                None)
    if language == "rust":
        path = os.path.join(HERE, "runners", "rust", "target", "release", "ncore-conformance-rust")
        return ([path], None) if os.path.exists(path) else (None, "rust runner not built")
    if language == "go":
        path = os.path.join(BUILD, "bin", "ncore-conformance-go")
        return ([path], None) if os.path.exists(path) else (None, "go runner not built")
    return None, f"unknown language {language}"


def run_case(case, language, command, workdir):
    """Runs one case in one language; returns (lines_by_rank_step, error)."""
    plan_dir = os.path.join(workdir, language, case["name"])
    os.makedirs(plan_dir, exist_ok=True)
    for rank in range(case["ranks"]):
        with open(os.path.join(plan_dir, f"plan.{rank}"), "w") as f:
            f.write(make_plan(case, rank))
    launcher = os.path.join(BUILD, "bin", "ncore-run")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "bindings", "python") + os.pathsep + env.get("PYTHONPATH", "")
    env["NCORE_CONFORMANCE_PLAN_DIR"] = plan_dir
    # Cases where a rank dies end with a non-zero launcher status by design;
    # expectations on the survivors decide the verdict.
    try:
        proc = subprocess.run([launcher, "-n", str(case["ranks"]), "--"] + command,
                              env=env, capture_output=True, text=True,
                              timeout=case.get("wall_timeout_s", 120))
    except subprocess.TimeoutExpired:
        return None, "timed out"
    results = {}
    for line in proc.stdout.splitlines():
        text = line.split("] ", 1)[1] if line.startswith("[") and "] " in line else line
        if not text.startswith("{"):
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError:
            continue
        results[(record["rank"], record["step"])] = record
    if not results:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        return None, "no output: " + " | ".join(tail)
    return results, None


# ---------------------------------------------------------------- checking

def expected_bytes(expect, dtype, rank):
    """The bytes a check step must show, from int/float/hex expectations."""
    import struct
    expect = per_rank(expect, rank)
    if "per_rank" in expect:
        expect = expect["per_rank"][rank]
    if "hex" in expect:
        hex_value = per_rank(expect["hex"], rank)
        return "".join(hex_value) if isinstance(hex_value, list) else hex_value
    fmt, _ = DTYPES[dtype]
    values = per_rank(expect.get("int", expect.get("float")), rank)
    return struct.pack("<" + fmt * len(values), *values).hex()


def check_case(case, results):
    """Checks one language's results against the case; returns problems."""
    problems = []
    buffers = {}
    dead = set()  # ranks a "die" step ended: they report nothing after it
    for index, step in enumerate(case["steps"]):
        if step["op"] == "buffer":
            buffers[step["name"]] = step["dtype"]
        ranks = step.get("ranks", range(case["ranks"]))
        expect = step.get("expect", {})
        for rank in ranks:
            record = results.get((rank, index))
            if step["op"] == "die":
                dead.add(rank)
                continue
            if rank in dead:
                continue
            if record is None:
                problems.append(f"rank {rank} step {index} ({step['op']}): no result")
                break
            want_status = per_rank(expect.get("status", "NCORE_OK"), rank)
            if isinstance(want_status, list):
                ok = record["status"] in want_status
            else:
                ok = record["status"] == want_status
            if not ok:
                problems.append(f"rank {rank} step {index} ({step['op']}): status "
                                f"{record['status']} ({record['message']}), expected {want_status}")
                continue
            substring = per_rank(expect.get("message_contains"), rank)
            if substring and substring not in record["message"]:
                problems.append(f"rank {rank} step {index}: message {record['message']!r} "
                                f"lacks {substring!r}")
            if "value" in expect or "value_per_rank" in expect:
                want = expect["value_per_rank"][rank] if "value_per_rank" in expect \
                    else per_rank(expect["value"], rank)
                if record.get("value") != want:
                    problems.append(f"rank {rank} step {index} ({step['op']}): value "
                                    f"{record.get('value')}, expected {want}")
            if step["op"] == "check" and any(k in expect for k in ("int", "float", "hex", "per_rank")):
                want = expected_bytes(expect, buffers[step["buffer"]], rank)
                if record.get("value") != want:
                    problems.append(f"rank {rank} step {index}: buffer {step['buffer']} is "
                                    f"{record.get('value')}, expected {want}")
    return problems


def comparable(record):
    return (record["status"], record["message"], record.get("value"))


def compare_languages(case, per_language):
    """Problems where languages disagree on a step both ran."""
    problems = []
    names = [l for l in per_language if per_language[l] is not None]
    for other in names[1:]:
        for key, record in per_language[names[0]].items():
            peer = per_language[other].get(key)
            if peer is not None and comparable(peer) != comparable(record):
                problems.append(f"{names[0]} and {other} differ at rank {key[0]} step "
                                f"{key[1]}: {comparable(record)} vs {comparable(peer)}")
    return problems


# ---------------------------------------------------------------- main

def load_cases(pattern):
    cases = []
    for name in sorted(os.listdir(os.path.join(HERE, "cases"))):
        if name.endswith(".json"):
            with open(os.path.join(HERE, "cases", name)) as f:
                case = json.load(f)
            if fnmatch.fnmatch(case["name"], pattern):
                cases.append(case)
    return cases


def current_backend():
    value = os.environ.get("NCORE_BACKEND", "host").lower()
    return value if value in ("host", "nccl") else "host"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--cases", default="*", help="glob over case names")
    parser.add_argument("--plan", help="print the plan of CASE for rank 0 and exit")
    parser.add_argument("--max-ranks", type=int, default=0,
                        help="skip cases with more ranks (NCCL: one GPU per rank)")
    args = parser.parse_args()
    if args.plan:
        for case in load_cases(args.plan):
            for rank in range(case["ranks"]):
                print(f"# rank {rank}\n" + make_plan(case, rank))
        return 0
    languages = [l for l in args.languages.split(",") if l]
    cases = load_cases(args.cases)
    backend = current_backend()
    commands = {l: runner_command(l) for l in languages}
    passed = failed = skipped = 0
    failures = []
    width = max([len(c["name"]) for c in cases] + [10])
    print("case".ljust(width) + "  " + "  ".join(l.ljust(8) for l in languages))
    with tempfile.TemporaryDirectory(prefix="ncore-conformance-") as workdir:
        for case in cases:
            cells, per_language = {}, {}
            for language in languages:
                command, reason = commands[language]
                if backend not in case.get("backends", ["host", "nccl"]):
                    cells[language] = "skip(backend)"
                    continue
                if command is None:
                    cells[language] = f"skip({reason})"
                    continue
                if args.max_ranks and case["ranks"] > args.max_ranks:
                    cells[language] = f"skip(needs {case['ranks']} ranks)"
                    continue
                results, error = run_case(case, language, command, workdir)
                problems = [error] if error else check_case(case, results)
                per_language[language] = results
                if problems:
                    cells[language] = "FAIL"
                    failures.append((case["name"], language, problems))
                else:
                    cells[language] = "pass"
            disagreements = compare_languages(case, per_language)
            if disagreements:
                for language in per_language:
                    cells[language] = "FAIL"
                failures.append((case["name"], "cross-language", disagreements))
            for language in languages:
                cell = cells[language]
                passed += cell == "pass"
                failed += cell == "FAIL"
                skipped += cell.startswith("skip")
            print(case["name"].ljust(width) + "  " +
                  "  ".join(cells[l].ljust(8) for l in languages), flush=True)
    for name, language, problems in failures:
        print(f"\nFAIL {name} [{language}]")
        for problem in problems[:10]:
            print(f"  {problem}")
    print(f"conformance ({backend}): {len(cases)} cases x {len(languages)} languages")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
