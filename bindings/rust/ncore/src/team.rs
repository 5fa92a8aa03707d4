//! Teams (`ncore/team.h`): strided subsets of a communicator's ranks as
//! NCCL's device API names them (`struct ncclTeam`). The library computes
//! the teams and the rank conversions, on every backend and every NCCL.

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::error::{check, Result};

/// A team as the calling rank sees it (`ncore_team_t`): `n_ranks` members,
/// the caller is member `rank`, neighbours are `stride` world ranks apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Team {
    /// Number of members.
    pub n_ranks: i32,
    /// The calling rank's index in the team.
    pub rank: i32,
    /// World ranks between neighbouring members.
    pub stride: i32,
}

impl Team {
    pub(crate) fn to_raw(self) -> sys::ncore_team_t {
        sys::ncore_team_t {
            n_ranks: self.n_ranks,
            rank: self.rank,
            stride: self.stride,
        }
    }
}

impl Communicator {
    fn team_query(
        &self,
        f: unsafe extern "C" fn(u64, *mut sys::ncore_team_t) -> sys::ncore_status_t,
    ) -> Result<Team> {
        let mut raw = sys::ncore_team_t {
            n_ranks: 0,
            rank: 0,
            stride: 0,
        };
        // SAFETY: f is one of the library's team queries; raw is valid.
        check(unsafe { f(self.as_raw(), &mut raw) })?;
        Ok(Team {
            n_ranks: raw.n_ranks,
            rank: raw.rank,
            stride: raw.stride,
        })
    }

    /// The world team: every rank, stride 1 (`ncclTeamWorld`).
    pub fn team_world(&self) -> Result<Team> {
        self.team_query(sys::ncore_comm_team_world)
    }

    /// This rank's load/store-accessible team (`ncclTeamLsa`).
    pub fn team_lsa(&self) -> Result<Team> {
        self.team_query(sys::ncore_comm_team_lsa)
    }

    /// This rank's rail team: its index in every LSA team (`ncclTeamRail`).
    pub fn team_rail(&self) -> Result<Team> {
        self.team_query(sys::ncore_comm_team_rail)
    }

    /// Member `team_rank` of `team` converted by `f` (to world or LSA).
    fn team_convert(
        &self,
        f: unsafe extern "C" fn(
            u64,
            *const sys::ncore_team_t,
            i32,
            *mut i32,
        ) -> sys::ncore_status_t,
        team: Team,
        team_rank: i32,
    ) -> Result<i32> {
        let raw = team.to_raw();
        let mut out = -1;
        // SAFETY: f is one of the library's team conversions; raw and out
        // are valid for the call; nothing is kept.
        check(unsafe { f(self.as_raw(), &raw, team_rank, &mut out) })?;
        Ok(out)
    }

    /// The world rank of member `team_rank` of `team`
    /// (`ncclTeamRankToWorld`); `InvalidArgument` for a malformed team or a
    /// member outside it.
    pub fn team_rank_to_world(&self, team: Team, team_rank: i32) -> Result<i32> {
        self.team_convert(sys::ncore_comm_team_rank_to_world, team, team_rank)
    }

    /// The index in [`Communicator::team_lsa`] of member `team_rank` of
    /// `team` (`ncclTeamRankToLsa`); `InvalidArgument` when that member is
    /// not in this rank's LSA team.
    pub fn team_rank_to_lsa(&self, team: Team, team_rank: i32) -> Result<i32> {
        self.team_convert(sys::ncore_comm_team_rank_to_lsa, team, team_rank)
    }
}
