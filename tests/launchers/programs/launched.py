"""tests/launchers — the Python program every launcher starts: joins the
job with Communicator.from_env() alone, allreduces rank + 1 and prints
"launched: rank R of N sum S"."""
import sys

import numpy as np

import ncore

with ncore.Communicator.from_env(ncore.NCCLConfig(timeout=60)) as comm:
    value = np.array([comm.rank + 1], dtype=np.int32)
    comm.allreduce(value, value, ncore.SUM)
    # One write: ranks that share the launcher's pipe never split a line.
    sys.stdout.write(f"launched: rank {comm.rank} of {comm.nranks} sum {value[0]}\n")
