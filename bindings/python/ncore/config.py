"""Option objects: communicator configuration (NCCLConfig, with ncore's
backend / timeout / device) and device-communicator requirements. Fields left
None keep the library's defaults (NCORE_COMM_CONFIG_INIT,
NCORE_DEV_COMM_REQUIREMENTS_INIT); the C library validates every value."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Optional

from ._lib import raw
from ._types import Backend, NcclGinConnectionType

__all__ = ["NCCLConfig", "Config", "NcclConfig", "NCCLDevCommRequirements"]


def _int_or_bool(value: Any) -> int:
    return int(value)


@dataclass(kw_only=True)
class NCCLConfig:
    """Communicator configuration (ncclConfig_t plus ncore's own fields).

    backend: AUTO (default; NCORE_BACKEND overrides it), HOST or NCCL.
    timeout: seconds a blocking call waits for peers before NcclTimeout;
        None = the default (NCORE_TIMEOUT_MS or 300 s); negative = forever.
    device: CUDA ordinal for the NCCL backend (None = current device).
    The other fields mirror ncclConfig_t; None leaves NCCL's default.
    """

    backend: Optional[Backend] = None
    timeout: Optional[float] = None
    device: Optional[int] = None
    blocking: Optional[bool] = None
    cga_cluster_size: Optional[int] = None
    min_ctas: Optional[int] = None
    max_ctas: Optional[int] = None
    net_name: Optional[str] = None
    split_share: Optional[bool] = None
    traffic_class: Optional[int] = None
    comm_name: Optional[str] = None
    collnet_enable: Optional[bool] = None
    cta_policy: Optional[int] = None
    shrink_share: Optional[bool] = None
    nvls_ctas: Optional[int] = None
    n_channels_per_net_peer: Optional[int] = None
    nvlink_centric_sched: Optional[bool] = None
    #: NCCL 2.29+ (graph_usage_mode, num_rma_ctx), 2.30+ (max_p2p_peers),
    #: 2.30.5+ (graph_stream_ordering): set on an older NCCL, creating the
    #: communicator raises NcclNotSupported naming the field.
    graph_usage_mode: Optional[int] = None
    num_rma_ctx: Optional[int] = None
    max_p2p_peers: Optional[int] = None
    graph_stream_ordering: Optional[int] = None

    def to_c(self) -> Any:
        """A filled ncore_comm_config_t (the raw struct) for the C calls."""
        config = raw.ncore_comm_config_t()
        raw.ncore_comm_config_init(config)
        if self.backend is not None:
            config.backend = int(self.backend)
        if self.timeout is not None:
            # 0 means "default" in C, so a positive timeout is at least 1 ms.
            config.timeout_ms = -1 if self.timeout < 0 else max(1, int(self.timeout * 1000))
        if self.device is not None:
            config.device = int(self.device)
        for field in fields(self):
            if field.name in ("backend", "timeout", "device"):
                continue
            value = getattr(self, field.name)
            if value is None:
                continue
            if field.name in ("net_name", "comm_name"):
                setattr(config, field.name, str(value))
            else:
                setattr(config, field.name, _int_or_bool(value))
        return config


#: Short names for the same class.
Config = NCCLConfig
NcclConfig = NCCLConfig


def config_to_c(config: Optional[NCCLConfig]) -> Any:
    """None (library defaults) or the C struct of a config."""
    return None if config is None else config.to_c()


@dataclass(kw_only=True)
class NCCLDevCommRequirements:
    """Requirements for Communicator.create_dev_comm (ncclDevCommRequirements).
    Counts default to 0; the fields that default to None take NCCL's default
    (gin_context_count: 4; the rest as NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER).
    A field the loaded NCCL does not know, when set, raises NcclNotSupported
    naming it (gin_exclusive_contexts, gin_queue_depth: 2.29.5;
    gin_traffic_class, world_gin_barrier_count: 2.30; the two signal
    requirements: 2.30.7)."""

    lsa_multimem: bool = False
    barrier_count: int = 0
    lsa_barrier_count: int = 0
    rail_gin_barrier_count: int = 0
    lsa_ll_a2a_block_count: int = 0
    lsa_ll_a2a_slot_count: int = 0
    gin_force_enable: bool = False
    gin_context_count: Optional[int] = None
    gin_signal_count: int = 0
    gin_counter_count: int = 0
    gin_connection_type: NcclGinConnectionType = NcclGinConnectionType.NONE
    gin_exclusive_contexts: Optional[bool] = None
    gin_queue_depth: Optional[int] = None
    gin_traffic_class: Optional[int] = None
    world_gin_barrier_count: Optional[int] = None
    gin_strong_signals_required: Optional[bool] = None
    gin_va_signals_required: Optional[bool] = None
    #: NCCL's resource / team requirement lists (addresses), NCCL backend only.
    resource_requirements_list: int = 0
    team_requirements_list: int = 0

    def to_c(self) -> Any:
        """A filled ncore_dev_comm_requirements_t for the C call (None keeps
        the library's default, NCORE_CONFIG_UNDEF_INT). The two lists are
        addresses of NCCL's own requirement lists, passed through as they
        are (the host backend refuses any but 0)."""
        requirements = raw.ncore_dev_comm_requirements_t()
        raw.ncore_dev_comm_requirements_init(requirements)
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None:
                setattr(requirements, field.name, int(value))
        return requirements
