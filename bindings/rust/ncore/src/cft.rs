//! CFT, Compute Fabric Transport (`ncore/cft.h`): a communicator's CFT
//! teams and the logical endpoint addresses of a window's memory, as NCCL
//! 2.31+ answers them. The host backend and older NCCL refuse every call
//! with `ErrorKind::NotSupported` naming NCCL 2.31.

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::error::{check, Result};
use crate::team::Team;
use crate::window::Window;

/// Layout of the CFT team [`Communicator::team_cft`] answers
/// (`ncore_cft_team_mode_t`, NCCL's `ncclCftTeamMode_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CftTeamMode(pub i32);

impl CftTeamMode {
    /// Every rank of the CFT unicast group.
    pub const FLAT: CftTeamMode = CftTeamMode(sys::ncore_cft_team_mode_NCORE_CFT_TEAM_FLAT as i32);
    /// The unicast group's ranks with this rank's index in every multicast group.
    pub const HIER_MULTIMEM: CftTeamMode =
        CftTeamMode(sys::ncore_cft_team_mode_NCORE_CFT_TEAM_HIER_MULTIMEM as i32);
    /// The unicast group's ranks with this rank's index in every LSA team.
    pub const HIER_LSA: CftTeamMode =
        CftTeamMode(sys::ncore_cft_team_mode_NCORE_CFT_TEAM_HIER_LSA as i32);
}

/// CFT capability bits of a device communicator's requirements
/// (`ncore_cft_cap_t`, NCCL's `ncclCftCap_t`); or them together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CftCap(pub i32);

impl CftCap {
    /// No CFT.
    pub const NONE: CftCap = CftCap(sys::ncore_cft_cap_NCORE_CFT_CAP_NONE as i32);
    /// CFT unicast logical endpoints.
    pub const CFT: CftCap = CftCap(sys::ncore_cft_cap_NCORE_CFT_CAP_CFT as i32);
    /// CFT multicast logical endpoints.
    pub const MULTIMEM: CftCap = CftCap(sys::ncore_cft_cap_NCORE_CFT_CAP_MULTIMEM as i32);
}

impl std::ops::BitOr for CftCap {
    type Output = CftCap;
    fn bitor(self, other: CftCap) -> CftCap {
        CftCap(self.0 | other.0)
    }
}

/// A logical endpoint address (`ncore_cft_le_info_t`): the endpoint's id
/// and the byte offset in it, which a kernel's CFT operations take instead
/// of a pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CftLeInfo {
    /// The logical endpoint (NCCL's `ncclCftLeId`).
    pub le_id: u32,
    /// Byte offset inside the endpoint.
    pub le_offset: u64,
}

impl Communicator {
    /// This rank's CFT team in the layout `mode` (`ncclTeamCft`).
    pub fn team_cft(&self, mode: CftTeamMode) -> Result<Team> {
        // SAFETY: the out-parameter is the team query's own.
        self.team_query_with(|comm, out| unsafe { sys::ncore_comm_team_cft(comm, mode.0, out) })
    }

    /// This rank's CFT multimem team (`ncclTeamCftMultimem`).
    pub fn team_cft_multimem(&self) -> Result<Team> {
        self.team_query(sys::ncore_comm_team_cft_multimem)
    }
}

fn le_info(
    call: impl FnOnce(*mut sys::ncore_cft_le_info_t) -> sys::ncore_status_t,
) -> Result<CftLeInfo> {
    let mut raw = sys::ncore_cft_le_info_t {
        le_id: 0,
        le_offset: 0,
    };
    check(call(&mut raw))?;
    Ok(CftLeInfo {
        le_id: raw.le_id,
        le_offset: raw.le_offset,
    })
}

impl Window<'_> {
    /// The multicast logical endpoint address of byte `offset` of this
    /// rank's part (`ncclGetMultimemDeviceLeInfo`).
    pub fn multimem_le_info(&self, offset: usize) -> Result<CftLeInfo> {
        // SAFETY: out is valid for the call.
        le_info(|out| unsafe { sys::ncore_window_multimem_le_info(self.as_raw(), offset, out) })
    }

    /// The logical endpoint address of byte `offset` of the part of member
    /// `peer_cft` of `cft_team`, a team from [`Communicator::team_cft`]
    /// (`ncclGetCftDeviceLeInfo`).
    pub fn cft_le_info(&self, peer_cft: i32, cft_team: Team, offset: usize) -> Result<CftLeInfo> {
        let team = cft_team.to_raw();
        // SAFETY: team and out are valid for the call; nothing is kept.
        le_info(|out| unsafe {
            sys::ncore_window_cft_le_info(self.as_raw(), offset, peer_cft, &team, out)
        })
    }

    /// The logical endpoint address of byte `offset` of world rank `peer`'s
    /// part (`ncclGetPeerDeviceLeInfo`).
    pub fn peer_le_info(&self, peer: i32, offset: usize) -> Result<CftLeInfo> {
        // SAFETY: out is valid for the call.
        le_info(|out| unsafe { sys::ncore_window_peer_le_info(self.as_raw(), offset, peer, out) })
    }
}
