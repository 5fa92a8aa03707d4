"""The binding on 2 ranks (NCORE_PYTEST_RANKS to change) with framework
buffers: torch and CuPy on the NCCL backend, NumPy on the host backend.
Collectives, send/recv, buffer and window registration, one-sided calls,
symmetric memory, PreMulSum, device communicators and a non-blocking
communicator; the cases are in framework_rank_cases.py.

The ranks are processes started by ``python -m ncore.run`` (fresh
interpreters: CUDA does not survive fork), once per framework; each case's
outcome on every rank becomes one test here. torch and CuPy run where NCCL,
a GPU and the framework are present, and either there is a GPU per rank or
NCORE_OVERSUBSCRIBE=1 lets the ranks share one (each rank its own NCCL host:
correct and slow); elsewhere -- always on CI -- they skip with the reason.
NumPy on the host backend runs everywhere, so the cases themselves are
exercised on CI. NCORE_TEST_LOG_DIR keeps the ranks' output there
(framework-ranks-<framework>.log)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

import ncore
from ncore import Backend, raw

from conftest import framework_missing
from framework_rank_cases import CASE_NAMES, FRAMEWORKS

RANKS = int(os.environ.get("NCORE_PYTEST_RANKS", "2"))
#: The launcher stops every rank after this long (s).
LAUNCH_TIMEOUT = 150
SCRIPT = Path(__file__).with_name("framework_rank_cases.py")


def _ranks_missing(framework: str) -> Optional[str]:
    """Why RANKS ranks with `framework` cannot run here, or None."""
    if FRAMEWORKS[framework].backend == Backend.HOST:
        return None
    missing = framework_missing(framework)
    if missing is not None:
        return missing
    gpus = raw.ncore_device_count(int(Backend.NCCL))
    if gpus >= RANKS or os.environ.get("NCORE_OVERSUBSCRIBE", "") not in ("", "0"):
        return None
    return (f"{RANKS} NCCL ranks need {RANKS} GPUs, or NCORE_OVERSUBSCRIBE=1 to share "
            f"one; this machine has {gpus}")


@dataclass
class _Run:
    """One launch of the ranks: what each rank recorded, and how it ended."""

    status: str
    outcomes: list  # per rank: {case: (state, detail)}
    log_tail: str  # the end of the ranks' output

    def check(self, case: str) -> None:
        problems, skipped = [], []
        for rank, outcomes in enumerate(self.outcomes):
            state, detail = outcomes.get(case, outcomes.get("*", (None, "")))
            if state == "passed":
                continue
            if state == "skipped":  # a case that does not apply (CaseSkipped)
                skipped.append(f"rank {rank}: {detail}")
                continue
            if state is None:
                problems.append(f"rank {rank}: reported nothing for {case} (the launch "
                                f"{self.status}; the rank was killed or hung)")
            else:
                problems.append(f"rank {rank}: {state}: {detail}")
                if "*" in outcomes:  # what failed before any case
                    problems.append(f"rank {rank}: before the cases: {outcomes['*'][1]}")
        if problems:
            pytest.fail("\n".join(problems) + "\n" + self.log_tail, pytrace=False)
        if len(skipped) == len(self.outcomes):
            pytest.skip(skipped[0])
        if skipped:
            pytest.fail("skipped on some ranks only:\n" + "\n".join(skipped), pytrace=False)


_runs: dict = {}


def _launch(framework: str) -> _Run:
    """Runs every case on RANKS ranks with `framework`, once per session."""
    if framework in _runs:
        return _runs[framework]
    outdir = Path(tempfile.mkdtemp(prefix=f"ncore-ranks-{framework}-"))
    log_dir = Path(os.environ.get("NCORE_TEST_LOG_DIR") or outdir)
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"framework-ranks-{framework}.log"
    try:
        _runs[framework] = _launch_into(framework, outdir, log)
    finally:
        shutil.rmtree(outdir, ignore_errors=True)
    return _runs[framework]


def _launch_into(framework: str, outdir: Path, log: Path) -> _Run:
    """_launch with the ranks' records in outdir and their output in log."""
    package_root = str(Path(ncore.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (package_root, os.environ.get("PYTHONPATH")) if p))
    backend = "host" if FRAMEWORKS[framework].backend == Backend.HOST else "nccl"
    command = [sys.executable, "-m", "ncore.run", "-n", str(RANKS), "--backend", backend,
               "--tag", "--timeout", str(LAUNCH_TIMEOUT), str(SCRIPT), framework, str(outdir)]
    with open(log, "w", encoding="utf-8") as out:
        out.write(" ".join(command) + "\n")
        out.flush()
        try:
            code = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env,
                                  timeout=LAUNCH_TIMEOUT + 30).returncode
            status = f"exited {code}"
        except subprocess.TimeoutExpired:
            status = f"did not end within {LAUNCH_TIMEOUT + 30} s"
    outcomes = []
    for rank in range(RANKS):
        recorded = {}
        path = outdir / f"rank{rank}.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                recorded[entry["case"]] = (entry["state"], entry["detail"])
        outcomes.append(recorded)
    tail = log.read_text(errors="replace").splitlines()[-60:]
    kept = "" if log.parent == outdir else f" (all of it in {log})"
    return _Run(status, outcomes, f"---- the ranks' output, end{kept} ----\n" + "\n".join(tail))


@pytest.mark.parametrize("case", CASE_NAMES)
@pytest.mark.parametrize("framework", ["numpy", "torch", "cupy"])
def test_framework_ranks(framework: str, case: str) -> None:
    reason = _ranks_missing(framework)
    if reason is not None:
        pytest.skip(reason)
    _launch(framework).check(case)
