"""What every example needs besides nccl.core: this process's place in the
job, the unique id shared from rank 0, and arrays of the library picked by
NCCL_EXAMPLE_ARRAYS (numpy, the default, for ncore's host backend; torch or
cupy on GPUs). Plain Python: it imports neither nccl.core nor ncore, the
examples pass their `nccl` module in.

Ranks and rendezvous follow torchrun's environment (RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR, MASTER_PORT), which torchrun and ncore's launcher
(python -m ncore.run) both set; rank 0 hands the unique id's bytes to the
others over a TCP connection. Without RANK the program is a single rank,
unless another launcher started it with more ranks (mpirun, srun): that
launcher sets none of these names, so it stops saying what to use instead
of running as several jobs of one rank each."""

from __future__ import annotations

import os
import socket
import sys
import time

ARRAYS = os.environ.get("NCCL_EXAMPLE_ARRAYS", "numpy")


# Other launchers' rank and size variables, as ncore's own launch code
# reads them (core/launch_vars.h), and the variable that marks a real task
# (a Slurm batch script has SLURM_PROCID too, but no step).
_OTHER_LAUNCHERS = (
    ("Open MPI's mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", None),
    ("MPICH's mpirun", "PMI_RANK", "PMI_SIZE", None),
    ("Slurm's srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_ID"),
)


def _other_launcher() -> tuple[str, str, int] | None:
    """(launcher, size variable, size) of a launcher of several ranks that
    is not torchrun's kind, or None."""
    for name, rank, size, guard in _OTHER_LAUNCHERS:
        if os.environ.get(rank) and (guard is None or guard in os.environ):
            try:
                count = int(os.environ.get(size, "1"))
            except ValueError:
                continue
            if count > 1:
                return name, size, count
    return None


def world() -> tuple[int, int, int]:
    """(rank, nranks, local_rank) of this process. Stops (exit 2) when a
    launcher that sets none of torchrun's names started several ranks."""
    other = _other_launcher() if "RANK" not in os.environ else None
    if other is not None:
        name, size, count = other
        print(f"{os.path.basename(sys.argv[0])}: started by {name} ({size}={count}), "
              "which sets none of the variables this example takes its place in the "
              "job from (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT: "
              "torchrun's); each rank would run alone. Start it with "
              f"`python3 -m ncore.run -n {count} ...` or `torchrun --nproc-per-node "
              f"{count} ...`.",
              file=sys.stderr)
        raise SystemExit(2)
    return (int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1)),
            int(os.environ.get("LOCAL_RANK", 0)))


def _receive_exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise ConnectionError("rank 0 closed the connection before sending the id")
        data += chunk
    return data


def share_unique_id(nccl, rank: int, nranks: int, timeout: float = 60.0):
    """Rank 0 makes the id (nccl.get_unique_id()) and sends its bytes to every
    other rank, which rebuilds it with UniqueId.from_bytes."""
    if nranks == 1:
        return nccl.get_unique_id()
    address = (os.environ.get("MASTER_ADDR", "127.0.0.1"), int(os.environ["MASTER_PORT"]))
    if rank == 0:
        uid = nccl.get_unique_id()
        with socket.create_server(address) as server:
            server.settimeout(timeout)
            for _ in range(nranks - 1):
                connection, _ = server.accept()
                with connection:
                    connection.sendall(uid.as_bytes)
        return uid
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(address, timeout=timeout) as connection:
                return nccl.UniqueId.from_bytes(_receive_exactly(connection, 128))
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def use_device(local_rank: int) -> int:
    """Makes this rank's GPU current (ranks share GPUs round robin); -1 for
    NumPy, which lives in host memory."""
    if ARRAYS == "torch":
        import torch

        device = local_rank % torch.cuda.device_count()
        torch.cuda.set_device(device)
        return device
    if ARRAYS == "cupy":
        import cupy

        device = local_rank % cupy.cuda.runtime.getDeviceCount()
        cupy.cuda.Device(device).use()
        return device
    return -1


def _module():
    if ARRAYS == "torch":
        import torch

        return torch
    if ARRAYS == "cupy":
        import cupy

        return cupy
    import numpy

    return numpy


def _dtype(name: str):
    return getattr(_module(), name)


def full(count: int, value, dtype: str = "float32"):
    """A new array of `count` elements set to `value` (on the GPU for torch
    and CuPy)."""
    if ARRAYS == "torch":
        import torch

        return torch.full((count,), value, dtype=_dtype(dtype), device="cuda")
    return _module().full(count, value, dtype=_dtype(dtype))


def arange(count: int, dtype: str = "float32", start: float = 0):
    """start, start + 1, ... as a new array."""
    if ARRAYS == "torch":
        import torch

        return torch.arange(start, start + count, dtype=_dtype(dtype), device="cuda")
    return _module().arange(start, start + count, dtype=_dtype(dtype))


def nccl_empty(nccl, count: int, dtype: str = "float32"):
    """An array on memory from NCCL's allocator (ncclMemAlloc), as windows
    and symmetric memory want: nccl.torch.empty / nccl.cupy.empty on GPUs,
    a NumPy view of nccl.mem_alloc's memory on the host."""
    if ARRAYS == "torch":
        return nccl.torch.empty(count, dtype=_dtype(dtype))
    if ARRAYS == "cupy":
        return nccl.cupy.empty(count, dtype=_dtype(dtype))
    import numpy

    memory = nccl.mem_alloc(count * numpy.dtype(dtype).itemsize)
    return numpy.asarray(memory).view(dtype)[:count]


def host(array) -> list:
    """The array's values as a Python list (waits for the GPU first)."""
    synchronize()
    if ARRAYS == "torch":
        return array.cpu().tolist()
    if ARRAYS == "cupy":
        return array.get().tolist()
    return array.tolist()


def synchronize() -> None:
    """Waits until the GPU finished everything queued (nothing for NumPy)."""
    if ARRAYS == "torch":
        import torch

        torch.cuda.synchronize()
    elif ARRAYS == "cupy":
        import cupy

        cupy.cuda.Device().synchronize()


def check(condition: bool, what: str) -> None:
    """Stops the example with a message naming what went wrong."""
    if not condition:
        raise SystemExit(f"FAILED: {what}")


# The exit status of an example that the platform cannot run (automake's
# "skipped"): run.sh reports it as a skip with the reason printed.
SKIPPED = 77


def skip(rank: int, reason: str) -> None:
    """Stops the example on a platform that lacks what it shows, saying why
    (e.g. ranks outside each other's NVLink domain on an NCCL without the
    calls that reach them)."""
    print(f"rank {rank}: skipped: {reason}")
    raise SystemExit(SKIPPED)
