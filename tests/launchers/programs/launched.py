"""tests/launchers — the Python program every launcher starts: joins the
job with Communicator.from_env() alone, allreduces rank + 1 and prints
"launched: rank R of N sum S".

With --mpi first|last it is also an mpi4py program (MPI.Init before or
after from_env; mpi4py is imported, so its MPI library is loaded, at the
top either way, as programs do); with --torch first|last, a torch program
(init_process_group with the gloo backend from torchrun's variables,
before or after from_env). MPI's or torch's own allreduce must give the
same sum."""
import argparse
import sys

import numpy as np

import ncore

parser = argparse.ArgumentParser()
parser.add_argument("--mpi", choices=("first", "last"))
parser.add_argument("--torch", choices=("first", "last"))
args = parser.parse_args()

if args.mpi:
    import mpi4py

    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False
    from mpi4py import MPI
if args.torch:
    import torch
    import torch.distributed as dist


def other_sum(rank):
    """The same allreduce through MPI or torch, initialised now if not yet."""
    if args.mpi:
        if not MPI.Is_initialized():
            MPI.Init()
        world = MPI.COMM_WORLD
        return world.Get_rank(), world.Get_size(), world.allreduce(rank + 1)
    if not dist.is_initialized():
        dist.init_process_group("gloo")
    value = torch.tensor([rank + 1], dtype=torch.int32)
    dist.all_reduce(value)
    return dist.get_rank(), dist.get_world_size(), int(value[0])


if args.mpi == "first":
    MPI.Init()
if args.torch == "first":
    dist.init_process_group("gloo")

with ncore.Communicator.from_env(ncore.NCCLConfig(timeout=60)) as comm:
    value = np.array([comm.rank + 1], dtype=np.int32)
    comm.allreduce(value, value, ncore.SUM)
    rank, nranks, total = comm.rank, comm.nranks, int(value[0])

if args.mpi or args.torch:
    theirs = other_sum(rank)
    if theirs != (rank, nranks, total):
        sys.exit(f"launched: {'MPI' if args.mpi else 'torch'} says rank, size, sum "
                 f"{theirs}, ncore {(rank, nranks, total)}")
    if args.mpi:
        MPI.Finalize()
    else:
        dist.destroy_process_group()
# One write: ranks that share the launcher's pipe never split a line.
sys.stdout.write(f"launched: rank {rank} of {nranks} sum {total}\n")
