"""Point-to-point and one-sided methods of Communicator (nccl.core page
"Point-to-Point and Signal Methods"): send, recv, signal, wait_signal,
put_signal, and WaitSignalDesc."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from ._errors import NcclInvalid
from ._lib import raw
from .buffer import ResolvedBuffer, resolve_stream
from .resources import RegisteredWindowHandle
from .typing import NcclBufferSpec, NcclStreamSpec

__all__ = ["WaitSignalDesc"]


@dataclass(frozen=True)
class WaitSignalDesc:
    """One wait-signal request: wait for `op_count` signals from `peer`.
    signal_index and context must currently be 0. Immutable and hashable,
    as nccl.core's."""

    peer: int
    op_count: int = 1
    signal_index: int = 0
    context: int = 0


class P2PMixin:
    """send / recv / signal / wait_signal / put_signal for Communicator."""

    if TYPE_CHECKING:  # provided by Communicator
        def _live(self) -> int: ...

        def _buffer(self, obj: Any, argument_name: str,
                    writes: bool = False) -> ResolvedBuffer: ...

        def _call_args(self, handle: int, obj: Any, argument_name: str,
                       writes: bool = False) -> tuple: ...

    def send(self, sendbuf: NcclBufferSpec, peer: int, *,
             stream: Optional[NcclStreamSpec] = None) -> None:
        """Sends a buffer to rank `peer` (ncclSend); count and dtype come from
        the buffer.

        Raises:
            NcclInvalid: bad buffer specification, buffer on the wrong device,
                peer out of range, communicator not initialized.
        """
        handle = self._live()
        ptr, count, dtype = self._call_args(handle, sendbuf, "sendbuf")
        raw.ncore_send(handle, ptr, count, dtype, peer, resolve_stream(stream))

    def recv(self, recvbuf: NcclBufferSpec, peer: int, *,
             stream: Optional[NcclStreamSpec] = None) -> None:
        """Receives into a buffer from rank `peer` (ncclRecv).

        Raises:
            NcclInvalid: as send; recvbuf is read-only.
        """
        handle = self._live()
        ptr, count, dtype = self._call_args(handle, recvbuf, "recvbuf", True)  # writes
        raw.ncore_recv(handle, ptr, count, dtype, peer, resolve_stream(stream))

    def signal(self, peer: int, signal_index: int = 0, context: int = 0,
               flags: int = 0, *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Sends one signal to `peer`, ordered on `stream` (ncclSignal).

        Raises:
            NcclInvalid: communicator not initialized, peer out of range,
                non-zero signal_index / context / flags.
        """
        raw.ncore_signal(self._live(), peer, signal_index, context, flags,
                         resolve_stream(stream))

    def wait_signal(self, descs: Union[WaitSignalDesc, Sequence[WaitSignalDesc]],
                    *, stream: Optional[NcclStreamSpec] = None) -> None:
        """Waits until the signals the descriptor(s) describe have arrived
        (ncclWaitSignal). On the host backend this blocks the caller.

        Raises:
            NcclInvalid: communicator not initialized, empty or bad descriptors.
            NcclRemoteError: the peer died or aborted before signalling.
        """
        if isinstance(descs, WaitSignalDesc):
            descs = [descs]
        items = []
        for desc in descs:
            if not isinstance(desc, WaitSignalDesc):
                raise NcclInvalid(
                    f"descs: expected WaitSignalDesc, got {type(desc).__name__}")
            items.append((desc.peer, desc.op_count, desc.signal_index, desc.context))
        raw.ncore_wait_signal(self._live(), items, resolve_stream(stream))

    def put_signal(self, local_buffer: NcclBufferSpec, peer: int,
                   peer_window: RegisteredWindowHandle, peer_window_offset: int = 0,
                   signal_index: int = 0, context: int = 0, flags: int = 0, *,
                   stream: Optional[NcclStreamSpec] = None) -> None:
        """Copies `local_buffer` into `peer`'s part of `peer_window` at element
        offset `peer_window_offset`, then signals `peer` (ncclPutSignal).

        Raises:
            NcclInvalid: communicator not initialized, bad buffer or wrong
                device, the put does not fit the peer's part of the window.
            RuntimeError (NcclClosed): the window has been closed.
        """
        if not isinstance(peer_window, RegisteredWindowHandle):
            raise NcclInvalid(
                f"peer_window: expected RegisteredWindowHandle, got "
                f"{type(peer_window).__name__}")
        buf = self._buffer(local_buffer, "local_buffer")
        raw.ncore_put_signal(self._live(), buf.ptr, buf.count, int(buf.dtype), peer,
                             peer_window.ncore_handle, peer_window_offset,
                             signal_index, context, flags, resolve_stream(stream))
