"""Communicator: creation, lifecycle, properties and the resources it owns
(nccl.core Communicator). Collectives and p2p/one-sided methods come from
mixins in _collectives_gen.py (generated from the table of operations)
and _p2p.py."""

from __future__ import annotations

import weakref
from typing import Any, Dict, Optional, Sequence, TypeVar, Union

import numpy as _np

from ._buffer_cache import cache_key
from ._collectives_gen import CollectivesMixin
from ._compat import MISSING, one_of
from ._comm_control import CommControlMixin
from ._errors import NcclInvalid, Result
from ._lib import raw
from ._p2p import P2PMixin, WaitSignalDesc
from ._types import (Backend, CommShrinkFlag, NcclDataType, NcclGinType,
                     ScalarResidence, WindowFlag)
from .buffer import (ResolvedBuffer, call_args, resolve_buffer, resolve_for_comm,
                     resolve_stream)
from .config import NCCLConfig, NCCLDevCommRequirements, config_to_c
from .cuda import get_cuda_device
from .cft import CftTeamsMixin
from .team import TeamsMixin
from .resources import (CommResource, CustomRedOp, DevCommResource,
                        RegisteredBufferHandle, RegisteredWindowHandle)
from .unique_id import UniqueId
from .typing import HasDeviceId, NcclBufferSpec, NcclScalarSpec, NcclStreamSpec

# nccl.core.communicator also holds the config classes and WaitSignalDesc.
__all__ = ["Communicator", "NCCLConfig", "NCCLDevCommRequirements", "WaitSignalDesc"]

_Resource = TypeVar("_Resource", bound=CommResource)


class Communicator(CollectivesMixin, P2PMixin, CommControlMixin, TeamsMixin,
                   CftTeamsMixin):
    """A group of ranks that communicate (nccl.core Communicator).

    Make one with :meth:`init` (or :meth:`from_env` under ``ncore.run``),
    :meth:`init_all`, :meth:`split` or :meth:`shrink`. A context manager:
    destroyed on exit. Thread safety as NCCL: calls on one communicator are
    serialised by the caller, except :meth:`abort`.
    """

    def __init__(self, ptr: Optional[int] = None, *, handle: int = MISSING) -> None:
        """Wraps a communicator: `ptr` is an ncore communicator handle (what
        :attr:`ptr` gives; nccl.core's ``ptr`` is an ``ncclComm_t``, which the
        C ABI never hands out); None (the default, as in nccl4py 0.4.1+) or 0
        makes a null communicator (what split returns to a rank that passed
        no color; one to :meth:`initialize` later, or to :meth:`grow` into as
        a new rank). ``handle=`` is ncore 1.1's name for `ptr`."""
        given = MISSING if ptr is None else ptr
        self._handle = int(one_of("Communicator", "ptr", given, "handle", handle, 0))
        # The resources made through this object, for close_all_resources
        # (the C library releases them all at destroy / abort anyway).
        self._resources: "weakref.WeakSet[CommResource]" = weakref.WeakSet()
        # call_args' table and the handle it was filled for (a null
        # communicator initialised later gets a handle of its own).
        self._call_table: Dict[tuple, tuple] = {}
        self._call_table_handle = 0

    # ---- creation ----

    @classmethod
    def init(cls, nranks: int, rank: int,
             unique_id: Union[UniqueId, bytes, Sequence[UniqueId]],
             config: Optional[NCCLConfig] = None) -> "Communicator":
        """Creates this rank's communicator (ncclCommInitRankConfig; with a
        list of ids ncclCommInitRankScalable). Collective: every rank calls
        it with the same nranks and unique_id(s). See :meth:`initialize`."""
        comm = cls()
        comm.initialize(nranks, rank, unique_id, config)
        return comm

    def initialize(self, nranks: int, rank: int,
                   unique_id: Union[UniqueId, bytes, Sequence[UniqueId]],
                   config: Optional[NCCLConfig] = None) -> None:
        """Makes this null communicator this rank's communicator of a new
        group (what :meth:`init` does on a new object). Collective.

        unique_id: one id (a UniqueId or its 128 bytes), or a list of ids,
            each made on a different rank, to spread the bootstrap
            (ncore_comm_init_rank_scalable); every rank passes the same.

        With a non-blocking config (``NCCLConfig(blocking=False)``) on NCCL
        the communicator may come back still initialising: poll
        :meth:`get_async_error` until it is not ``Result.InProgress`` (then
        ``Result.Success``, or the error creation hit) before any other
        call; until then other calls raise NcclInvalidUsage. split, shrink
        and grow alike.

        Raises:
            NcclInvalid: already initialized; unique_id of an invalid type;
                nranks < 1, rank out of range, an empty list of ids, ids of
                different backends, a config the library rejects.
            NcclTimeout: not every rank joined in time.
            NcclUnavailable: the configured backend is missing.
        """
        if self._handle:
            raise NcclInvalid("communicator: already initialized")
        if isinstance(unique_id, (list, tuple)):
            ids = [_id_bytes(uid, f"unique_id[{i}]") for i, uid in enumerate(unique_id)]
            self._handle = raw.ncore_comm_init_rank_scalable(nranks, rank, ids,
                                                             config_to_c(config))
        else:
            self._handle = raw.ncore_comm_init_rank(
                nranks, _id_bytes(unique_id, "unique_id"), rank, config_to_c(config))

    @classmethod
    def init_all(cls, devices: Union[int, Sequence[int], None] = None,
                 config: Optional[NCCLConfig] = None) -> list["Communicator"]:
        """Creates one communicator per device in this process
        (ncclCommInitAll); drive them from one thread with group().

        devices: None = every device of the backend (host backend: 1); an int n
        = n ranks (devices 0..n-1 on NCCL); a sequence = explicit devices (all
        -1 on the host backend). An empty list gives [].
        """
        if devices is None:
            backend = Backend.AUTO if config is None or config.backend is None else config.backend
            devices = raw.ncore_device_count(int(backend))
        if isinstance(devices, int):
            ndev, devlist = devices, None
        else:
            devlist = [int(d) for d in devices]
            ndev = len(devlist)
        if ndev == 0:
            return []
        handles = raw.ncore_comm_init_all(ndev, devlist, config_to_c(config))
        return [cls(h) for h in handles]

    @classmethod
    def from_env(cls, config: Optional[NCCLConfig] = None) -> "Communicator":
        """Joins the job this program was started in
        (ncore_comm_init_from_env): rank, size and local rank from ncore-run
        (or python -m ncore.run), Open MPI, MPICH (PMI), Slurm or torchrun,
        rank 0's unique id through that launcher (PMIx, PMI-1, torchrun's
        store); with no launcher, a job of one rank. Collective like init.

        Raises:
            NcclInvalid: a variable malformed (the message names it), or
                what init raises.
            NcclError: the launcher offers no way for the id to travel (the
                message says what was looked for).
        """
        return cls(raw.ncore_comm_init_from_env(config_to_c(config)))

    def split(self, color: Optional[int] = None, key: int = 0,
              config: Optional[NCCLConfig] = None) -> "Communicator":
        """Splits by color, ordering new ranks by key (ncclCommSplit).
        Collective. color None (or NCORE_SPLIT_NOCOLOR) leaves this rank out:
        it gets a null communicator (is_valid False). config None inherits
        this communicator's."""
        if color is None:
            color = raw.NCORE_SPLIT_NOCOLOR
        return Communicator(raw.ncore_comm_split(self._live(), color, key,
                                                 config_to_c(config)))

    def shrink(self, exclude_ranks: Optional[Sequence[int]] = None,
               config: Optional[NCCLConfig] = None,
               flag: Union[CommShrinkFlag, int] = CommShrinkFlag.DEFAULT) -> "Communicator":
        """A communicator of the ranks not in exclude_ranks (None: none
        excluded) (ncclCommShrink). Collective over the remaining ranks;
        excluded ranks do not call it. flag ABORT first stops the parent's
        outstanding operations."""
        excluded = [] if exclude_ranks is None else [int(r) for r in exclude_ranks]
        return Communicator(raw.ncore_comm_shrink(self._live(), excluded,
                                                  config_to_c(config), int(flag)))

    # ---- lifecycle ----

    def finalize(self) -> None:
        """Flushes outstanding work and synchronises with the other ranks so
        destroy leaves no peer waiting (ncclCommFinalize). Collective. A
        null or destroyed communicator has nothing to flush: a no-op, as in
        nccl.core (so is destroy)."""
        if self._handle:
            raw.ncore_comm_finalize(self._handle)

    def synchronize(self, stream: Optional[NcclStreamSpec] = None) -> None:
        """Waits until every operation enqueued on `stream` so far completed,
        failing instead of hanging when this communicator cannot complete
        them (ncore_comm_synchronize): NcclRemoteError for a dead or aborted
        peer, NcclTimeout past the configured timeout. On the host backend
        operations complete before they return, so only the asynchronous
        error is reported."""
        raw.ncore_comm_synchronize(self._live(), resolve_stream(stream))

    def destroy(self) -> None:
        """Releases the communicator and every resource it owns (their
        handles then raise RuntimeError). Local. Idempotent."""
        if self._handle:
            handle, self._handle = self._handle, 0
            raw.ncore_comm_destroy(handle)

    def abort(self) -> None:
        """Aborts: calls blocked on this communicator return, peers get
        NcclRemoteError, everything is released (ncclCommAbort). Idempotent;
        safe from another thread."""
        if self._handle:
            handle, self._handle = self._handle, 0
            raw.ncore_comm_abort(handle)

    def close_all_resources(self) -> None:
        """Closes every resource made through this communicator object
        (registered buffers, windows, operators, device communicators) and
        keeps the communicator. Idempotent; errors are ignored, as in
        nccl.core (destroy and abort release them in any case)."""
        for resource in list(self._resources):
            try:
                resource.close()
            except Exception:  # noqa: BLE001 - best effort, as nccl.core
                pass
        self._resources.clear()

    def _track(self, resource: _Resource) -> _Resource:
        self._resources.add(resource)
        return resource

    def __enter__(self) -> "Communicator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    # ---- properties ----

    def _live(self) -> int:
        """The handle, or NcclInvalid for a null/destroyed communicator (the
        nccl.core behaviour: "the communicator is not initialized")."""
        if not self._handle:
            raise NcclInvalid("communicator: not initialized (null or destroyed)")
        return self._handle

    @property
    def ptr(self) -> int:
        """The ncore handle (0 if null or destroyed)."""
        return self._handle

    handle = ptr

    @property
    def is_valid(self) -> bool:
        """Whether the communicator is live (not null, destroyed or aborted)."""
        return bool(self._handle) and bool(raw.ncore_comm_is_valid(self._handle))

    @property
    def rank(self) -> int:
        """This rank, in [0, nranks)."""
        return raw.ncore_comm_rank(self._live())

    @property
    def nranks(self) -> int:
        """Number of ranks."""
        return raw.ncore_comm_size(self._live())

    @property
    def device(self) -> HasDeviceId:
        """This rank's device: a cuda.core.Device where cuda.core is
        importable, else an :class:`ncore.cuda.Device` (``device_id``,
        ``set_current()``); the host backend's is Device(-1)."""
        return get_cuda_device(raw.ncore_comm_device(self._live()))

    @property
    def backend(self) -> Backend:
        """The backend running the communicator (HOST or NCCL)."""
        return Backend(raw.ncore_comm_backend(self._live()))

    @property
    def lsa_rank(self) -> int:
        """This rank's index in its load/store-accessible team."""
        return raw.ncore_comm_lsa_rank(self._live())

    @property
    def lsa_size(self) -> int:
        """Size of the load/store-accessible team."""
        return raw.ncore_comm_lsa_size(self._live())

    @property
    def gin_type(self) -> NcclGinType:
        """GIN transport available to device code (NONE on the host backend)."""
        return NcclGinType(raw.ncore_comm_gin_type(self._live()))

    @property
    def railed_gin_type(self) -> NcclGinType:
        """GIN transport of the rail team."""
        return NcclGinType(raw.ncore_comm_railed_gin_type(self._live()))

    def get_async_error(self) -> Result:
        """The asynchronous state (ncclCommGetAsyncError) as NCCL's result
        type: Result.Success, Result.InProgress, or the error a background
        operation hit."""
        return Result.from_status(raw.ncore_comm_async_error(self._live()))

    def get_last_error(self) -> str:
        """The message of the last failed ncore call on this thread ("" if
        it succeeded), e.g. after catching an NcclError (ncclGetLastError
        keeps one per communicator; ncore one per thread, and every call,
        a query too, replaces it)."""
        self._live()
        return raw.ncore_last_error_message()

    def __repr__(self) -> str:
        if not self.is_valid:
            return "<Communicator (null)>"
        return f"<Communicator rank={self.rank} nranks={self.nranks} {self.backend.name}>"

    # ---- buffers ----

    def _buffer(self, obj: Any, argument_name: str, writes: bool = False) -> ResolvedBuffer:
        """Resolves a buffer and checks it can be used with this communicator
        (host memory on the host backend, this device's memory on NCCL) and,
        where the call `writes` into it, that it is not read-only."""
        return resolve_for_comm(self._live(), obj, argument_name, writes)

    def _call_args(self, handle: int, obj: Any, argument_name: str,
                   writes: bool = False) -> tuple:
        """(pointer, count, dtype value) of a buffer for a call on `handle`
        (this communicator's live handle): _buffer through call_args, for
        the calls made most often. A buffer already in the table is
        answered here, without resolving it again: the table holds
        no read-only memory, so an entry serves a call that writes too."""
        if handle == self._call_table_handle:
            args = self._call_table.get(cache_key(obj))
            if args is not None:
                return args
        else:
            self._call_table = {}
            self._call_table_handle = handle
        return call_args(self._call_table, handle, obj, argument_name, writes)

    # ---- resources ----

    def register_buffer(self, buffer: NcclBufferSpec) -> RegisteredBufferHandle:
        """Registers a buffer for zero-copy transfers (ncclCommRegister). Local."""
        buf = self._buffer(buffer, "buffer")
        handle = raw.ncore_register_buffer(self._live(), buf.ptr, buf.nbytes)
        return self._track(RegisteredBufferHandle._adopt(handle, self, buffer))

    def register_window(self, buffer: NcclBufferSpec,
                        flags: Union[WindowFlag, int, None] = None) -> RegisteredWindowHandle:
        """Registers `buffer` as this rank's part of a new window
        (ncclCommWindowRegister). Collective; every rank registers, by default
        the same size. Memory from ncore_mem_alloc (e.g. interop.numpy.empty)
        gives real peer pointers on the host backend. Peers write into it,
        so read-only memory is refused."""
        buf = self._buffer(buffer, "buffer", writes=True)
        handle = raw.ncore_register_window(self._live(), buf.ptr, buf.nbytes,
                                           int(flags or WindowFlag.DEFAULT))
        return self._track(RegisteredWindowHandle._adopt(handle, self, buffer))

    def create_pre_mul_sum(self, scalar: NcclScalarSpec, datatype: Optional[NcclDataType] = None,
                           residence: Optional[ScalarResidence] = None) -> CustomRedOp:
        """Creates a PreMulSum operator, output = scalar * sum(inputs).

        scalar: a Python int/float (host memory, copied now), a one-element
            NumPy array (host, copied now), or a one-element buffer of this
            communicator's device (read when each collective runs; it must stay
            alive while the operator is open).
        datatype: the reduction's type; inferred from the scalar if None
            (Python floats give FLOAT64, ints INT64).
        residence: ScalarResidence; inferred from the scalar if None.

        Raises:
            NcclInvalid: scalar with more than one element, unknown dtype.
        """
        keepalive = None
        if isinstance(scalar, (int, float)) and not isinstance(scalar, bool):
            dtype = NcclDataType(datatype) if datatype is not None else (
                NcclDataType.FLOAT64 if isinstance(scalar, float) else NcclDataType.INT64)
            host = _np.array([scalar], dtype=dtype.numpy_dtype)
            ptr, residence = host.ctypes.data, ScalarResidence.HOST_IMMEDIATE
            keepalive = host
        else:
            is_numpy = isinstance(scalar, _np.ndarray)
            buf = resolve_buffer(scalar) if is_numpy else self._buffer(scalar, "scalar")
            if buf.count != 1:
                raise NcclInvalid(f"scalar: must hold exactly 1 element, holds {buf.count}")
            dtype = NcclDataType(datatype) if datatype is not None else buf.dtype
            if dtype != buf.dtype:
                raise NcclInvalid(
                    f"scalar: is {buf.dtype.name}, datatype says {dtype.name}")
            if residence is None:
                residence = (ScalarResidence.HOST_IMMEDIATE if is_numpy
                             else ScalarResidence.DEVICE)
            ptr, keepalive = buf.ptr, scalar
        handle = raw.ncore_create_pre_mul_sum(self._live(), ptr, int(dtype), int(residence))
        # A DEVICE-resident scalar is read at each collective: keep it alive.
        return self._track(CustomRedOp._adopt(
            handle, self, keepalive if residence == ScalarResidence.DEVICE else None))

    def create_dev_comm(self,
                        requirements: Optional[NCCLDevCommRequirements] = None) -> DevCommResource:
        """Creates a device communicator (ncclDevCommCreate). Collective.
        requirements None = the defaults.

        Raises:
            NcclInvalid: the communicator is not initialized, bad requirements.
            NcclNotSupported: GIN or multimem required but unavailable.
        """
        requirements_c = None if requirements is None else requirements.to_c()
        return self._track(DevCommResource._adopt(
            raw.ncore_create_dev_comm(self._live(), requirements_c), self))


def _id_bytes(unique_id: Any, argument: str) -> bytes:
    """A UniqueId or its 128 bytes, as the raw layer takes it."""
    if isinstance(unique_id, (bytes, bytearray, memoryview)):
        unique_id = UniqueId(unique_id)
    if not isinstance(unique_id, UniqueId):
        raise NcclInvalid(
            f"{argument}: expected UniqueId or bytes, got {type(unique_id).__name__}")
    return unique_id.as_bytes
