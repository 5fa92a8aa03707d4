"""Communicator-owned resources (nccl.core CommResource and subclasses).

Each wraps an ncore handle (a generation-checked integer). The C library is
the one source of truth about liveness: a resource closed here, or released
with its communicator (destroy / abort), answers NCORE_ERR_CLOSED, which
raises NcclClosed -- a RuntimeError, as the spec says -- from any property;
`is_valid` asks the library; `close` is idempotent."""

from __future__ import annotations

from abc import ABC
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ._lib import raw
from ._types import NcclDataType, NcclGinType, WindowFlag

__all__ = [
    "CommResource",
    "RegisteredBufferHandle",
    "RegisteredWindowHandle",
    "CustomRedOp",
    "DevCommResource",
    "DevCommInfo",
]


class CommResource(ABC):
    """Base of resources tied to a communicator. Released by close() (idempotent)
    or automatically when the owning communicator is destroyed or aborted.
    A context manager: closes on exit."""

    # The C close and is_valid functions of the concrete kind.
    _close_fn: Callable[[int], None]
    _is_valid_fn: Callable[[int], int]

    def __init__(self, handle: int, comm: Any = None, keepalive: Any = None) -> None:
        self._handle = int(handle)
        # The communicator object, and the memory the resource refers to,
        # must outlive the resource from Python's point of view.
        self._comm = comm
        self._keepalive = keepalive

    @property
    def ncore_handle(self) -> int:
        """The ncore handle (uint64) of the resource, for the raw layer."""
        return self._handle

    def close(self) -> None:
        """Explicitly releases the resource. Idempotent: safe to call again,
        and after the communicator was destroyed."""
        type(self)._close_fn(self._handle)
        self._keepalive = None

    @property
    def is_valid(self) -> bool:
        """Whether the resource is still open (not closed, communicator alive)."""
        return bool(type(self)._is_valid_fn(self._handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "valid" if self.is_valid else "closed"
        return f"<{type(self).__name__} handle={self._handle:#x} {state}>"


class RegisteredBufferHandle(CommResource):
    """A buffer registered for zero-copy transfers (Communicator.register_buffer)."""

    _close_fn = staticmethod(raw.ncore_registered_buffer_close)
    _is_valid_fn = staticmethod(raw.ncore_registered_buffer_is_valid)

    @property
    def handle(self) -> int:
        """The backend's registration handle.

        Raises:
            RuntimeError (NcclClosed): the buffer has been deregistered."""
        return raw.ncore_registered_buffer_native_handle(self._handle)

    @property
    def size(self) -> int:
        """Size of the registered buffer in bytes."""
        return raw.ncore_registered_buffer_size(self._handle)

    @property
    def ptr(self) -> int:
        """Start of the registered range."""
        return raw.ncore_registered_buffer_pointer(self._handle)


def _none_if_null(address: int) -> Optional[int]:
    return address if address else None


class RegisteredWindowHandle(CommResource):
    """A window registered collectively for one-sided access
    (Communicator.register_window). Pass it as `peer_window` to put_signal."""

    _close_fn = staticmethod(raw.ncore_window_close)
    _is_valid_fn = staticmethod(raw.ncore_window_is_valid)

    @property
    def handle(self) -> int:
        """The backend's window handle (NCCL: the ncclWindow_t).

        Raises:
            RuntimeError (NcclClosed): the window has been deregistered."""
        return raw.ncore_window_native_handle(self._handle)

    @property
    def size(self) -> int:
        """Size of this rank's part of the window in bytes."""
        return raw.ncore_window_size(self._handle)

    def peer_size(self, peer: int) -> int:
        """Size of `peer`'s part of the window in bytes."""
        return raw.ncore_window_peer_size(self._handle, peer)

    @property
    def user_ptr(self) -> int:
        """The buffer this rank registered.

        Raises:
            RuntimeError (NcclClosed): the window has been deregistered."""
        return raw.ncore_window_user_pointer(self._handle)

    @property
    def flags(self) -> WindowFlag:
        """The registration flags."""
        return WindowFlag(raw.ncore_window_flags(self._handle))

    def get_lsa_device_pointer(self, lsa_rank: int, offset: int = 0) -> int:
        """Device pointer to byte `offset` of LSA-team member `lsa_rank`'s part
        (0 when that part is not load/store reachable: on the host backend,
        memory not from ncore_mem_alloc).

        Raises:
            RuntimeError (NcclClosed): the window has been closed.
            NcclInvalid: lsa_rank or offset out of range."""
        return raw.ncore_window_lsa_device_pointer(self._handle, lsa_rank, offset)

    def get_peer_device_pointer(self, peer: int, offset: int = 0) -> Optional[int]:
        """Device pointer to byte `offset` of world rank `peer`'s part, or None
        if the peer is not reachable via LSA.

        Raises:
            RuntimeError (NcclClosed): the window has been closed."""
        return _none_if_null(raw.ncore_window_peer_device_pointer(self._handle, peer, offset))

    def get_lsa_multimem_device_pointer(self, offset: int = 0) -> Optional[int]:
        """LSA multicast pointer to byte `offset`, or None if multimem is not
        supported (always on the host backend).

        Raises:
            RuntimeError (NcclClosed): the window has been closed."""
        return _none_if_null(raw.ncore_window_lsa_multimem_device_pointer(self._handle, offset))


class CustomRedOp(CommResource):
    """A PreMulSum operator, output = scalar * sum(inputs)
    (Communicator.create_pre_mul_sum). Pass it (or its `op`) as `op`."""

    _close_fn = staticmethod(raw.ncore_custom_redop_close)
    _is_valid_fn = staticmethod(raw.ncore_custom_redop_is_valid)

    @property
    def op(self) -> int:
        """Operator value for reduction operations.

        Raises:
            RuntimeError (NcclClosed): the operator has been destroyed."""
        return raw.ncore_custom_redop_value(self._handle)

    def __int__(self) -> int:
        """The operator value (``int(op)``, as nccl.core)."""
        return self.op

    @property
    def dtype(self) -> NcclDataType:
        """The data type the operator was made for."""
        return NcclDataType(raw.ncore_custom_redop_dtype(self._handle))


@dataclass(frozen=True)
class DevCommInfo:
    """What a device communicator provides (ncore_dev_comm_info_t)."""

    rank: int
    nranks: int
    lsa_rank: int
    lsa_size: int
    gin_type: NcclGinType
    railed_gin_type: NcclGinType
    gin_context_count: int
    gin_signal_count: int
    gin_counter_count: int
    lsa_multimem: bool


class DevCommResource(CommResource):
    """A device communicator (Communicator.create_dev_comm)."""

    _close_fn = staticmethod(raw.ncore_dev_comm_close)
    _is_valid_fn = staticmethod(raw.ncore_dev_comm_is_valid)

    @property
    def ptr(self) -> int:
        """Address of the underlying ncclDevComm_t (host backend: a host
        description of the team).

        Raises:
            RuntimeError (NcclClosed): the device communicator was destroyed."""
        return raw.ncore_dev_comm_pointer(self._handle)

    @property
    def dev_comm(self) -> "DevCommResource":
        """This resource (nccl.core's ``resource.dev_comm.ptr`` spelling)."""
        return self

    @property
    def info(self) -> DevCommInfo:
        """What the device communicator provides."""
        info = raw.ncore_dev_comm_info_t()
        info.struct_size = raw.NCORE_SIZEOF_DEV_COMM_INFO
        raw.ncore_dev_comm_info(self._handle, info)
        return DevCommInfo(
            info.rank, info.nranks, info.lsa_rank, info.lsa_size,
            NcclGinType(info.gin_type), NcclGinType(info.railed_gin_type),
            info.gin_context_count, info.gin_signal_count, info.gin_counter_count,
            bool(info.lsa_multimem),
        )
