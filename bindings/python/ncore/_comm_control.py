"""Communicator control (ncore/comm_control.h; nccl.core Communicator.revoke,
grow, get_unique_id, suspend, resume, get_mem_stat and the properties read
from ncclCommQueryProperties). A mixin of Communicator. On NCCL each call
needs the NCCL release that introduced it; an older one raises
NcclNotSupported naming the version."""

from __future__ import annotations

from typing import Any, Optional, Union

from ._errors import NcclInvalid
from ._lib import raw
from ._types import CommSuspendFlag, NcclCommMemStat, NcclGinType
from .config import NCCLConfig, config_to_c
from .unique_id import UniqueId

__all__ = ["CommControlMixin"]


class CommControlMixin:
    """Revoke, grow, suspend / resume, memory statistics, properties."""

    _handle: int

    def _live(self) -> int:  # provided by Communicator
        raise NotImplementedError

    def _properties(self) -> Any:
        props = raw.ncore_comm_properties_t()
        props.struct_size = raw.NCORE_SIZEOF_COMM_PROPERTIES
        raw.ncore_comm_properties(self._live(), props)
        return props

    @property
    def cuda_dev(self) -> int:
        """CUDA device ordinal of this rank (-1 on the host backend)."""
        return int(self._properties().cuda_device)

    @property
    def nvml_dev(self) -> int:
        """NVML index of this rank's GPU (-1 on the host backend)."""
        return int(self._properties().nvml_device)

    @property
    def device_api_support(self) -> bool:
        """Whether device communicators work on this communicator."""
        return bool(self._properties().device_api_support)

    @property
    def multimem_support(self) -> bool:
        """Whether the LSA team has NVLink multicast (multimem) memory."""
        return bool(self._properties().multimem_support)

    @property
    def n_lsa_teams(self) -> int:
        """Number of LSA teams the communicator spans."""
        return int(self._properties().n_lsa_teams)

    @property
    def host_rma_support(self) -> bool:
        """Whether one-sided calls reach peers outside the LSA team."""
        return bool(self._properties().host_rma_support)

    def revoke(self, flags: int = 0) -> None:
        """Revokes the communicator (ncclCommRevoke): later communicating
        calls raise NcclInvalidUsage; queries, split, shrink, synchronize,
        abort and destroy remain; finalize is refused."""
        raw.ncore_comm_revoke(self._live(), int(flags))

    def get_unique_id(self) -> UniqueId:
        """The id new ranks join with in :meth:`grow`
        (ncclCommGetUniqueId); one at a time, consumed by the grow."""
        return UniqueId(raw.ncore_comm_get_unique_id(self._live()))

    def grow(self, nranks: int, unique_id: Optional[UniqueId] = None,
             rank: Optional[int] = None,
             config: Optional[NCCLConfig] = None) -> Any:
        """A communicator of this one's ranks plus new ones (ncclCommGrow).
        Existing root: ``comm.grow(nranks, uid)``; existing others:
        ``comm.grow(nranks)``; new ranks:
        ``Communicator().grow(nranks, uid, rank=r)``."""
        if rank is not None and self._handle:
            raise NcclInvalid("rank: new ranks grow from a null communicator "
                              "(Communicator())")
        if rank is None and not self._handle:
            raise NcclInvalid("rank: a null communicator is a new rank and needs "
                              "its rank")
        handle = self._live() if rank is None else 0
        if unique_id is None:
            uid = None
        elif isinstance(unique_id, UniqueId):
            uid = unique_id.as_bytes
        else:
            uid = UniqueId(unique_id).as_bytes
        new = raw.ncore_comm_grow(handle, int(nranks), uid,
                                  -1 if rank is None else int(rank),
                                  config_to_c(config))
        return type(self)(new)

    def suspend(self, flags: Union[CommSuspendFlag, int] = CommSuspendFlag.MEM) -> None:
        """Suspends the communicator (ncclCommSuspend): communicating calls
        raise NcclInvalidUsage until :meth:`resume`."""
        raw.ncore_comm_suspend(self._live(), int(flags))

    def resume(self) -> None:
        """Resumes a suspended communicator (ncclCommResume)."""
        raw.ncore_comm_resume(self._live())

    def get_mem_stat(self, stat: Union[NcclCommMemStat, int]) -> int:
        """One memory statistic (ncclCommMemStats): bytes, or 0/1 for
        GPU_MEM_SUSPENDED."""
        return int(raw.ncore_comm_mem_stat(self._live(), int(stat)))

    @property
    def gin_types(self) -> tuple[NcclGinType, NcclGinType]:
        """(gin_type, railed_gin_type) from the communicator's properties."""
        props = self._properties()
        return NcclGinType(props.gin_type), NcclGinType(props.railed_gin_type)
