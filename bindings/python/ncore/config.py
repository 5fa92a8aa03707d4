"""Option objects: communicator configuration (NCCLConfig, with ncore's
backend / timeout / device) and device-communicator requirements. Fields left
None keep the library's defaults (NCORE_COMM_CONFIG_INIT,
NCORE_DEV_COMM_REQUIREMENTS_INIT); the C library validates every value."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Optional

from ._lib import raw
from ._types import (Backend, CTAPolicy, NcclGinConnectionType, NcclHostCftMode,
                     NcclNvlsHostMode)

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
    cta_policy: Optional[CTAPolicy] = None
    shrink_share: Optional[bool] = None
    nvls_ctas: Optional[int] = None
    n_channels_per_net_peer: Optional[int] = None
    nvlink_centric_sched: Optional[bool] = None
    #: NCCL 2.29+: 0 no graphs, 1 one graph, 2 several or mixed (NCCL: 2).
    graph_usage_mode: Optional[int] = None
    #: NCCL 2.29+: RMA contexts for one-sided calls (NCCL: 1).
    num_rma_ctx: Optional[int] = None
    #: NCCL 2.30+: most peers a rank talks to at once over P2P.
    max_p2p_peers: Optional[int] = None
    #: NCCL 2.30.5+: 1 keeps stream order for collectives captured in graphs.
    graph_stream_ordering: Optional[int] = None
    #: NCCL 2.31.0+: take part in implicit launch ordering (NCCL: False).
    launch_order_implicit: Optional[bool] = None
    #: NCCL 2.31.0+: one-sided signal indexes per RMA context (NCCL: 1).
    num_rma_sig: Optional[int] = None
    #: NCCL 2.31.0+: set up one-sided signalling at creation (NCCL: False).
    rma_eager_init: Optional[bool] = None
    #: NCCL 2.31.1+: host-side Compute Fabric Transport mode.
    host_cft_mode: Optional[NcclHostCftMode] = None
    #: NCCL 2.32.0+: which host NVLS components the communicator uses.
    nvls_host_mode: Optional[NcclNvlsHostMode] = None

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
    A field left None keeps NCCL's default (NCORE_DEV_COMM_REQUIREMENTS_INIT:
    0 / False / NONE, and "unset" where NCCL picks, e.g. gin_context_count,
    4 in NCCL); the C library validates every value. A field the loaded NCCL
    does not know, when set, answers NcclNotSupported naming it."""

    lsa_multimem: Optional[bool] = None
    barrier_count: Optional[int] = None
    lsa_barrier_count: Optional[int] = None
    rail_gin_barrier_count: Optional[int] = None
    lsa_ll_a2a_block_count: Optional[int] = None
    lsa_ll_a2a_slot_count: Optional[int] = None
    gin_force_enable: Optional[bool] = None
    gin_context_count: Optional[int] = None
    gin_signal_count: Optional[int] = None
    gin_counter_count: Optional[int] = None
    gin_connection_type: Optional[NcclGinConnectionType] = None
    #: NCCL 2.29.5+.
    gin_exclusive_contexts: Optional[bool] = None
    gin_queue_depth: Optional[int] = None
    #: NCCL 2.30+ (gin_traffic_class: ncore's; nccl.core 0.3.1 lacks it).
    gin_traffic_class: Optional[int] = None
    world_gin_barrier_count: Optional[int] = None
    #: NCCL 2.30.7+ (NCCL's default: True for both).
    gin_strong_signals_required: Optional[bool] = None
    gin_va_signals_required: Optional[bool] = None
    #: ncore's: NCCL's resource / team requirement lists (addresses),
    #: passed through as they are; the host backend refuses any but 0.
    resource_requirements_list: Optional[int] = None
    team_requirements_list: Optional[int] = None

    def to_c(self) -> Any:
        """A filled ncore_dev_comm_requirements_t for the C call."""
        requirements = raw.ncore_dev_comm_requirements_t()
        raw.ncore_dev_comm_requirements_init(requirements)
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None:
                setattr(requirements, field.name, int(value))
        return requirements
