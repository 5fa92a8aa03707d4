"""The schedule: each language's cases grouped into batches (one launch
each), run `jobs` launches at a time, and the cases a launch left without a
complete result run again one by one (conformance/README.md, "Batches")."""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from . import launch
from .plans import dying_ranks


def batches(cases, size):
    """Cases grouped for launches: those of one rank count together, in
    order, at most `size` per batch; a case where a rank dies alone (its
    launch ends that rank, so nothing may follow it)."""
    alone = [[case] for case in cases if dying_ranks(case)]
    grouped = {}
    for case in cases:
        if not dying_ranks(case):
            grouped.setdefault(case["ranks"], []).append(case)
    out = []
    for ranks in sorted(grouped):
        group = grouped[ranks]
        out += [group[i:i + size] for i in range(0, len(group), size)]
    return out + alone


class Schedule:
    """Runs the launches of every language; `results[language][case name]`
    is then a CaseRun (None when not even a lone launch printed anything)
    and `troubles[language][case name]` what went wrong, if anything."""

    def __init__(self, root, build, workdir, jobs, env=None, log=sys.stderr):
        self.root, self.build, self.workdir = root, build, workdir
        self.jobs, self.env, self.log = jobs, dict(env or os.environ), log
        self.results, self.troubles = {}, {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def run(self, work):
        """work: {language: (command, cases, batch_size)}."""
        tasks = []
        for language, (command, cases, size) in work.items():
            self.results[language], self.troubles[language] = {}, {}
            tasks += [(language, command, batch) for batch in batches(cases, size)]
        # Longest first, so that the last launches to start are short ones.
        tasks.sort(key=lambda t: -sum(launch.wall_timeout(c) * c["ranks"] for c in t[2]))
        with ThreadPoolExecutor(max_workers=max(1, self.jobs)) as pool:
            for future in [pool.submit(self._batch, *task) for task in tasks]:
                future.result()

    def _launch(self, language, command, cases):
        directory = os.path.join(self.workdir, language, f"launch-{next(self._ids)}")
        start = time.monotonic()
        outcome = launch.run_launch(self.root, self.build, command, cases, directory, self.env)
        done = sum(1 for c in cases if c["name"] in outcome.runs and
                   outcome.runs[c["name"]].complete(c))
        print(f"launch {language} x{cases[0]['ranks']}: {done}/{len(cases)} cases complete "
              f"in {time.monotonic() - start:.1f} s", file=self.log, flush=True)
        return outcome

    def _batch(self, language, command, cases):
        outcome = self._launch(language, command, cases)
        for case in cases:
            run = outcome.runs.get(case["name"])
            if (run is None or not run.complete(case)) and len(cases) > 1:
                # The batch ended early: this case again, alone.
                outcome_alone = self._launch(language, command, [case])
                run, trouble = outcome_alone.runs.get(case["name"]), outcome_alone.trouble
            else:
                trouble = outcome.trouble
            with self._lock:
                self.results[language][case["name"]] = None if run is None or run.empty() else run
                self.troubles[language][case["name"]] = "" if run and run.complete(case) else trouble
