"""The checks the collective methods of Communicator share (the methods,
one per row of the table of operations, are _collectives_gen.py's, written
by tools/gen-op-table.py). Counts are inferred from the buffers, as
nccl.core does; the checks that only Python can make (the two buffers of one
call agree in dtype and count) live here, everything else is checked by the
C core. What each buffer holds, and where it is used, is the collective's
row of the table of operations (core/op_table.h, copied into
_op_table.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from . import _op_table
from ._errors import NcclInvalid
from ._types import NcclDataType, NcclRedOp
from .buffer import ResolvedBuffer
from .resources import CustomRedOp
from .typing import NcclBufferSpec, NcclStreamSpec

# What an op argument may be: a built-in operator, its value, or a custom one.
NcclRedOpSpec = Union[NcclRedOp, int, CustomRedOp]


def _op_value(op: NcclRedOpSpec) -> int:
    """NcclRedOp / int / CustomRedOp -> the ncore_redop_t value."""
    if type(op) is NcclRedOp:  # the common case, without isinstance or int()
        return op._value_
    if isinstance(op, CustomRedOp):
        return op.op
    if isinstance(op, bool) or not isinstance(op, int):
        raise NcclInvalid(f"op: expected NcclRedOp or CustomRedOp, got {type(op).__name__}")
    return int(op)


def _dtype_mismatch(send_dtype: int, recv_dtype: int) -> None:
    raise NcclInvalid(
        f"sendbuf and recvbuf have different dtypes ({NcclDataType(send_dtype).name} and "
        f"{NcclDataType(recv_dtype).name})")


def _same_dtype(send: ResolvedBuffer, recv: ResolvedBuffer) -> None:
    if send.dtype != recv.dtype:
        _dtype_mismatch(send.dtype, recv.dtype)


def _expect_count(what: str, actual: int, expected: int) -> None:
    if actual != expected:
        raise NcclInvalid(f"{what}: holds {actual} elements, expected {expected}")


def _at_least(what: str, actual: int, needed: int) -> None:
    """A receive buffer larger than needed is fine (nccl.core): the call
    uses its first `needed` elements."""
    if actual < needed:
        raise NcclInvalid(f"{what}: holds {actual} elements, needs at least {needed}")


def _blocks(send: ResolvedBuffer, nranks: int) -> int:
    """Elements per rank of a sendbuf cut into nranks blocks, rounded down
    (nccl.core): a tail that does not fill a block is not sent."""
    if send.count < nranks:
        raise NcclInvalid(
            f"sendbuf: holds {send.count} elements, needs at least {nranks} (one per rank)")
    return send.count // nranks


class CollectiveChecks:
    """The base of the collective methods (CollectivesMixin,
    _collectives_gen.py). Counts follow nccl.core: taken from sendbuf (from
    recvbuf where sendbuf is root's only), receive buffers may be larger
    than needed, and a buffer a rank does not use (a root-only one off the
    root) is neither resolved nor checked there."""

    if TYPE_CHECKING:  # provided by Communicator
        rank: int
        nranks: int

        def _live(self) -> int: ...

        def _buffer(self, obj: NcclBufferSpec, argument_name: str,
                    writes: bool = False) -> ResolvedBuffer: ...

        def _call_args(self, handle: int, obj: NcclBufferSpec, argument_name: str,
                       writes: bool = False) -> tuple: ...

    def _collective(self, op: _op_table.Collective, sendbuf: NcclBufferSpec,
                    recvbuf: NcclBufferSpec,
                    root: Optional[int]) -> tuple:
        """(sendbuf's pointer, recvbuf's pointer, count, dtype value) of
        collective `op` (its row of the table of operations) on this rank,
        as nccl.core infers them. The count comes from sendbuf (a block of
        it, rounded down, where it holds nranks blocks), and recvbuf holds at
        least what the call writes: as much as sendbuf where the two have
        the same shape, else count or nranks * count. Where sendbuf is
        root's only, the count comes from recvbuf, and root's sendbuf must
        match it exactly. A buffer a rank does not use is neither resolved
        nor checked there, and passed as NULL; an unused sendbuf of a call
        that runs in place with sendbuf == recvbuf is passed as recvbuf
        instead, as ncclBcast does."""
        if not op.send.root_only:
            send = self._buffer(sendbuf, "sendbuf")
            recv = None
            if not op.recv.root_only or root == self.rank:
                recv = self._buffer(recvbuf, "recvbuf", writes=True)
                _same_dtype(send, recv)
            count = _blocks(send, self.nranks) if op.send.per_rank else send.count
            if recv is not None:
                if op.send.per_rank == op.recv.per_rank:
                    needed = send.count
                else:
                    needed = count * self.nranks if op.recv.per_rank else count
                _at_least("recvbuf", recv.count, needed)
            dtype = send.dtype
        else:
            recv = self._buffer(recvbuf, "recvbuf", writes=True)
            send = None
            if root == self.rank:
                send = self._buffer(sendbuf, "sendbuf")
                _same_dtype(send, recv)
                if op.send.per_rank:
                    _expect_count("recvbuf", recv.count, _blocks(send, self.nranks))
                else:
                    _expect_count("sendbuf", send.count, recv.count)
            count = recv.count
            dtype = recv.dtype
        if send is not None:
            send_ptr = send.ptr
        else:
            send_ptr = recv.ptr if recv is not None and op.in_place == "same" else 0
        return send_ptr, recv.ptr if recv is not None else 0, count, int(dtype)
