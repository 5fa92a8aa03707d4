"""Symmetric memory (nccl.core: register_window with
WindowFlag.CollSymmetric on memory from NCCL's allocator, then collectives
on it). Every rank registers buffers of the same size at the same time, so
NCCL may use its symmetric kernels.

    python -m ncore.run -n 2 examples/nccl4py/symmetric_memory.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import check, host, nccl_empty, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))
    count = 4096
    send = nccl_empty(nccl, count)
    recv = nccl_empty(nccl, count)
    gathered = nccl_empty(nccl, count * nranks)
    windows = [comm.register_window(buf, flags=nccl.WindowFlag.CollSymmetric)
               for buf in (send, recv, gathered)]
    check(all(w.flags & nccl.WindowFlag.COLL_SYMMETRIC for w in windows), "window flags")

    send[:] = float(rank)
    comm.allreduce(send, recv, nccl.SUM)
    check(host(recv)[:2] == [float(sum(range(nranks)))] * 2, "allreduce on symmetric memory")
    comm.allgather(send, gathered)
    values = host(gathered)
    check([values[k * count] for k in range(nranks)] == [float(k) for k in range(nranks)],
          "allgather on symmetric memory")

    for window in windows:
        window.close()
    comm.finalize()
    comm.destroy()
    print(f"rank {rank}: symmetric memory OK")


if __name__ == "__main__":
    main()
