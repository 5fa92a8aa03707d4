"""Collective operations (nccl.core: allreduce, broadcast, reduce,
allgather, reduce_scatter, alltoall, gather, scatter). Counts come from the
buffers; every rank checks what it received.

    python -m ncore.run -n 4 examples/nccl4py/collectives.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import arange, check, full, host, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))
    total = sum(range(nranks))

    x = full(4, float(rank))
    y = full(4, -1.0)
    comm.allreduce(x, y, nccl.SUM)
    check(host(y) == [total] * 4, f"allreduce {host(y)}")
    comm.allreduce(y, y, nccl.MAX)  # in place
    check(host(y) == [total] * 4, "in-place allreduce")

    b = arange(3) if rank == 0 else full(3, 0.0)
    comm.broadcast(b, b, root=0)
    check(host(b) == [0.0, 1.0, 2.0], f"broadcast {host(b)}")

    r = full(2, 0.0)
    comm.reduce(full(2, 1.0), r, nccl.SUM, root=nranks - 1)
    if rank == nranks - 1:
        check(host(r) == [float(nranks)] * 2, f"reduce {host(r)}")

    gathered = full(2 * nranks, -1.0)
    comm.allgather(full(2, float(rank)), gathered)
    check(host(gathered) == [float(k) for k in range(nranks) for _ in range(2)], "allgather")

    block = full(2, -1.0)
    comm.reduce_scatter(arange(2 * nranks), block, nccl.SUM)
    check(host(block) == [nranks * 2.0 * rank, nranks * (2.0 * rank + 1)], "reduce_scatter")

    exchanged = full(nranks, -1.0)
    comm.alltoall(arange(nranks, start=100 * rank), exchanged)
    check(host(exchanged) == [100.0 * k + rank for k in range(nranks)], "alltoall")

    at_root = full(nranks, -1.0)
    comm.gather(full(1, float(rank)), at_root, root=0)
    if rank == 0:
        check(host(at_root) == [float(k) for k in range(nranks)], "gather")

    mine = full(1, -1.0)
    comm.scatter(arange(nranks, start=10) if rank == 0 else None, mine, root=0)
    check(host(mine) == [10.0 + rank], "scatter")

    comm.finalize()
    comm.destroy()
    print(f"rank {rank}: collectives OK")


if __name__ == "__main__":
    main()
