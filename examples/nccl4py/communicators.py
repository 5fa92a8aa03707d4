"""Communicators (nccl.core: Communicator.init, properties, split, init_all,
finalize / destroy). Each rank joins with the unique id rank 0 shares, looks
at its communicator, splits it into even and odd ranks, and makes one
communicator per device of this process with init_all.

    python -m ncore.run -n 2 examples/nccl4py/communicators.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import arange, check, host, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    uid = share_unique_id(nccl, rank, nranks)
    comm = nccl.Communicator.init(nranks=nranks, rank=rank, unique_id=uid)
    check((comm.rank, comm.nranks) == (rank, nranks), "rank and size")
    print(f"rank {comm.rank}/{comm.nranks}: device {comm.device.device_id}, "
          f"CUDA {comm.cuda_dev}, device API {comm.device_api_support}, "
          f"GIN {comm.gin_type.name}, LSA teams {comm.n_lsa_teams}")

    # Even and odd ranks; key orders the new ranks (here: reversed).
    half = comm.split(color=rank % 2, key=-rank)
    value = arange(1, "int32", start=rank)
    half.allreduce(value, value, nccl.SUM)
    expected = sum(r for r in range(nranks) if r % 2 == rank % 2)
    check(host(value) == [expected], f"split allreduce: {host(value)} != [{expected}]")
    # A color of None leaves a rank out: it gets a null communicator.
    only_first = comm.split(color=0 if rank == 0 else None)
    check(only_first.is_valid == (rank == 0), "split with color None")

    # One communicator per device of this process, driven from one thread.
    local = nccl.Communicator.init_all()
    with nccl.group():
        for c in local:
            check(c.nranks == len(local), "init_all sizes")
    for c in (half, only_first, comm, *local):
        c.finalize()
        c.destroy()
    print(f"rank {rank}: communicators OK ({len(local)} from init_all)")


if __name__ == "__main__":
    main()
