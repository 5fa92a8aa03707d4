"""AllGather on the copy engine (NVIDIA's nccl4py example
docs/examples/05_symmetric_memory/02_allgather/python/allgather_ce.py, with
common.py in place of mpi4py): NCCLConfig(cta_policy=CTAPolicy.ZERO), both
buffers from NCCL's allocator registered with WindowFlag.CollSymmetric, and
the allgather on the default stream (stream=None), where NCCL before 2.29.7
refuses its copy-engine path (cudaMemcpyBatchAsync and the legacy stream):
ncore runs it there on the per-thread stream, ordered with the default
stream both ways (core/nccl/README.md).

    python -m ncore.run -n 2 examples/nccl4py/allgather_copy_engine.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import check, host, nccl_empty, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    config = nccl.NCCLConfig(cta_policy=nccl.CTAPolicy.ZERO)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks), config)
    count = 1024 * 1024  # 1M floats from every rank
    send = nccl_empty(nccl, count)
    recv = nccl_empty(nccl, count * nranks)
    send_win = comm.register_window(send, flags=nccl.WindowFlag.CollSymmetric)
    recv_win = comm.register_window(recv, flags=nccl.WindowFlag.CollSymmetric)
    send[:] = float(rank + 1)
    comm.allgather(send, recv)  # the default stream, as NVIDIA's example
    values = host(recv)  # the default stream too: ordered after the allgather
    check([values[k * count] for k in range(nranks)] == [float(k + 1) for k in range(nranks)]
          and [values[k * count + count - 1] for k in range(nranks)]
          == [float(k + 1) for k in range(nranks)],
          "allgather on the copy engine")
    send_win.close()
    recv_win.close()
    comm.destroy()
    print(f"rank {rank}: copy-engine allgather OK")


if __name__ == "__main__":
    main()
