"""The per-collective configuration (nccl4py 0.5.0 / 0.6.0: NCCLCollConfig
and the config= keyword of every collective) and the communicator's
properties. Every rank passes the same config.

- alg_selection="oneshot" (ncore's small-message kernel, on every NCCL;
  force_alg_selection=False lets NCCL's kernels take a call it cannot);
- NCCL's own tuning fields (min_ctas, ...): NCCL 2.31+ takes them; an
  older NCCL refuses them with NcclNotSupported naming 2.31, which the
  program reports and goes on without them;
- launch_completion_event: recorded once the call is launched (torch
  arrays only: a CUDA event).

    python -m ncore.run -n 2 examples/nccl4py/per_call_config.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import ARRAYS, check, full, host, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))
    total = float(sum(range(nranks)))

    properties = comm.properties
    check(properties.rank == rank and properties.n_ranks == nranks,
          f"properties {properties.rank} of {properties.n_ranks}")

    x = full(16, float(rank))
    small = nccl.NCCLCollConfig(alg_selection="oneshot", force_alg_selection=False)
    comm.allreduce(x, x, nccl.SUM, config=small)
    check(host(x) == [total] * 16, f"allreduce with alg_selection=oneshot {host(x)[:4]}")

    y = full(8, float(rank))
    tuned = nccl.NCCLCollConfig(min_ctas=1, max_ctas=8)
    try:
        comm.allgather(full(2, float(rank)), full(2 * nranks, -1.0), config=tuned)
        said = "accepted"
    except nccl.NcclNotSupported as e:
        said = f"refused as documented ({e})"
        check("2.31" in str(e), f"the refusal names the NCCL version: {e}")
    comm.reduce_scatter(full(8 * nranks, 1.0), y, nccl.SUM,
                        config=nccl.NCCLCollConfig(alg_selection="nccl"))
    check(host(y) == [float(nranks)] * 8, f"reduce_scatter on NCCL's kernels {host(y)}")

    if ARRAYS == "torch":
        import torch

        launched = torch.cuda.Event()
        launched.record()  # torch makes its CUDA event at the first record
        z = full(4, 1.0)
        # NcclEventSpec: a cuda.core Event or a cudaEvent_t handle (torch's)
        config = nccl.NCCLCollConfig(launch_completion_event=launched.cuda_event)
        comm.allreduce(z, z, nccl.SUM, config=config)
        launched.synchronize()  # the call was launched; its result follows on the stream
        check(host(z) == [float(nranks)] * 4, f"allreduce with a completion event {host(z)}")

    comm.finalize()
    comm.destroy()
    print(f"rank {rank}: per-call config OK (tuning fields: {said})")


if __name__ == "__main__":
    main()
