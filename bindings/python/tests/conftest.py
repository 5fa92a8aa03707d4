"""Test helpers: run a function on N ranks of a host-backend communicator,
one forked process per rank, and collect each rank's result."""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import queue
import traceback
from typing import Any, Callable

import pytest

import ncore

HOST = ncore.NCCLConfig(backend=ncore.Backend.HOST, timeout=30)


def run_ranks(nranks: int, fn: Callable[..., Any], *args: Any, timeout: float = 60,
              destroy: bool = True) -> list:
    """Runs fn(comm, *args) on every rank of a fresh host communicator of
    `nranks` processes and returns the results indexed by rank. A rank that
    raises fails the test with its traceback."""
    uid = ncore.get_unique_id(ncore.Backend.HOST)
    context = multiprocessing.get_context("fork")
    results = context.Queue()

    def child(rank: int) -> None:
        try:
            comm = ncore.Communicator.init(nranks, rank, uid, HOST)
            try:
                value = fn(comm, *args)
            finally:
                if destroy:
                    comm.destroy()
            results.put((rank, "ok", value))
        except BaseException:  # noqa: BLE001 - report everything to the parent
            results.put((rank, "error", traceback.format_exc()))
        finally:
            results.close()
            results.join_thread()
            os._exit(0)

    processes = [context.Process(target=child, args=(rank,)) for rank in range(nranks)]
    for process in processes:
        process.start()
    collected: dict = {}
    errors = []
    try:
        for _ in range(nranks):
            rank, state, value = results.get(timeout=timeout)
            if state == "ok":
                collected[rank] = value
            else:
                errors.append(f"rank {rank}:\n{value}")
    except queue.Empty:
        errors.append(f"timed out after {timeout}s; ranks that answered: {sorted(collected)}")
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)
    return [collected[rank] for rank in range(nranks)]


@pytest.fixture
def comm1():
    """A one-rank host communicator in this process."""
    comm = ncore.Communicator.init(1, 0, ncore.get_unique_id(ncore.Backend.HOST), HOST)
    yield comm
    comm.destroy()


def framework_missing(name: str) -> "str | None":
    """Why GPU tests with framework `name` cannot run here, or None if they can."""
    if importlib.util.find_spec(name) is None:
        return f"{name} is not installed"
    try:
        module = __import__(name)
        available = (module.cuda.is_available() if name == "torch"
                     else module.cuda.runtime.getDeviceCount() > 0)
    except Exception as error:  # noqa: BLE001
        return f"{name} cannot reach a GPU: {error}"
    if not available:
        return f"{name} sees no GPU"
    try:
        ncore.Backend.resolve(ncore.Backend.NCCL)
    except ncore.NcclError as error:
        return f"ncore's NCCL backend is unavailable: {error}"
    return None


class Tensorish:
    """A NumPy array with torch's accessors (data_ptr, numel, dtype,
    get_device, is_contiguous, requires_grad) and DLPack."""

    def __init__(self, array):
        self.array = array
        self.requires_grad = False

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def data_ptr(self):
        return self.array.ctypes.data

    def numel(self):
        return self.array.size

    @property
    def dtype(self):
        return self.array.dtype

    def get_device(self):
        return -1

    def is_contiguous(self):
        return self.array.flags.c_contiguous
