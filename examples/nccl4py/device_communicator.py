"""Device communicator (nccl.core: create_dev_comm with
NCCLDevCommRequirements, the communicator's device-API properties). The
resource's ptr is the ncclDevComm a CUDA kernel built against NCCL's device
headers takes; this example makes and inspects one without a kernel.

    python -m ncore.run -n 2 examples/nccl4py/device_communicator.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import check, share_unique_id, skip, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))
    print(f"rank {rank}: device API {comm.device_api_support}, multimem "
          f"{comm.multimem_support}, GIN {comm.gin_type.name} / railed "
          f"{comm.railed_gin_type.name}, host RMA {comm.host_rma_support}")
    if not comm.device_api_support:
        print(f"rank {rank}: this platform has no device API; nothing more to show")
    elif comm.n_lsa_teams > 1 and comm.gin_type == nccl.NcclGinType.NONE:
        # A device communicator reaches ranks outside the LSA team by GIN.
        skip(rank, f"{comm.n_lsa_teams} LSA teams and no GIN on this platform")
    else:
        # Fields left None keep NCCL's defaults; GIN only where there is GIN.
        requirements = nccl.NCCLDevCommRequirements(lsa_barrier_count=1)
        if comm.gin_type != nccl.NcclGinType.NONE:
            requirements.gin_connection_type = nccl.NcclGinConnectionType.FULL
            requirements.gin_signal_count = 1
        with comm.create_dev_comm(requirements) as dev_comm:
            check(dev_comm.is_valid and dev_comm.ptr != 0, "device communicator")
            check(dev_comm.dev_comm.ptr == dev_comm.ptr, "dev_comm.ptr")
        check(not dev_comm.is_valid, "closed on leaving the with block")
    comm.finalize()
    comm.destroy()
    print(f"rank {rank}: device communicator OK")


if __name__ == "__main__":
    main()
