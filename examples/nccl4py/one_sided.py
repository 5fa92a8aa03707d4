"""One-sided put, signal and wait (nccl.core: register_window, put_signal,
signal, wait_signal with WaitSignalDesc). Each rank writes into its right
neighbour's part of a window and signals it; each waits for the signal from
its left neighbour, then reads what arrived.

    python -m ncore.run -n 2 examples/nccl4py/one_sided.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import check, full, host, nccl_empty, share_unique_id, skip, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))
    right, left = (rank + 1) % nranks, (rank - 1) % nranks
    if comm.n_lsa_teams > 1 and not comm.host_rma_support:
        # Peers outside this rank's load/store (NVLink) team are reached
        # through NCCL's host RMA (NCCL 2.29.2+ with a GIN-capable network).
        skip(rank, f"{comm.n_lsa_teams} LSA teams and no host RMA on this platform")
    count = 16
    inbox = nccl_empty(nccl, 2 * count)
    inbox[:] = -1
    window = comm.register_window(inbox)

    # Put 16 values at element offset `count` of the right neighbour's part,
    # with a signal; then wait for the left neighbour's.
    outgoing = full(count, float(rank))  # kept until the put is done
    comm.put_signal(outgoing, right, window, peer_window_offset=count)
    comm.wait_signal(nccl.WaitSignalDesc(peer=left, op_count=1))
    values = host(inbox)
    check(values[count:] == [float(left)] * count, f"put from {left}: {values[count:][:4]}")
    check(values[:count] == [-1.0] * count, "the rest of the window is untouched")

    # A bare signal, and a wait on several descriptors at once.
    comm.signal(right)
    descs = [nccl.WaitSignalDesc(left)]
    comm.wait_signal(descs)

    # Nobody may close the window while a peer still writes into it.
    barrier = full(1, 0.0)
    comm.allreduce(barrier, barrier, nccl.SUM)
    host(barrier)
    window.close()
    comm.finalize()
    comm.destroy()
    print(f"rank {rank}: one-sided OK")


if __name__ == "__main__":
    main()
