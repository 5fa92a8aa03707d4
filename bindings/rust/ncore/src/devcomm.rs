//! Device communicators (`ncclDevCommCreate`; nccl.core create_dev_comm,
//! DevCommResource) and the GIN transport types.

use std::ffi::c_void;

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::error::{check, invalid_argument, Result};
use crate::handle::{handle_type, query};
use crate::versioned;

/// GPU Interconnect Network transport (`ncore_gin_type_t`); a newtype so an
/// unknown value from a newer library is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GinType(pub u32);

impl GinType {
    /// No network transport for device code (always on the host backend).
    pub const NONE: GinType = GinType(sys::ncore_gin_type_NCORE_GIN_TYPE_NONE);
    /// Proxy transport.
    pub const PROXY: GinType = GinType(sys::ncore_gin_type_NCORE_GIN_TYPE_PROXY);
    /// GDAKI transport.
    pub const GDAKI: GinType = GinType(sys::ncore_gin_type_NCORE_GIN_TYPE_GDAKI);
    /// GPI transport.
    pub const GPI: GinType = GinType(sys::ncore_gin_type_NCORE_GIN_TYPE_GPI);
    /// AWS EFA's device-initiated transport (NCCL 2.31+).
    pub const EFA_GDA: GinType = GinType(sys::ncore_gin_type_NCORE_GIN_TYPE_EFA_GDA);

    pub(crate) fn from_raw(raw: u32) -> GinType {
        GinType(raw)
    }
}

/// Which peers must be reachable through GIN (`ncore_gin_connection_type_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GinConnectionType(pub i32);

impl GinConnectionType {
    /// No requirement.
    pub const NONE: GinConnectionType = GinConnectionType(0);
    /// Every peer.
    pub const FULL: GinConnectionType = GinConnectionType(1);
    /// The rail's peers.
    pub const RAIL: GinConnectionType = GinConnectionType(2);
    /// Peers a caller-chosen rank stride apart (NCCL 2.31+).
    pub const CUSTOM_STRIDE: GinConnectionType =
        GinConnectionType(sys::ncore_gin_connection_type_NCORE_GIN_CONNECTION_CUSTOM_STRIDE as i32);
}

/// Requirements for a device communicator (`ncclDevCommRequirements`).
/// `Default` gives the library's defaults: 0 / false, and `None` ("NCCL's
/// default") for the optional fields. A field the loaded NCCL does not know,
/// when set, is refused with `ErrorKind::NotSupported` naming it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevCommRequirements {
    /// Declared size of the C struct; defaults to this binding's. A smaller
    /// value acts as an older caller (to exercise versioning); a larger one
    /// is refused.
    pub struct_size: u32,
    /// Enable multimem on the LSA team (needs NVLink multicast).
    pub lsa_multimem: bool,
    /// Number of barriers.
    pub barrier_count: i32,
    /// Number of LSA barriers.
    pub lsa_barrier_count: i32,
    /// Number of rail GIN barriers.
    pub rail_gin_barrier_count: i32,
    /// LSA low-latency all-to-all blocks.
    pub lsa_ll_a2a_block_count: i32,
    /// LSA low-latency all-to-all slots.
    pub lsa_ll_a2a_slot_count: i32,
    /// Create GIN resources even if NCCL would not.
    pub gin_force_enable: bool,
    /// GIN contexts (None: NCCL's default, 4).
    pub gin_context_count: Option<i32>,
    /// GIN signals.
    pub gin_signal_count: i32,
    /// GIN counters.
    pub gin_counter_count: i32,
    /// Required GIN connectivity.
    pub gin_connection_type: GinConnectionType,
    /// NCCL 2.29.5+: GIN contexts not shared with other device communicators.
    pub gin_exclusive_contexts: Option<bool>,
    /// NCCL 2.29.5+: GIN queue depth.
    pub gin_queue_depth: Option<i32>,
    /// NCCL 2.30+: GIN traffic class.
    pub gin_traffic_class: Option<i32>,
    /// NCCL 2.30+: barriers across the whole world over GIN.
    pub world_gin_barrier_count: Option<i32>,
    /// NCCL 2.30.7+: require strong (ordered) GIN signals.
    pub gin_strong_signals_required: Option<bool>,
    /// NCCL 2.30.7+: require signals at virtual addresses.
    pub gin_va_signals_required: Option<bool>,
    /// NCCL 2.32: the GIN rank stride for a custom-stride connection.
    pub gin_custom_stride: Option<i32>,
    /// NCCL 2.32: the GIN transport to require.
    pub gin_type: Option<GinType>,
    /// NCCL 2.32: CFT capabilities (a bitmask: 1 CFT, 2 CFT multimem).
    pub cft_caps: Option<i32>,
    /// NCCL 2.32: CFT barriers.
    pub cft_barrier_count: Option<i32>,
}

const REQUIREMENTS_SIZE: u32 = std::mem::size_of::<sys::ncore_dev_comm_requirements_t>() as u32;

impl Default for DevCommRequirements {
    fn default() -> Self {
        DevCommRequirements {
            struct_size: REQUIREMENTS_SIZE,
            lsa_multimem: false,
            barrier_count: 0,
            lsa_barrier_count: 0,
            rail_gin_barrier_count: 0,
            lsa_ll_a2a_block_count: 0,
            lsa_ll_a2a_slot_count: 0,
            gin_force_enable: false,
            gin_context_count: None,
            gin_signal_count: 0,
            gin_counter_count: 0,
            gin_connection_type: GinConnectionType::NONE,
            gin_exclusive_contexts: None,
            gin_queue_depth: None,
            gin_traffic_class: None,
            world_gin_barrier_count: None,
            gin_strong_signals_required: None,
            gin_va_signals_required: None,
            gin_custom_stride: None,
            gin_type: None,
            cft_caps: None,
            cft_barrier_count: None,
        }
    }
}

impl DevCommRequirements {
    fn to_raw(self) -> Result<sys::ncore_dev_comm_requirements_t> {
        let mut raw = versioned::defaults(sys::ncore_dev_comm_requirements_init)?;
        raw.struct_size = self.struct_size;
        raw.lsa_multimem = self.lsa_multimem as i32;
        raw.barrier_count = self.barrier_count;
        raw.lsa_barrier_count = self.lsa_barrier_count;
        raw.rail_gin_barrier_count = self.rail_gin_barrier_count;
        raw.lsa_ll_a2a_block_count = self.lsa_ll_a2a_block_count;
        raw.lsa_ll_a2a_slot_count = self.lsa_ll_a2a_slot_count;
        raw.gin_force_enable = self.gin_force_enable as i32;
        let undef = sys::NCORE_CONFIG_UNDEF_INT;
        let flag = |v: Option<bool>| v.map_or(undef, i32::from);
        raw.gin_context_count = self.gin_context_count.unwrap_or(undef);
        raw.gin_signal_count = self.gin_signal_count;
        raw.gin_counter_count = self.gin_counter_count;
        raw.gin_connection_type = self.gin_connection_type.0;
        raw.gin_exclusive_contexts = flag(self.gin_exclusive_contexts);
        raw.gin_queue_depth = self.gin_queue_depth.unwrap_or(undef);
        raw.gin_traffic_class = self.gin_traffic_class.unwrap_or(undef);
        raw.world_gin_barrier_count = self.world_gin_barrier_count.unwrap_or(undef);
        raw.gin_strong_signals_required = flag(self.gin_strong_signals_required);
        raw.gin_va_signals_required = flag(self.gin_va_signals_required);
        raw.gin_custom_stride = self.gin_custom_stride.unwrap_or(undef);
        raw.gin_type = self.gin_type.map_or(undef, |t| t.0 as i32);
        raw.cft_caps = self.cft_caps.unwrap_or(undef);
        raw.cft_barrier_count = self.cft_barrier_count.unwrap_or(undef);
        Ok(raw)
    }

    /// The C struct, refusing a struct_size larger than this binding's.
    pub(crate) fn checked_raw(self) -> Result<sys::ncore_dev_comm_requirements_t> {
        if self.struct_size > REQUIREMENTS_SIZE {
            return Err(invalid_argument(
                "ncore_create_dev_comm",
                "requirements",
                format!(
                    "struct_size {} is larger than this binding's {REQUIREMENTS_SIZE}",
                    self.struct_size
                ),
            ));
        }
        self.to_raw()
    }
}

/// What a device communicator provides (`ncore_dev_comm_info_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevCommInfo {
    /// This rank.
    pub rank: i32,
    /// Number of ranks.
    pub nranks: i32,
    /// Rank in the LSA team.
    pub lsa_rank: i32,
    /// Size of the LSA team.
    pub lsa_size: i32,
    /// GIN transport of context 0.
    pub gin_type: GinType,
    /// GIN transport of the rail team.
    pub railed_gin_type: GinType,
    /// GIN contexts.
    pub gin_context_count: i32,
    /// GIN signals.
    pub gin_signal_count: i32,
    /// GIN counters.
    pub gin_counter_count: i32,
    /// Whether the LSA team has a multimem handle.
    pub lsa_multimem: bool,
    /// How many resource handles it has (ABI 1.2).
    pub resource_count: i32,
}

handle_type! {
    /// A device communicator; destroyed on drop, by `close`, or with its
    /// communicator.
    pub struct DevComm;
    close: close = sys::ncore_dev_comm_close, "Destroys it (local).";
    is_valid: sys::ncore_dev_comm_is_valid;
}

impl Communicator {
    /// Creates a device communicator (collective). `None`: defaults.
    pub fn create_dev_comm(&self, requirements: Option<&DevCommRequirements>) -> Result<DevComm> {
        let raw_req = match requirements {
            Some(r) => Some(r.checked_raw()?),
            None => None,
        };
        let mut out = 0;
        // SAFETY: the requirements struct, if any, is full-sized and valid for the call.
        check(unsafe {
            sys::ncore_create_dev_comm(
                &mut out,
                self.as_raw(),
                raw_req.as_ref().map_or(std::ptr::null(), |r| r),
            )
        })?;
        Ok(DevComm::from_raw(out))
    }
}

impl DevComm {
    /// Pointer to the `ncclDevComm_t` (host backend: a host description of
    /// the team), owned by the library while open.
    pub fn pointer(&self) -> Result<*mut c_void> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_dev_comm_pointer(self.raw, out) })
    }

    /// What the device communicator provides.
    pub fn info(&self) -> Result<DevCommInfo> {
        // SAFETY: zeroed is a valid value of the plain C struct.
        let mut raw: sys::ncore_dev_comm_info_t = unsafe { std::mem::zeroed() };
        raw.struct_size = std::mem::size_of::<sys::ncore_dev_comm_info_t>() as u32;
        // SAFETY: raw is full-sized with struct_size set.
        check(unsafe { sys::ncore_dev_comm_info(self.raw, &mut raw) })?;
        Ok(DevCommInfo {
            rank: raw.rank,
            nranks: raw.nranks,
            lsa_rank: raw.lsa_rank,
            lsa_size: raw.lsa_size,
            gin_type: GinType(raw.gin_type as u32),
            railed_gin_type: GinType(raw.railed_gin_type as u32),
            gin_context_count: raw.gin_context_count,
            gin_signal_count: raw.gin_signal_count,
            gin_counter_count: raw.gin_counter_count,
            lsa_multimem: raw.lsa_multimem != 0,
            resource_count: raw.resource_count,
        })
    }
}
