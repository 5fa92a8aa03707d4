"""tests/install/python/ring_sum.py — the README's first Python script, run from a venv where
only the ncore-nccl wheel is installed: every rank contributes rank + 1, the
allreduce must give n(n+1)/2. Rank 0 prints the library info."""
import sys

import numpy as np

import ncore

with ncore.Communicator.from_env() as comm:
    if comm.rank == 0:
        info = ncore.get_library_info()
        print(f"ncore {info.version} from {ncore.__file__}: {info.backend.name}: "
              f"{info.backend_reason}")
    value = np.array([comm.rank + 1], dtype=np.float32)
    comm.allreduce(value, value, ncore.SUM)
    want = comm.nranks * (comm.nranks + 1) / 2
    if value[0] != want:
        sys.exit(f"rank {comm.rank}: got {value[0]}, expected {want}")
    print(f"rank {comm.rank} of {comm.nranks}: sum {value[0]:g}")
