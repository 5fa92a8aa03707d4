"""Collective methods of Communicator (nccl.core page "Collective
Communication Methods"). Counts are inferred from the buffers, as nccl.core
does; the checks that only Python can make (the two buffers of one call agree
in dtype and count) live here, everything else is checked by the C core.
What each buffer holds, and where it is used, is the collective's row of the
table of operations (core/op_table.h, copied into _op_table.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from . import _op_table
from ._errors import NcclInvalid
from ._lib import raw
from ._types import NcclDataType, NcclRedOp
from .buffer import ResolvedBuffer, resolve_stream
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


class CollectivesMixin:
    """allreduce, broadcast, reduce, allgather, reduce_scatter, alltoall,
    gather and scatter for Communicator. Counts follow nccl.core: taken
    from sendbuf (from recvbuf for broadcast and scatter), receive buffers
    may be larger than needed, and a buffer a rank does not use (recvbuf
    of reduce / gather, sendbuf of broadcast / scatter off the root) is
    neither resolved nor checked there. Every method also raises
    NcclInvalid naming recvbuf (sendbuf for allreduce in place) where the
    call would write into read-only memory (buffer.writable)."""

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

    def allreduce(self, sendbuf: NcclBufferSpec, recvbuf: NcclBufferSpec, op: NcclRedOpSpec,
                  *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Reduces over all ranks; every rank's recvbuf gets the result.
        Same as reduce(sendbuf, recvbuf, op, root=None). In place when both
        buffers are the same memory.

        Raises:
            NcclInvalid: mismatched dtypes, recvbuf smaller than sendbuf,
                wrong device, bad buffers.
        """
        # _collective's rule for this row (_op_table.ALLREDUCE: two count
        # buffers, in place when they are one), written out for the hot path
        # (docs/architecture.md, "The call path on NCCL").
        handle = self._live()
        in_place = recvbuf is sendbuf  # the common case: one resolution
        # `writes` positionally: a keyword costs the hot path time of its own.
        send_ptr, count, dtype = self._call_args(handle, sendbuf, "sendbuf", in_place)
        op_value = _op_value(op)
        stream_handle = resolve_stream(stream)
        if in_place:
            recv_ptr = send_ptr
        else:
            recv_ptr, recv_count, recv_dtype = self._call_args(handle, recvbuf, "recvbuf", True)
            if recv_dtype != dtype:
                _dtype_mismatch(dtype, recv_dtype)
            _at_least("recvbuf", recv_count, count)
        raw.ncore_allreduce(handle, send_ptr, recv_ptr, count, dtype, op_value, stream_handle)

    def reduce(self, sendbuf: NcclBufferSpec, recvbuf: NcclBufferSpec, op: NcclRedOpSpec,
               root: Optional[int] = None,
               *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Reduces sendbuf's elements over all ranks into root's recvbuf
        (root=None: every rank's, i.e. allreduce). recvbuf is used on root
        only (may be None elsewhere).

        Raises:
            NcclInvalid: mismatched dtypes, recvbuf smaller than sendbuf,
                wrong device, bad buffers, root out of range.
        """
        if root is None:
            self.allreduce(sendbuf, recvbuf, op, stream=stream)
            return
        send, recv, count, dtype = self._collective(_op_table.REDUCE, sendbuf, recvbuf, root)
        raw.ncore_reduce(self._live(), send, recv, count, dtype, _op_value(op), root,
                         resolve_stream(stream))

    def broadcast(self, sendbuf: NcclBufferSpec, recvbuf: NcclBufferSpec, root: int,
                  *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Copies root's sendbuf into every rank's recvbuf; the count comes
        from recvbuf. sendbuf is only used on root (may be None elsewhere).

        Raises:
            NcclInvalid: on root, mismatched dtypes or counts; wrong device.
        """
        send, recv, count, dtype = self._collective(_op_table.BROADCAST, sendbuf, recvbuf, root)
        raw.ncore_broadcast(self._live(), send, recv, count, dtype, root, resolve_stream(stream))

    def allgather(self, sendbuf: NcclBufferSpec, recvbuf: NcclBufferSpec,
                  *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Every rank's sendbuf lands in block r of every recvbuf, which
        holds at least nranks times sendbuf's count. Same as
        gather(sendbuf, recvbuf, root=None).

        Raises:
            NcclInvalid: mismatched dtypes, recvbuf too small.
        """
        send, recv, count, dtype = self._collective(_op_table.ALLGATHER, sendbuf, recvbuf, None)
        raw.ncore_allgather(self._live(), send, recv, count, dtype, resolve_stream(stream))

    def reduce_scatter(self, sendbuf: NcclBufferSpec, recvbuf: NcclBufferSpec, op: NcclRedOpSpec,
                       *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Reduces sendbuf over all ranks; block r (sendbuf's count //
        nranks elements) of the result lands in rank r's recvbuf.

        Raises:
            NcclInvalid: mismatched dtypes, sendbuf smaller than nranks
                elements, recvbuf smaller than a block.
        """
        send, recv, count, dtype = self._collective(_op_table.REDUCE_SCATTER, sendbuf, recvbuf,
                                                    None)
        raw.ncore_reduce_scatter(self._live(), send, recv, count, dtype, _op_value(op),
                                 resolve_stream(stream))

    def alltoall(self, sendbuf: NcclBufferSpec, recvbuf: NcclBufferSpec,
                 *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Block j of sendbuf (sendbuf's count // nranks elements) goes to
        rank j, landing in block i (the sender) of its recvbuf.

        Raises:
            NcclInvalid: mismatched dtypes, sendbuf smaller than nranks
                elements, recvbuf smaller than sendbuf.
        """
        send, recv, count, dtype = self._collective(_op_table.ALLTOALL, sendbuf, recvbuf, None)
        raw.ncore_alltoall(self._live(), send, recv, count, dtype, resolve_stream(stream))

    def gather(self, sendbuf: NcclBufferSpec, recvbuf: NcclBufferSpec, root: Optional[int] = None, *,
               stream: Optional[NcclStreamSpec] = None) -> None:
        """Every rank's sendbuf lands in block r of root's recvbuf, which
        holds at least nranks blocks (root=None: every rank's, i.e.
        allgather). recvbuf is used on root only (may be None elsewhere).

        Raises:
            NcclInvalid: where recvbuf is used, mismatched dtypes or recvbuf
                too small.
        """
        if root is None:
            self.allgather(sendbuf, recvbuf, stream=stream)
            return
        send, recv, count, dtype = self._collective(_op_table.GATHER, sendbuf, recvbuf, root)
        raw.ncore_gather(self._live(), send, recv, count, dtype, root, resolve_stream(stream))

    def scatter(self, sendbuf: NcclBufferSpec, recvbuf: NcclBufferSpec, root: int,
                *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Block r of root's sendbuf (sendbuf's count // nranks elements)
        lands in rank r's recvbuf, which holds exactly one block. sendbuf is
        used on root only (may be None elsewhere).

        Raises:
            NcclInvalid: on root, mismatched dtypes, sendbuf smaller than
                nranks elements, recvbuf not one block.
        """
        send, recv, count, dtype = self._collective(_op_table.SCATTER, sendbuf, recvbuf, root)
        raw.ncore_scatter(self._live(), send, recv, count, dtype, root, resolve_stream(stream))
