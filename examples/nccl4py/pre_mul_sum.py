"""Custom reduction: PreMulSum (nccl.core: create_pre_mul_sum). The operator
multiplies each input by a scalar before summing: 1 / nranks gives an
average, a weight per rank a weighted sum.

    python -m ncore.run -n 4 examples/nccl4py/pre_mul_sum.py
"""

import numpy as np

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import check, full, host, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))

    # A host scalar, made from a Python float with an explicit data type.
    average = comm.create_pre_mul_sum(1.0 / nranks, datatype=nccl.FLOAT32)
    x = full(4, float(rank + 1))
    comm.allreduce(x, x, average)
    check(host(x) == [(nranks + 1) / 2] * 4, f"average {host(x)}")

    # A one-element NumPy array: its dtype is the operator's.
    weight = comm.create_pre_mul_sum(np.array([rank + 1], dtype=np.float64))
    y = full(2, 1.0, "float64")
    comm.allreduce(y, y, weight)
    check(host(y) == [float(sum(range(1, nranks + 1)))] * 2, f"weighted sum {host(y)}")

    check(int(average) == average.op, "int() of the operator")
    average.close()
    weight.close()
    comm.finalize()
    comm.destroy()
    print(f"rank {rank}: PreMulSum OK")


if __name__ == "__main__":
    main()
