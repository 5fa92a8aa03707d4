"""Launches: one `ncore-run` of one language's runner over a batch of cases
(conformance/README.md, "Batches"), its records collected per case, and a
watchdog that stops a launch whose case in progress overstays its wall
timeout (or whose whole batch overstays the sum of them)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from . import plans

DEFAULT_WALL_TIMEOUT_S = 120


def wall_timeout(case):
    """Seconds a case may take in a launch, world and teardown included."""
    return case.get("wall_timeout_s", DEFAULT_WALL_TIMEOUT_S)


@dataclass
class CaseRun:
    """What one launch printed for one case: header records by rank, step
    records by (rank, step), and the ranks that printed their end record."""

    headers: dict = field(default_factory=dict)
    steps: dict = field(default_factory=dict)
    ends: set = field(default_factory=set)

    def complete(self, case):
        """Every rank that does not die by design released the case."""
        return set(range(case["ranks"])) - plans.dying_ranks(case) <= self.ends

    def empty(self):
        return not (self.headers or self.steps or self.ends)


@dataclass
class Launch:
    """One launch's outcome: a CaseRun per case name (cases it never reached
    have none), and the last lines of its output when it ended badly."""

    runs: dict
    trouble: str = ""


def runner_command(root, build, language):
    """The command that runs a batch in `language`, or (None, reason)."""
    here = os.path.join(root, "conformance")
    if language == "c":
        path = os.path.join(build, "bin", "ncore-conformance-c")
        return ([path], None) if os.path.exists(path) else (None, "c runner not built")
    if language == "python":
        package = os.path.join(root, "bindings", "python", "ncore")
        built = os.path.isdir(package) and any(f.startswith("_ncore") for f in os.listdir(package))
        if not built:
            return None, "python extension not built"
        # The interpreter running run.py: the one the extension was built for
        # (Debian's python3 here, the venv's on the GPU machines).
        return [sys.executable, os.path.join(here, "runners", "python", "runner.py")], None
    if language == "rust":
        path = os.path.join(here, "runners", "rust", "target", "release", "ncore-conformance-rust")
        return ([path], None) if os.path.exists(path) else (None, "rust runner not built")
    if language == "go":
        path = os.path.join(build, "bin", "ncore-conformance-go")
        return ([path], None) if os.path.exists(path) else (None, "go runner not built")
    return None, f"unknown language {language}"


def parse_record(line):
    """The record a runner printed on `line` (the launcher prefixes "[r] "),
    or None for any other line."""
    text = line.split("] ", 1)[1] if line.startswith("[") and "] " in line else line
    if not text.startswith("{"):
        return None
    try:
        record = json.loads(text)
    except json.JSONDecodeError:
        return None
    return record if isinstance(record, dict) and "case" in record and "rank" in record else None


def add_record(runs, record):
    """Files one record under its case."""
    run = runs.setdefault(record["case"], CaseRun())
    if record.get("begin"):
        run.headers[record["rank"]] = record
    elif record.get("end"):
        run.ends.add(record["rank"])
    elif "step" in record:
        run.steps[(record["rank"], record["step"])] = record


def _pump(stream, sink):
    for line in stream:
        sink(line.rstrip("\n"))
    stream.close()


def run_launch(root, build, command, cases, directory, env):
    """Runs `cases` (one rank count) in one launch of `command` under
    ncore-run, with its plans in `directory`; returns a Launch."""
    plans.write_batch(directory, cases)
    env = dict(env, NCORE_CONFORMANCE_PLAN_DIR=directory)
    env["PYTHONPATH"] = os.path.join(root, "bindings", "python") + os.pathsep + env.get("PYTHONPATH", "")
    # The library this build made, wherever build/ now lies (a copy carried
    # to a GPU machine): the Rust runner loads libncore at run time and would
    # otherwise look in the folder it was built against.
    env.setdefault("NCORE_LIBRARY", os.path.join(os.path.abspath(build), "lib", "libncore.so.1"))
    launcher = os.path.join(build, "bin", "ncore-run")
    proc = subprocess.Popen([launcher, "-n", str(cases[0]["ranks"]), "--"] + command, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    runs, tail, lock = {}, [], threading.Lock()
    # Everything the ranks printed, in the launch's folder (run.py --keep
    # keeps it): the records and the lines around a failure.
    output = open(os.path.join(directory, "output.log"), "w")

    def on_stdout(line):
        record = parse_record(line)
        with lock:
            output.write(line + "\n")
            if record is not None:
                add_record(runs, record)
            else:
                tail.append(line)
                del tail[:-20]

    def on_stderr(line):
        with lock:
            output.write("stderr: " + line + "\n")
            tail.append(line)
            del tail[:-20]

    readers = [threading.Thread(target=_pump, args=(proc.stdout, on_stdout), daemon=True),
               threading.Thread(target=_pump, args=(proc.stderr, on_stderr), daemon=True)]
    for reader in readers:
        reader.start()
    why = _watch(proc, cases, runs, lock)
    for reader in readers:
        reader.join()
    output.close()
    trouble = ""
    if why or proc.returncode not in (0, None):
        trouble = " | ".join(([why] if why else []) + tail[-5:])
    return Launch(runs, trouble)


def _watch(proc, cases, runs, lock):
    """Waits for the launch; stops it (returning why) when the case in
    progress (the first one not complete) has run longer than its wall
    timeout since the previous one completed, or the whole batch longer
    than the sum of theirs."""
    start = time.monotonic()
    batch_deadline = start + sum(wall_timeout(case) for case in cases)
    current, since = 0, start
    while proc.poll() is None:
        time.sleep(0.05)
        now = time.monotonic()
        with lock:
            while current < len(cases) and cases[current]["name"] in runs and \
                    runs[cases[current]["name"]].complete(cases[current]):
                current, since = current + 1, now
        why = None
        if current < len(cases) and now - since > wall_timeout(cases[current]):
            why = f"{cases[current]['name']}: no result within {wall_timeout(cases[current])} s"
        elif now > batch_deadline:
            why = "the batch ran past the sum of its cases' wall timeouts"
        if why:
            _stop(proc)
            return why
    return None


def _stop(proc):
    """Stops the launcher (it stops its ranks; SIGKILL if it lingers)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
