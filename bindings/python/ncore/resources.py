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

from ._compat import MISSING
from ._errors import NcclInvalid
from .devcomm_requirements import MultimemHandle, handle_of
from ._lib import raw
from ._types import NcclDataType, NcclGinType, ScalarResidence, WindowFlag
from .cft import CftWindowMixin
from .team import NCCLTeam, as_team

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
    A context manager: closes on exit.

    Each kind is made by its Communicator method (``register_buffer``, ...)
    or, as in nccl.core, by its constructor from the communicator and raw
    addresses: `comm` is the Communicator (nccl.core 0.6.0), or its ``ptr``
    (0.3.1's `comm_ptr`, also accepted by that keyword). ``Kind(handle)`` /
    ``Kind(handle=h)`` / ``Kind.from_handle(h)`` wrap an existing ncore
    handle of that kind (ncore 1.1's constructor; the raw layer's
    handles)."""

    # The C close and is_valid functions of the concrete kind.
    _close_fn: Callable[[int], None]
    _is_valid_fn: Callable[[int], int]

    def __init__(self, comm: Any = MISSING, *, comm_ptr: int = MISSING,
                 handle: int = MISSING) -> None:
        # nccl.core's base takes the communicator and is abstract; a kind of
        # ncore's has a C handle, so the base only wraps one (ncore 1.1).
        self._init_kind(type(self).__name__, handle, comm, comm_ptr, {}, None)

    def _init_kind(self, kind: str, handle: Any, comm: Any, comm_ptr: Any, arguments: dict,
                   create: Optional[Callable[[int], int]]) -> None:
        """One constructor for every kind: ``handle=``, or a lone integer
        first argument (nccl.core needs more, so this is ncore 1.1's
        handle), wraps; otherwise `create(ptr)` makes the resource on the
        communicator `comm` (a Communicator, or its ``ptr``; 0.3.1 named it
        `comm_ptr`) from nccl.core's `arguments` (name: value, MISSING where
        not given)."""
        given = [name for name, value in arguments.items() if value is not MISSING]
        if comm is not MISSING and comm_ptr is not MISSING:
            raise TypeError(f"{kind}() got comm and comm_ptr (0.3.1's name of the same "
                            f"argument); give one")
        owner = comm_ptr if comm is MISSING else comm
        if handle is not MISSING:
            if owner is not MISSING or given:
                raise TypeError(f"{kind}() got handle= and nccl.core's arguments; give one")
            self._adopt_handle(int(handle), None, None)
            return
        if owner is MISSING:
            raise TypeError(f"{kind}() missing required argument: 'comm' (or handle=)")
        communicator = owner if hasattr(owner, "ptr") else None
        if communicator is None and (not given or create is None):
            self._adopt_handle(int(owner), None, None)
            return
        if create is None:
            raise TypeError(f"{kind}() is abstract: make a registered buffer, window, "
                            f"operator or device communicator")
        try:
            ptr = int(owner if communicator is None else communicator.ptr)
        except (TypeError, ValueError):
            raise TypeError(f"{kind}: comm: {type(owner).__name__}, not a Communicator or "
                            f"its ptr") from None
        if not ptr:
            raise NcclInvalid(f"{kind}: comm: a null communicator (ptr 0: not initialized "
                              f"or destroyed)")
        self._adopt_handle(create(ptr), communicator, None)

    def _adopt_handle(self, handle: int, comm: Any, keepalive: Any) -> None:
        self._handle = handle
        # The communicator object, and the memory the resource refers to,
        # must outlive the resource from Python's point of view.
        self._comm = comm
        self._keepalive = keepalive

    @classmethod
    def _adopt(cls, handle: int, comm: Any = None, keepalive: Any = None) -> Any:
        """The resource for a handle a Communicator method just made."""
        resource = cls.__new__(cls)
        resource._adopt_handle(int(handle), comm, keepalive)
        return resource

    @classmethod
    def from_handle(cls, handle: int) -> Any:
        """Wraps an existing ncore handle of this kind (from the raw layer);
        closing the wrapper closes the resource."""
        return cls._adopt(handle)

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
    """A buffer registered for zero-copy transfers (Communicator.register_buffer).

    ``RegisteredBufferHandle(comm, buffer_ptr, size)`` registers `size`
    bytes at address `buffer_ptr` with the communicator `comm` (nccl.core's
    constructor; the memory must outlive the registration)."""

    _close_fn = staticmethod(raw.ncore_registered_buffer_close)
    _is_valid_fn = staticmethod(raw.ncore_registered_buffer_is_valid)

    def __init__(self, comm: Any = MISSING, buffer_ptr: int = MISSING,
                 size: int = MISSING, *, comm_ptr: int = MISSING,
                 handle: int = MISSING) -> None:
        self._init_kind("RegisteredBufferHandle", handle, comm, comm_ptr,
                        {"buffer_ptr": buffer_ptr, "size": size},
                        lambda comm: raw.ncore_register_buffer(
                            comm, _required("RegisteredBufferHandle", "buffer_ptr", buffer_ptr),
                            _required("RegisteredBufferHandle", "size", size)))

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


def _required(kind: str, name: str, value: Any) -> Any:
    """`value`, or the TypeError Python gives for a missing argument."""
    if value is MISSING:
        raise TypeError(f"{kind}() missing required argument: {name!r}")
    return value


def _requirements(requirements: Any) -> Any:
    """The C requirements struct for DevCommResource's `reqs_lowpp`."""
    from .config import NCCLDevCommRequirements

    if requirements is None:
        return None
    if isinstance(requirements, NCCLDevCommRequirements):
        return requirements.to_c()
    raise NcclInvalid(
        f"reqs_lowpp: got {type(requirements).__name__}; ncore takes an "
        "NCCLDevCommRequirements or None, not the address of an ncclDevCommRequirements_t "
        "(its requirements are ncore's own struct)")


def _none_if_null(address: int) -> Optional[int]:
    return address if address else None


class RegisteredWindowHandle(CommResource, CftWindowMixin):
    """A window registered collectively for one-sided access
    (Communicator.register_window). Pass it as `peer_window` to put_signal.

    ``RegisteredWindowHandle(comm, buffer_ptr, size, flags=None)``
    registers this rank's part, `size` bytes at address `buffer_ptr`, with
    the communicator `comm` (nccl.core's constructor; collective)."""

    _close_fn = staticmethod(raw.ncore_window_close)
    _is_valid_fn = staticmethod(raw.ncore_window_is_valid)

    def __init__(self, comm: Any = MISSING, buffer_ptr: int = MISSING,
                 size: int = MISSING, flags: Optional[WindowFlag] = None, *,
                 comm_ptr: int = MISSING, handle: int = MISSING) -> None:
        self._init_kind("RegisteredWindowHandle", handle, comm, comm_ptr,
                        {"buffer_ptr": buffer_ptr, "size": size,
                         "flags": MISSING if flags is None else flags},
                        lambda comm: raw.ncore_register_window(
                            comm, _required("RegisteredWindowHandle", "buffer_ptr", buffer_ptr),
                            _required("RegisteredWindowHandle", "size", size),
                            int(flags or WindowFlag.DEFAULT)))

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

    def get_multimem_device_pointer(self, multimem: MultimemHandle,
                                    offset: int = 0) -> Optional[int]:
        """Multicast pointer to byte `offset` through a team's `multimem`
        handle (DevCommResource.multimem_handle), or None when there is
        none (the handle has no multicast base; always on the host backend).

        Raises:
            RuntimeError (NcclClosed): the window has been closed.
            NcclInvalid: multimem is not a MultimemHandle, offset out of range.
            NcclNotSupported: a handle with a base on NCCL before 2.29.2."""
        if not isinstance(multimem, MultimemHandle):
            raise NcclInvalid("multimem: expected a MultimemHandle, got "
                              f"{type(multimem).__name__}")
        return _none_if_null(raw.ncore_window_multimem_device_pointer(
            self._handle, multimem.to_c(), offset))


class CustomRedOp(CommResource):
    """A PreMulSum operator, output = scalar * sum(inputs)
    (Communicator.create_pre_mul_sum). Pass it (or its `op`) as `op`.

    ``CustomRedOp(comm, scalar_ptr, datatype, residence)`` makes one
    from the scalar at address `scalar_ptr` (read now for
    ``ScalarResidence.HOST_IMMEDIATE``, at each collective for ``DEVICE``:
    keep it alive) on the communicator `comm` (nccl.core's constructor)."""

    _close_fn = staticmethod(raw.ncore_custom_redop_close)
    _is_valid_fn = staticmethod(raw.ncore_custom_redop_is_valid)

    def __init__(self, comm: Any = MISSING, scalar_ptr: int = MISSING,
                 datatype: NcclDataType = MISSING, residence: ScalarResidence = MISSING, *,
                 comm_ptr: int = MISSING, handle: int = MISSING) -> None:
        self._init_kind("CustomRedOp", handle, comm, comm_ptr,
                        {"scalar_ptr": scalar_ptr, "datatype": datatype, "residence": residence},
                        lambda comm: raw.ncore_create_pre_mul_sum(
                            comm, _required("CustomRedOp", "scalar_ptr", scalar_ptr),
                            int(_required("CustomRedOp", "datatype", datatype)),
                            int(_required("CustomRedOp", "residence", residence))))

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
    resource_count: int = 0


class DevCommResource(CommResource):
    """A device communicator (Communicator.create_dev_comm).

    ``DevCommResource(comm, reqs_lowpp)`` makes one on the communicator
    `comm` (nccl.core's constructor, collective); `reqs_lowpp` (0.3.1's
    `requirements_ptr`, also accepted by that keyword) is an
    :class:`NCCLDevCommRequirements` or None (the defaults), not NCCL's own
    ``ncclDevCommRequirements_t``: ncore's requirements are its own
    versioned struct, filled from that object. 0.6.0's
    `team_multimem_lowpp` / `resource_handle_lowpps` (storage NCCL writes
    handles into) must stay None: ncore keeps that storage itself and
    answers :attr:`resource_handles` and :meth:`multimem_handle` from it."""

    _close_fn = staticmethod(raw.ncore_dev_comm_close)
    _is_valid_fn = staticmethod(raw.ncore_dev_comm_is_valid)

    def __init__(self, comm: Any = MISSING, reqs_lowpp: Any = MISSING,
                 team_multimem_lowpp: Any = None, resource_handle_lowpps: Any = None, *,
                 requirements_ptr: Any = MISSING, comm_ptr: int = MISSING,
                 handle: int = MISSING) -> None:
        if reqs_lowpp is not MISSING and requirements_ptr is not MISSING:
            raise TypeError("DevCommResource() got reqs_lowpp and requirements_ptr (0.3.1's "
                            "name of the same argument); give one")
        for name, storage in (("team_multimem_lowpp", team_multimem_lowpp),
                              ("resource_handle_lowpps", resource_handle_lowpps)):
            if storage:
                raise NcclInvalid(
                    f"DevCommResource: {name}: ncore keeps the storage NCCL writes handles "
                    f"into itself; leave it None and ask for teams / resources in "
                    f"NCCLDevCommRequirements (resource_handles, multimem_handle() answer)")
        requirements = requirements_ptr if reqs_lowpp is MISSING else reqs_lowpp
        self._init_kind("DevCommResource", handle, comm, comm_ptr,
                        {"reqs_lowpp": requirements},
                        lambda comm: raw.ncore_create_dev_comm(
                            comm, _requirements(requirements)))

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
    def resource_handles(self) -> tuple:
        """The handles NCCL returned for the requirements' resources, in
        their order: an LsaBarrierHandle, GinBarrierHandle or LLA2AHandle
        each.

        Raises:
            RuntimeError (NcclClosed): the device communicator was destroyed."""
        handles = []
        for index in range(self.info.resource_count):
            c = raw.ncore_dev_resource_handle_t()
            c.struct_size = raw.NCORE_SIZEOF_DEV_RESOURCE_HANDLE
            raw.ncore_dev_comm_resource_handle(self._handle, index, c)
            handles.append(handle_of(c))
        return tuple(handles)

    def multimem_handle(self, team: NCCLTeam) -> MultimemHandle:
        """The multimem handle NCCL returned for `team`, requested with
        TeamRequirement(team, multimem=True).

        Raises:
            RuntimeError (NcclClosed): the device communicator was destroyed.
            KeyError: team was not requested with multimem=True (nccl4py's
                error; the message is the library's)."""
        c = raw.ncore_multimem_handle_t()
        c.struct_size = raw.NCORE_SIZEOF_MULTIMEM_HANDLE
        team_c = as_team(team)
        try:
            raw.ncore_dev_comm_multimem_handle(self._handle, team_c, c)
        except NcclInvalid as error:
            raise KeyError(str(error)) from None
        return MultimemHandle(c.mc_base_pointer)

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
            bool(info.lsa_multimem), info.resource_count,
        )
