"""A ring in nccl.core style: each rank passes a token around the ring with
send/recv in a group, then all ranks check it with an allreduce.

    python3 -m ncore.run -n 4 --backend host bindings/python/examples/ring.py

(--backend host: the buffers are NumPy arrays, host memory; on a GPU
machine the AUTO backend would be NCCL, which rejects them.)

Written against nccl.core; the import is the only difference (there:
``import nccl.core as nccl``). The launcher hands every rank its rank, the
world size and the unique id rank 0 would otherwise have broadcast (with
mpi4py, say). On the host backend the buffers are NumPy arrays; on GPUs use
``nccl.interop.cupy.empty`` / ``nccl.interop.torch.empty`` instead."""

import os

import numpy as np

import ncore as nccl

rank = int(os.environ["NCORE_RANK"])
nranks = int(os.environ["NCORE_NRANKS"])
unique_id = nccl.UniqueId.from_hex(os.environ["NCORE_UNIQUE_ID"])

comm = nccl.Communicator.init(nranks, rank, unique_id)
right, left = (rank + 1) % nranks, (rank - 1) % nranks

token = np.array([rank], dtype=np.int64)
for _ in range(nranks):
    incoming = np.empty_like(token)
    with nccl.group():
        comm.send(token, right)
        comm.recv(incoming, left)
    token = incoming + 1  # every hop adds one

# After nranks hops every token is back home, nranks larger.
assert int(token[0]) == rank + nranks, token
total = np.zeros(1, dtype=np.int64)
comm.allreduce(token, total, nccl.SUM)
expected = sum(range(nranks)) + nranks * nranks
assert int(total[0]) == expected, (total, expected)
print(f"rank {rank}/{nranks}: token {int(token[0])}, ring sum {int(total[0])} ok")
comm.destroy()
