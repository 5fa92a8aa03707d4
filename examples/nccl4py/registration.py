"""Buffer and window registration (nccl.core: register_buffer,
register_window, mem_alloc, the handles' size and close). Registered
buffers let NCCL skip its staging copies; a window is registered by every
rank together.

    python -m ncore.run -n 2 examples/nccl4py/registration.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import check, host, nccl_empty, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))
    count = 1024
    send = nccl_empty(nccl, count)
    recv = nccl_empty(nccl, count)
    send[:] = rank + 1

    # Local registration: the handles live until closed or until the
    # communicator is destroyed.
    send_handle = comm.register_buffer(send)
    recv_handle = comm.register_buffer(recv)
    check(send_handle.size == count * 4, f"registered {send_handle.size} bytes")
    comm.allreduce(send, recv, nccl.SUM)
    check(host(recv)[:3] == [nranks * (nranks + 1) / 2] * 3, "allreduce on registered buffers")
    send_handle.close()
    send_handle.close()  # idempotent
    check(not send_handle.is_valid and recv_handle.is_valid, "closing one handle")

    # Collective registration of a window, every rank the same size.
    window = comm.register_window(recv)
    check(window is not None and window.size == count * 4, "window size")
    check(window.user_ptr != 0, "window user pointer")
    window.close()

    # Raw NCCL memory: mem_alloc gives a buffer object with size and handle.
    memory = nccl.mem_alloc(4096)
    check(memory.size >= 4096 and memory.handle != 0, "mem_alloc")
    nccl.mem_free(memory)

    comm.finalize()
    comm.destroy()  # closes recv_handle with the communicator
    check(not recv_handle.is_valid, "handles close with the communicator")
    print(f"rank {rank}: registration OK")


if __name__ == "__main__":
    main()
