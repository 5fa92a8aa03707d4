"""tests/launchers — the Python program every launcher starts: joins the
job with Communicator.from_env() alone, allreduces rank + 1 and prints
"launched: rank R of N sum S".

With --mpi first|last it is also an mpi4py program (MPI.Init before or
after from_env; mpi4py is imported, so its MPI library is loaded, at the
top either way, as programs do); with --torch first|last, a torch program
(init_process_group with the gloo backend from torchrun's variables,
before or after from_env). MPI's or torch's own allreduce must give the
same sum. With --mpich first|last, MPI through MPICH's libmpich itself
(ctypes: MPI_Init, MPI_Comm_rank / _size, MPI_Allreduce, MPI_Finalize), as
an mpi4py built on MPICH would call it: Debian's mpi4py is built on Open
MPI, which cannot join a Hydra job."""
import argparse
import sys

import numpy as np

import ncore

parser = argparse.ArgumentParser()
parser.add_argument("--mpi", choices=("first", "last"))
parser.add_argument("--torch", choices=("first", "last"))
parser.add_argument("--mpich", choices=("first", "last"))
args = parser.parse_args()

if args.mpi:
    import mpi4py

    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False
    from mpi4py import MPI
if args.torch:
    import torch
    import torch.distributed as dist
if args.mpich:
    import ctypes

    class MPICH:
        """The few MPI calls this program makes, on libmpich.so.12 (MPICH's
        ABI: handles are ints, these are its values)."""
        COMM_WORLD, INT, SUM = 0x44000000, 0x4C000405, 0x58000003

        def __init__(self):
            self.lib = ctypes.CDLL("libmpich.so.12", mode=ctypes.RTLD_GLOBAL)

        def call(self, name, *args):
            code = getattr(self.lib, name)(*args)
            if code != 0:
                sys.exit(f"launched: {name} returned {code}")

        def initialized(self):
            flag = ctypes.c_int(0)
            self.call("MPI_Initialized", ctypes.byref(flag))
            return bool(flag.value)

        def init(self):
            self.call("MPI_Init", None, None)

        def rank_size_sum(self, mine):
            rank, size = ctypes.c_int(), ctypes.c_int()
            self.call("MPI_Comm_rank", self.COMM_WORLD, ctypes.byref(rank))
            self.call("MPI_Comm_size", self.COMM_WORLD, ctypes.byref(size))
            send, recv = ctypes.c_int(mine), ctypes.c_int()
            self.call("MPI_Allreduce", ctypes.byref(send), ctypes.byref(recv), 1,
                      self.INT, self.SUM, self.COMM_WORLD)
            return rank.value, size.value, recv.value

    mpich = MPICH()


def other_sum(rank):
    """The same allreduce through MPI or torch, initialised now if not yet."""
    if args.mpich:
        if not mpich.initialized():
            mpich.init()
        return mpich.rank_size_sum(rank + 1)
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
if args.mpich == "first":
    mpich.init()
if args.torch == "first":
    dist.init_process_group("gloo")

with ncore.Communicator.from_env(ncore.NCCLConfig(timeout=60)) as comm:
    value = np.array([comm.rank + 1], dtype=np.int32)
    comm.allreduce(value, value, ncore.SUM)
    rank, nranks, total = comm.rank, comm.nranks, int(value[0])

if args.mpi or args.mpich or args.torch:
    theirs = other_sum(rank)
    if theirs != (rank, nranks, total):
        sys.exit(f"launched: {'torch' if args.torch else 'MPI'} says rank, size, sum "
                 f"{theirs}, ncore {(rank, nranks, total)}")
    if args.mpich:
        mpich.call("MPI_Finalize")
    elif args.mpi:
        MPI.Finalize()
    else:
        dist.destroy_process_group()
# One write: ranks that share the launcher's pipe never split a line.
sys.stdout.write(f"launched: rank {rank} of {nranks} sum {total}\n")
