"""Conformance runner (Python): the batch protocol (conformance/README.md,
"Batches"), as in the C runner (runners/c/batch.c). One launch runs several
cases in order: the plan directory's `batch` file names a directory per case
(holding plan.<rank>); for each case rank 0 makes a fresh unique id and
publishes it in <case>/uid (a temporary file, then rename, so no rank reads
half an id), and the other ranks wait for it."""

from __future__ import annotations

import os
import time

import ncore

# How long a rank waits for rank 0 to publish a case's id: rank 0 may still
# be finishing the previous case; a longer wait means it is stuck (and
# run.py's watchdog stops the launch first).
UID_WAIT_S = 120.0


class BatchError(Exception):
    """The batch cannot go on (its message says why)."""


def load(directory: str) -> list[str]:
    """The case directories of <directory>/batch, in order."""
    try:
        with open(os.path.join(directory, "batch")) as f:
            return [os.path.join(directory, line.strip()) for line in f if line.strip()]
    except OSError as error:
        raise BatchError(f"cannot open {directory}/batch: {error}") from None


def unique_id(case_dir: str, rank: int) -> "ncore.UniqueId":
    """The case's unique id: made and published by rank 0, read by the others."""
    path = os.path.join(case_dir, "uid")
    if rank == 0:
        try:
            uid = ncore.get_unique_id(ncore.Backend.AUTO)
        except ncore.NcclError as error:
            raise BatchError(f"ncore_get_unique_id: {error.message}") from None
        with open(path + ".tmp", "w") as f:
            f.write(uid.hex() + "\n")
        os.rename(path + ".tmp", path)
        return uid
    deadline = time.monotonic() + UID_WAIT_S
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                text = f.read().strip()
        except FileNotFoundError:
            time.sleep(0.002)
            continue
        try:
            return ncore.UniqueId.from_hex(text)
        except ncore.NcclError:
            raise BatchError(f"{path} does not hold a unique id") from None
    raise BatchError(f"rank 0 published no unique id in {path} within {UID_WAIT_S:.0f} s")
