"""Communicator control (ncore/comm_control.h; nccl.core Communicator.revoke,
grow, get_unique_id, suspend, resume, get_mem_stat and the properties read
from ncclCommQueryProperties). A mixin of Communicator. On NCCL each call
needs the NCCL release that introduced it; an older one raises
NcclNotSupported naming the version."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, FrozenSet, Optional, Union

from ._errors import NcclInvalid
from ._lib import raw
from ._types import CommSuspendFlag, NcclCommMemStat, NcclGinConnectionType, NcclGinType
from .config import NCCLConfig, config_to_c
from .unique_id import UniqueId

__all__ = ["CommControlMixin", "NCCLCommProperties"]


def _enum_or_int(kind: Any, value: int) -> Any:
    """The enum member for value, or the plain int for a value this ncore
    has no name for (an NCCL newer than its enums)."""
    try:
        return kind(value)
    except ValueError:
        return value


def _known_or_none(value: int) -> Optional[bool]:
    """A 0 / 1 answer as bool; -1 (the loaded NCCL reports it in a layout
    this ncore does not read) as None, nccl.core's "not available"."""
    return None if value < 0 else bool(value)


@dataclass(frozen=True, kw_only=True)
class NCCLCommProperties:
    """What Communicator.properties reports (ncclCommQueryProperties, as
    nccl.core 0.6.0 names it); fixed for the communicator's lifetime. The
    fields from comm_hash on are NCCL 2.31's (0 / NONE / empty on an older
    NCCL; dev_comm_runtime_version_size is the loaded NCCL's own struct
    size there) and cft_* NCCL 2.32's (False before it; None on 2.32, whose
    layout of them this ncore does not read yet). The host backend reports
    its own: one LSA team, no GIN, no CFT, a hash per communicator."""

    rank: int
    n_ranks: int
    cuda_dev: int
    nvml_dev: int
    device_api_support: bool
    multimem_support: bool
    gin_type: NcclGinType
    n_lsa_teams: int
    host_rma_support: bool
    railed_gin_type: NcclGinType
    comm_hash: Optional[int] = None
    gin_min_stride: Optional[int] = None
    gin_connection_type: Optional[NcclGinConnectionType] = None
    available_gin_types: Optional[FrozenSet[NcclGinType]] = None
    dev_comm_runtime_version_size: Optional[int] = None
    cft_support: Optional[bool] = None
    cft_multicast_support: Optional[bool] = None
    cft_counted_support: Optional[bool] = None

    @classmethod
    def _from_c(cls, props: Any) -> "NCCLCommProperties":
        gin_types = frozenset(_enum_or_int(NcclGinType, t) for t in range(64)
                              if int(props.available_gin_types) >> t & 1)
        return cls(
            rank=int(props.rank), n_ranks=int(props.nranks),
            cuda_dev=int(props.cuda_device), nvml_dev=int(props.nvml_device),
            device_api_support=bool(props.device_api_support),
            multimem_support=bool(props.multimem_support),
            gin_type=_enum_or_int(NcclGinType, int(props.gin_type)),
            n_lsa_teams=int(props.n_lsa_teams),
            host_rma_support=bool(props.host_rma_support),
            railed_gin_type=_enum_or_int(NcclGinType, int(props.railed_gin_type)),
            comm_hash=int(props.comm_hash),
            gin_min_stride=int(props.gin_min_stride),
            gin_connection_type=_enum_or_int(NcclGinConnectionType,
                                             int(props.gin_connection_type)),
            available_gin_types=gin_types,
            dev_comm_runtime_version_size=int(props.dev_comm_runtime_version_size),
            cft_support=_known_or_none(int(props.cft_support)),
            cft_multicast_support=_known_or_none(int(props.cft_multicast_support)),
            cft_counted_support=_known_or_none(int(props.cft_counted_support)))


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
    def properties(self) -> NCCLCommProperties:
        """Everything ncclCommQueryProperties reports, in one query."""
        return NCCLCommProperties._from_c(self._properties())

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
