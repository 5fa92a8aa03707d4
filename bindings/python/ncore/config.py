"""Option objects: communicator configuration (NCCLConfig, with ncore's
backend / timeout / device), device-communicator requirements and the
per-collective configuration (NCCLCollConfig, nccl4py 0.5/0.6). Fields left
None keep the library's defaults (NCORE_COMM_CONFIG_INIT,
NCORE_DEV_COMM_REQUIREMENTS_INIT, NCORE_COLL_CONFIG_INIT); the C library
validates every value."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Optional, Sequence, Tuple, Union

from ._errors import NcclInvalid
from ._lib import raw
from ._types import (Backend, CTAPolicy, NcclGinConnectionType, NcclGinType,
                     NcclHostCftMode, NcclNvlsHostMode)
from .devcomm_requirements import (GinBarrierRequirement, LLA2ARequirement,
                                   LsaBarrierRequirement, TeamRequirement, resources_c,
                                   teams_c)
from .typing import NcclEventSpec

__all__ = ["NCCLConfig", "Config", "NcclConfig", "NCCLDevCommRequirements",
           "NCCLCollConfig", "VendorOption"]


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
    #: NCCL 2.32 (0.6.0): the GIN rank stride for CUSTOM_STRIDE, the GIN
    #: transport to require, the CFT capabilities (a bitmask of NcclCftCap)
    #: and CFT barriers. On an NCCL without them, set, NcclNotSupported
    #: naming 2.32.
    gin_custom_stride: Optional[int] = None
    gin_type: Optional[NcclGinType] = None
    cft_caps: Optional[int] = None
    cft_barrier_count: Optional[int] = None
    #: 0.4.1: per-team requirements and device resources; each resource
    #: yields, in order, a handle in DevCommResource.resource_handles.
    teams: Tuple[TeamRequirement, ...] = ()
    resources: Tuple[Union[LsaBarrierRequirement, GinBarrierRequirement,
                           LLA2ARequirement], ...] = ()
    #: ncore 1.1's: NCCL's own resource / team requirement lists (addresses),
    #: passed through as they are; the host backend refuses any but 0, and
    #: they cannot be given together with teams / resources.
    resource_requirements_list: Optional[int] = None
    team_requirements_list: Optional[int] = None

    def to_c(self) -> Any:
        """A filled ncore_dev_comm_requirements_t for the C call; it keeps
        the arrays of teams / resources it points to."""
        requirements = raw.ncore_dev_comm_requirements_t()
        raw.ncore_dev_comm_requirements_init(requirements)
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None and field.name not in ("teams", "resources"):
                setattr(requirements, field.name, int(value))
        teams, resources = tuple(self.teams or ()), tuple(self.resources or ())
        if teams:
            requirements._ncore_teams = teams_c(teams)
            requirements.teams = requirements._ncore_teams.pointer
            requirements.team_count = len(teams)
        if resources:
            requirements._ncore_resources = resources_c(resources)
            requirements.resources = requirements._ncore_resources.pointer
            requirements.resource_count = len(resources)
        return requirements


@dataclass(frozen=True)
class VendorOption:
    """One vendor-specific option of an NCCLCollConfig (NCCL's
    ncclConfigExt_t node, ncore_vendor_option_t): official NCCL ignores
    every one; a vendor library reads those whose vendor_id it owns.
    Exactly one of int_value, str_value and raw_value is set."""

    vendor_id: int
    option_id: int
    int_value: Optional[int] = None
    str_value: Optional[str] = None
    raw_value: Optional[int] = None

    def __post_init__(self) -> None:
        given = [name for name in ("int_value", "str_value", "raw_value")
                 if getattr(self, name) is not None]
        if len(given) != 1:
            raise NcclInvalid("VendorOption requires exactly one of int_value, str_value, "
                              f"raw_value to be set, got {given or 'none'}")

    def _c_tuple(self) -> Tuple[Any, ...]:
        """(vendor_id, option_id, kind, int_value, str_value, raw_value) for
        the C struct (ncore.i's config typemap)."""
        if self.int_value is not None:
            return (self.vendor_id, self.option_id, raw.NCORE_VENDOR_OPTION_INT,
                    int(self.int_value), None, 0)
        if self.str_value is not None:
            return (self.vendor_id, self.option_id, raw.NCORE_VENDOR_OPTION_STRING, 0,
                    str(self.str_value), 0)
        return (self.vendor_id, self.option_id, raw.NCORE_VENDOR_OPTION_RAW, 0, None,
                int(self.raw_value or 0))


def _check_vendor_options(options: Sequence[Any]) -> None:
    """nccl4py's rules: a sequence (not one option, not a string) of
    VendorOption with unique (vendor_id, option_id) keys."""
    if isinstance(options, (VendorOption, str, bytes)) or not isinstance(options, Sequence):
        raise NcclInvalid("vendor_options must be a sequence of VendorOption, got "
                          f"{type(options).__name__}")
    seen = set()
    for option in options:
        if not isinstance(option, VendorOption):
            raise NcclInvalid("vendor_options must contain VendorOption instances, got "
                              f"{type(option).__name__}")
        key = (option.vendor_id, option.option_id)
        if key in seen:
            raise NcclInvalid(f"Duplicate vendor option key (vendor_id={option.vendor_id}, "
                              f"option_id={option.option_id}); keys must be unique")
        seen.add(key)


def _event_handle(event: Optional[NcclEventSpec]) -> int:
    """A launch-completion event as its cudaEvent_t address (0: none), as
    nccl4py's get_event_ptr takes it: a cuda.core Event (its handle) or a
    nonzero int."""
    if event is None:
        return 0
    if isinstance(event, bool):
        raise TypeError("event must be a cuda.core.Event or a nonzero integer "
                        "cudaEvent_t handle")
    if isinstance(event, int):
        if event == 0:
            raise ValueError("CUDA event has a null handle; initialize it before passing "
                             "it to NCCL")
        return event
    handle = getattr(event, "handle", None)
    if handle is None:
        raise TypeError("event must be a cuda.core.Event or a nonzero integer "
                        "cudaEvent_t handle")
    if int(handle) == 0:
        raise RuntimeError("Event has been closed")
    return int(handle)


def _unset(value: Optional[int]) -> int:
    return raw.NCORE_CONFIG_UNDEF_INT if value is None else int(value)


@dataclass(kw_only=True)
class NCCLCollConfig:
    """The configuration of one collective call (nccl4py 0.6.0's
    NCCLCollConfig; ncore_coll_config_t), the ``config`` keyword of every
    collective method. Every rank passes the same. A field left None keeps
    the communicator's value or NCCL's default.

    alg_selection: NCCL's selection expression ("ring", "tree,ring",
    "^symk"; NCCL 2.31+), or one of ncore's own names, served on every NCCL:
    "auto", "nccl" (NCCL's kernels only), "oneshot" / "twoshot" (ncore's
    small-message kernels, NCORE_ALGO's choices for this call).
    force_alg_selection: True (NCCL's default) makes a selection that cannot
    be honoured an error; False falls back to automatic selection.
    launch_completion_event: a CUDA event recorded when the call's launch
    completes (NCCL 2.32 records it; on an older NCCL, ncore records it
    right after the call). On an NCCL before 2.31 the fields only NCCL can
    serve raise NcclNotSupported naming the version; the host backend takes
    them as hints and refuses an event (bindings/python/README.md,
    "Compatibility")."""

    min_ctas: Optional[int] = None
    max_ctas: Optional[int] = None
    nvls_ctas: Optional[int] = None
    cga_cluster_size: Optional[int] = None
    alg_selection: Optional[str] = None
    force_alg_selection: Optional[bool] = None
    cta_policy: Optional[CTAPolicy] = None
    user_profiler_tag: Optional[int] = None
    launch_completion_event: Optional[NcclEventSpec] = None
    vendor_options: Tuple[VendorOption, ...] = ()

    def __post_init__(self) -> None:
        _check_vendor_options(self.vendor_options)

    def _c_tuple(self) -> Tuple[Any, ...]:
        """The fields in ncore_coll_config_t's order, as ncore.i's typemap
        of `const ncore_coll_config_t *config` reads them."""
        return (_unset(self.min_ctas), _unset(self.max_ctas), _unset(self.nvls_ctas),
                _unset(self.cga_cluster_size), self.alg_selection,
                1 if self.force_alg_selection is None else int(bool(self.force_alg_selection)),
                _unset(self.cta_policy),
                0 if self.user_profiler_tag is None else int(self.user_profiler_tag),
                tuple(o._c_tuple() for o in self.vendor_options),
                _event_handle(self.launch_completion_event))


def coll_config_to_c(config: Any) -> Tuple[Any, ...]:
    """The C argument of a collective's config (the methods' `config=`)."""
    if not isinstance(config, NCCLCollConfig):
        raise NcclInvalid(f"config: expected an NCCLCollConfig or None, got "
                          f"{type(config).__name__}")
    return config._c_tuple()
