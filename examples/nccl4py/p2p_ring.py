"""Point-to-point ring (nccl.core: send and recv inside a group). Every rank
passes a buffer to its right neighbour nranks times; each value makes a full
circle and comes back to its owner.

    python -m ncore.run -n 4 examples/nccl4py/p2p_ring.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import check, full, host, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))
    right, left = (rank + 1) % nranks, (rank - 1) % nranks
    token = full(8, float(rank))
    incoming = full(8, -1.0)
    seen = []
    for _ in range(nranks):
        # Sends and receives in one group, so no rank waits for another.
        with nccl.group():
            comm.send(token, peer=right)
            comm.recv(incoming, peer=left)
        token, incoming = incoming, token
        seen.append(host(token)[0])
    check(host(token) == [float(rank)] * 8, f"the token came back as {host(token)}")
    check(sorted(seen) == [float(r) for r in range(nranks)], f"tokens seen {seen}")
    comm.finalize()
    comm.destroy()
    print(f"rank {rank}: ring OK")


if __name__ == "__main__":
    main()
