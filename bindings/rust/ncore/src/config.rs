//! Communicator configuration (`ncore_comm_config_t`), as a builder.

use std::ffi::CString;

use ncore_sys as sys;

use crate::error::{invalid_argument, Result};
use crate::types::Backend;
use crate::versioned;

/// Configuration of a new communicator; mirrors `ncclConfig_t` plus ncore's
/// backend, timeout and device. Every field left unset takes the backend's
/// default. Build it with chained setters:
///
/// ```no_run
/// # use ncore::{Backend, Config};
/// let config = Config::new().backend(Backend::Host).timeout_ms(5000);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Config {
    backend: Option<Backend>,
    timeout_ms: Option<i32>,
    device: Option<i32>,
    blocking: Option<bool>,
    cga_cluster_size: Option<i32>,
    min_ctas: Option<i32>,
    max_ctas: Option<i32>,
    net_name: Option<String>,
    split_share: Option<bool>,
    traffic_class: Option<i32>,
    comm_name: Option<String>,
    collnet_enable: Option<bool>,
    cta_policy: Option<i32>,
    shrink_share: Option<bool>,
    nvls_ctas: Option<i32>,
    n_channels_per_net_peer: Option<i32>,
    nvlink_centric_sched: Option<bool>,
    graph_usage_mode: Option<i32>,
    num_rma_ctx: Option<i32>,
    max_p2p_peers: Option<i32>,
    graph_stream_ordering: Option<i32>,
    launch_order_implicit: Option<bool>,
    num_rma_sig: Option<i32>,
    rma_eager_init: Option<bool>,
    host_cft_mode: Option<HostCftMode>,
    nvls_host_mode: Option<NvlsHostMode>,
}

/// [`Config::host_cft_mode`] (`ncclHostCftMode_t`, NCCL 2.31.1+): whether
/// the communicator creates the CUDA fabric logical endpoints behind the
/// host-side Compute Fabric Transport queries; a value outside the
/// constants is passed through, and NCCL judges it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCftMode(pub i32);

impl HostCftMode {
    /// NCCL's version-specific default (the same as leaving it unset).
    pub const DEFAULT: HostCftMode = HostCftMode(sys::NCORE_CONFIG_UNDEF_INT);
    /// Create the endpoints at the first window registration.
    pub const ENABLE: HostCftMode = HostCftMode(sys::NCORE_HOST_CFT_ENABLE as i32);
    /// No host-side CFT.
    pub const DISABLE: HostCftMode = HostCftMode(sys::NCORE_HOST_CFT_DISABLE as i32);
    /// Try; on error disable host-side CFT instead of failing.
    pub const FALLBACK: HostCftMode = HostCftMode(sys::NCORE_HOST_CFT_FALLBACK as i32);
}

/// [`Config::nvls_host_mode`] (`ncclNvlsHostMode_t`, NCCL 2.32.0+): which
/// host NVLS components the communicator uses; the `DISABLE_*` bits
/// combine with `|`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvlsHostMode(pub i32);

impl NvlsHostMode {
    /// Every host NVLS component.
    pub const ENABLE: NvlsHostMode = NvlsHostMode(sys::NCORE_NVLS_HOST_MODE_ENABLE as i32);
    /// No NVLS transport and registered-buffer optimization.
    pub const DISABLE_TRANSPORT: NvlsHostMode =
        NvlsHostMode(sys::NCORE_NVLS_HOST_MODE_DISABLE_TRANSPORT as i32);
    /// No multimem in the symmetric kernels and copy-engine paths.
    pub const DISABLE_SYMMETRIC_MULTIMEM: NvlsHostMode =
        NvlsHostMode(sys::NCORE_NVLS_HOST_MODE_DISABLE_SYMMETRIC_MULTIMEM as i32);
    /// No host NVLS component, present or future.
    pub const DISABLE: NvlsHostMode = NvlsHostMode(sys::NCORE_NVLS_HOST_MODE_DISABLE as i32);
}

impl std::ops::BitOr for NvlsHostMode {
    type Output = NvlsHostMode;
    fn bitor(self, other: NvlsHostMode) -> NvlsHostMode {
        NvlsHostMode(self.0 | other.0)
    }
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        pub fn $name(mut self, value: $ty) -> Self {
            self.$name = Some(value.into());
            self
        }
    };
}
// The per-call configuration (coll_config.rs) sets its fields the same way.
pub(crate) use setter;

impl Config {
    /// A configuration with every field at its default.
    pub fn new() -> Config {
        Config::default()
    }

    setter!(
        /// The backend: Auto (default), Host or Nccl.
        backend: Backend);
    setter!(
        /// How long blocking calls wait for peers before `Timeout`, in ms;
        /// 0 = default (`NCORE_TIMEOUT_MS`, else 300000), negative = forever.
        timeout_ms: i32);
    setter!(
        /// CUDA device for the NCCL backend; -1 (default) = current device.
        device: i32);
    setter!(
        /// NCCL `blocking`; the host backend completes calls before returning.
        blocking: bool);
    setter!(
        /// NCCL `cgaClusterSize`.
        cga_cluster_size: i32);
    setter!(
        /// NCCL `minCTAs`.
        min_ctas: i32);
    setter!(
        /// NCCL `maxCTAs`.
        max_ctas: i32);
    setter!(
        /// NCCL `netName`.
        net_name: &str);
    setter!(
        /// NCCL `splitShare`.
        split_share: bool);
    setter!(
        /// NCCL `trafficClass`.
        traffic_class: i32);
    setter!(
        /// NCCL `commName`.
        comm_name: &str);
    setter!(
        /// NCCL `collnetEnable`.
        collnet_enable: bool);
    setter!(
        /// NCCL `CTAPolicy`.
        cta_policy: i32);
    setter!(
        /// NCCL `shrinkShare`.
        shrink_share: bool);
    setter!(
        /// NCCL `nvlsCTAs`.
        nvls_ctas: i32);
    setter!(
        /// NCCL `nChannelsPerNetPeer`.
        n_channels_per_net_peer: i32);
    setter!(
        /// NCCL `nvlinkCentricSched`.
        nvlink_centric_sched: bool);
    setter!(
        /// NCCL 2.29+ `graphUsageMode` (an older NCCL refuses it: `NotSupported`).
        graph_usage_mode: i32);
    setter!(
        /// NCCL 2.29+ `numRmaCtx`.
        num_rma_ctx: i32);
    setter!(
        /// NCCL 2.30+ `maxP2pPeers`.
        max_p2p_peers: i32);
    setter!(
        /// NCCL 2.30.5+ `graphStreamOrdering`.
        graph_stream_ordering: i32);
    setter!(
        /// NCCL 2.31.0+ `launchOrderImplicit`: take part in implicit launch
        /// ordering (NCCL: false).
        launch_order_implicit: bool);
    setter!(
        /// NCCL 2.31.0+ `numRmaSig`: one-sided signal indexes per RMA
        /// context (NCCL: 1).
        num_rma_sig: i32);
    setter!(
        /// NCCL 2.31.0+ `rmaEagerInit`: set up one-sided signalling at
        /// creation, not at the first window registration (NCCL: false).
        rma_eager_init: bool);
    setter!(
        /// NCCL 2.31.1+ `hostCftMode`.
        host_cft_mode: HostCftMode);
    setter!(
        /// NCCL 2.32.0+ `nvlsHostMode`.
        nvls_host_mode: NvlsHostMode);

    /// The C struct, with the strings it borrows (kept alive by the caller
    /// for the duration of the init call).
    pub(crate) fn to_raw(&self, function: &str) -> Result<RawConfig> {
        let cstring = |name: &str, value: &Option<String>| -> Result<Option<CString>> {
            value
                .as_deref()
                .map(|s| {
                    CString::new(s)
                        .map_err(|_| invalid_argument(function, name, "contains a NUL byte".into()))
                })
                .transpose()
        };
        let net_name = cstring("net_name", &self.net_name)?;
        let comm_name = cstring("comm_name", &self.comm_name)?;
        let mut raw = versioned::defaults(sys::ncore_comm_config_init)?;
        let int = |v: Option<i32>, dflt: i32| v.unwrap_or(dflt);
        let flag = |v: Option<bool>, dflt: i32| v.map_or(dflt, i32::from);
        let undef = sys::NCORE_CONFIG_UNDEF_INT;
        raw.backend = self.backend.map_or(raw.backend, |b| b.raw() as i32);
        raw.timeout_ms = int(self.timeout_ms, raw.timeout_ms);
        raw.device = int(self.device, raw.device);
        raw.blocking = flag(self.blocking, undef);
        raw.cga_cluster_size = int(self.cga_cluster_size, undef);
        raw.min_ctas = int(self.min_ctas, undef);
        raw.max_ctas = int(self.max_ctas, undef);
        raw.split_share = flag(self.split_share, undef);
        raw.traffic_class = int(self.traffic_class, undef);
        raw.collnet_enable = flag(self.collnet_enable, undef);
        raw.cta_policy = int(self.cta_policy, undef);
        raw.shrink_share = flag(self.shrink_share, undef);
        raw.nvls_ctas = int(self.nvls_ctas, undef);
        raw.n_channels_per_net_peer = int(self.n_channels_per_net_peer, undef);
        raw.nvlink_centric_sched = flag(self.nvlink_centric_sched, undef);
        raw.graph_usage_mode = int(self.graph_usage_mode, undef);
        raw.num_rma_ctx = int(self.num_rma_ctx, undef);
        raw.max_p2p_peers = int(self.max_p2p_peers, undef);
        raw.graph_stream_ordering = int(self.graph_stream_ordering, undef);
        raw.launch_order_implicit = flag(self.launch_order_implicit, undef);
        raw.num_rma_sig = int(self.num_rma_sig, undef);
        raw.rma_eager_init = flag(self.rma_eager_init, undef);
        raw.host_cft_mode = self.host_cft_mode.map_or(undef, |m| m.0);
        raw.nvls_host_mode = self.nvls_host_mode.map_or(undef, |m| m.0);
        raw.net_name = net_name.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        raw.comm_name = comm_name.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        Ok(RawConfig {
            raw,
            _net_name: net_name,
            _comm_name: comm_name,
        })
    }
}

/// A C config and the strings its pointers borrow.
pub(crate) struct RawConfig {
    pub(crate) raw: sys::ncore_comm_config_t,
    _net_name: Option<CString>,
    _comm_name: Option<CString>,
}
