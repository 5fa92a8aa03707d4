//! A device communicator's team and resource requirements and the handles
//! NCCL returns for them (`ncore/devcomm.h`, ABI 1.2; nccl4py 0.4.1's
//! TeamRequirement, LsaBarrierRequirement, GinBarrierRequirement,
//! LLA2ARequirement and their handles). ncore calls NCCL's
//! `nccl*CreateRequirement` helpers and chains NCCL's lists itself.

use std::ffi::c_void;
use std::ptr::NonNull;

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::devcomm::{DevComm, DevCommRequirements};
use crate::error::{check, Result};
use crate::handle::{non_null, query};
use crate::team::Team;
use crate::window::Window;

/// One team's requirement (`ncore_team_requirement_t`): with `multimem`,
/// the device communicator gets a multimem handle for the team
/// ([`DevComm::multimem_handle`]). Requirements for the same team merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TeamRequirement {
    /// The team, as the calling rank sees it.
    pub team: Team,
    /// Ask for a multimem (NVLink multicast) handle for the team.
    pub multimem: bool,
}

/// One device resource's requirement (`ncore_dev_resource_requirement_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceRequirement {
    /// LSA barriers (`ncclLsaBarrierCreateRequirement`).
    LsaBarrier {
        /// The team the barriers span.
        team: Team,
        /// How many barriers (at least 1).
        n_barriers: i32,
    },
    /// GIN barriers (`ncclGinBarrierCreateRequirement`).
    GinBarrier {
        /// The team the barriers span.
        team: Team,
        /// How many barriers (at least 1).
        n_barriers: i32,
    },
    /// A low-latency all-to-all (`ncclLLA2ACalcSlots` +
    /// `ncclLLA2ACreateRequirement`).
    LlA2a {
        /// Blocks (at least 1).
        n_blocks: i32,
        /// The most elements one block carries.
        max_elements: i32,
        /// The largest element in bytes.
        max_element_size: i32,
    },
}

/// The handle NCCL returned for one [`ResourceRequirement`], in the
/// requirements' order ([`DevComm::resource_handles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceHandle {
    /// An LSA barrier's handle.
    LsaBarrier {
        /// The resource buffer (`ncclDevResourceHandle_t`).
        buf_handle: u32,
        /// How many barriers.
        n_barriers: i32,
    },
    /// A GIN barrier's handle.
    GinBarrier {
        /// The first GIN signal of the barriers.
        signal0: u32,
    },
    /// An LL all-to-all's handle.
    LlA2a {
        /// The resource buffer (`ncclDevResourceHandle_t`).
        buf_handle: u32,
        /// How many slots.
        n_slots: u32,
    },
}

/// A team's multimem handle (`ncore_multimem_handle_t`): the multicast base
/// NCCL gave the team, `None` when it gave none (no NVLink multicast).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MultimemHandle {
    /// The multicast base address.
    pub mc_base_pointer: Option<NonNull<c_void>>,
}

impl TeamRequirement {
    fn to_raw(self) -> sys::ncore_team_requirement_t {
        sys::ncore_team_requirement_t {
            struct_size: std::mem::size_of::<sys::ncore_team_requirement_t>() as u32,
            team: self.team.to_raw(),
            multimem: self.multimem as i32,
        }
    }
}

impl ResourceRequirement {
    fn to_raw(self) -> sys::ncore_dev_resource_requirement_t {
        let mut raw = sys::ncore_dev_resource_requirement_t {
            struct_size: std::mem::size_of::<sys::ncore_dev_resource_requirement_t>() as u32,
            kind: 0,
            team: sys::ncore_team_t {
                n_ranks: 0,
                rank: 0,
                stride: 0,
            },
            n_barriers: 0,
            n_blocks: 0,
            max_elements: 0,
            max_element_size: 0,
        };
        match self {
            ResourceRequirement::LsaBarrier { team, n_barriers } => {
                raw.kind = sys::ncore_dev_resource_kind_NCORE_DEV_RESOURCE_LSA_BARRIER as i32;
                raw.team = team.to_raw();
                raw.n_barriers = n_barriers;
            }
            ResourceRequirement::GinBarrier { team, n_barriers } => {
                raw.kind = sys::ncore_dev_resource_kind_NCORE_DEV_RESOURCE_GIN_BARRIER as i32;
                raw.team = team.to_raw();
                raw.n_barriers = n_barriers;
            }
            ResourceRequirement::LlA2a {
                n_blocks,
                max_elements,
                max_element_size,
            } => {
                raw.kind = sys::ncore_dev_resource_kind_NCORE_DEV_RESOURCE_LL_A2A as i32;
                raw.n_blocks = n_blocks;
                raw.max_elements = max_elements;
                raw.max_element_size = max_element_size;
            }
        }
        raw
    }
}

impl ResourceHandle {
    fn from_raw(raw: &sys::ncore_dev_resource_handle_t) -> ResourceHandle {
        match raw.kind as u32 {
            sys::ncore_dev_resource_kind_NCORE_DEV_RESOURCE_LSA_BARRIER => {
                ResourceHandle::LsaBarrier {
                    buf_handle: raw.buf_handle,
                    n_barriers: raw.n_barriers,
                }
            }
            sys::ncore_dev_resource_kind_NCORE_DEV_RESOURCE_GIN_BARRIER => {
                ResourceHandle::GinBarrier {
                    signal0: raw.signal0,
                }
            }
            _ => ResourceHandle::LlA2a {
                buf_handle: raw.buf_handle,
                n_slots: raw.n_slots,
            },
        }
    }
}

impl MultimemHandle {
    fn to_raw(self) -> sys::ncore_multimem_handle_t {
        sys::ncore_multimem_handle_t {
            struct_size: std::mem::size_of::<sys::ncore_multimem_handle_t>() as u32,
            mc_base_pointer: self
                .mc_base_pointer
                .map_or(std::ptr::null_mut(), NonNull::as_ptr),
        }
    }
}

impl Communicator {
    /// Creates a device communicator with team and resource requirements
    /// (collective); the handles come back through
    /// [`DevComm::resource_handles`] and [`DevComm::multimem_handle`].
    /// `requirements` `None`: the defaults for everything else.
    pub fn create_dev_comm_with(
        &self,
        requirements: Option<&DevCommRequirements>,
        teams: &[TeamRequirement],
        resources: &[ResourceRequirement],
    ) -> Result<DevComm> {
        let mut raw = requirements.copied().unwrap_or_default().checked_raw()?;
        let raw_teams: Vec<_> = teams.iter().map(|t| t.to_raw()).collect();
        let raw_resources: Vec<_> = resources.iter().map(|r| r.to_raw()).collect();
        raw.teams = if raw_teams.is_empty() {
            std::ptr::null()
        } else {
            raw_teams.as_ptr()
        };
        raw.team_count = i32::try_from(raw_teams.len()).unwrap_or(i32::MAX);
        raw.resources = if raw_resources.is_empty() {
            std::ptr::null()
        } else {
            raw_resources.as_ptr()
        };
        raw.resource_count = i32::try_from(raw_resources.len()).unwrap_or(i32::MAX);
        let mut out = 0;
        // SAFETY: raw and the arrays it points to live for the call.
        check(unsafe { sys::ncore_create_dev_comm(&mut out, self.as_raw(), &raw) })?;
        Ok(DevComm::from_raw(out))
    }
}

impl DevComm {
    /// The handles NCCL returned for the requirements' resources, in order.
    pub fn resource_handles(&self) -> Result<Vec<ResourceHandle>> {
        let count = self.info()?.resource_count;
        (0..count).map(|index| self.resource_handle(index)).collect()
    }

    /// The handle of resource `index` (0-based, the requirements' order);
    /// `ErrorKind::InvalidArgument` outside `[0, resource_count)`.
    pub fn resource_handle(&self, index: i32) -> Result<ResourceHandle> {
        // SAFETY: zeroed is a valid value of the plain C struct.
        let mut raw: sys::ncore_dev_resource_handle_t = unsafe { std::mem::zeroed() };
        raw.struct_size = std::mem::size_of::<sys::ncore_dev_resource_handle_t>() as u32;
        // SAFETY: raw is full-sized with struct_size set.
        check(unsafe { sys::ncore_dev_comm_resource_handle(self.as_raw(), index, &mut raw) })?;
        Ok(ResourceHandle::from_raw(&raw))
    }

    /// The multimem handle NCCL returned for `team`, asked for with
    /// `TeamRequirement { multimem: true, .. }`; `ErrorKind::InvalidArgument`
    /// for a team not asked for so.
    pub fn multimem_handle(&self, team: Team) -> Result<MultimemHandle> {
        // SAFETY: zeroed is a valid value of the plain C struct.
        let mut raw: sys::ncore_multimem_handle_t = unsafe { std::mem::zeroed() };
        raw.struct_size = std::mem::size_of::<sys::ncore_multimem_handle_t>() as u32;
        let team = team.to_raw();
        // SAFETY: team and raw are valid for the call.
        check(unsafe { sys::ncore_dev_comm_multimem_handle(self.as_raw(), &team, &mut raw) })?;
        Ok(MultimemHandle {
            mc_base_pointer: NonNull::new(raw.mc_base_pointer),
        })
    }
}

impl Window<'_> {
    /// Multicast pointer to byte `offset` through a team's `multimem`
    /// handle, or `None` where there is none (always on the host backend).
    pub fn multimem_device_pointer(
        &self,
        multimem: MultimemHandle,
        offset: usize,
    ) -> Result<Option<NonNull<c_void>>> {
        let raw = multimem.to_raw();
        // SAFETY: raw and out are valid for the call.
        query(|out| unsafe {
            sys::ncore_window_multimem_device_pointer(self.as_raw(), &raw, offset, out)
        })
        .map(non_null)
    }
}
