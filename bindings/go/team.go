package ncore

/*
#include "ncgo.h"
*/
import "C"

// Team is a strided subset of a communicator's ranks as the calling rank
// sees it (ncore_team_t; NCCL's struct ncclTeam): NRanks members, the caller
// is member Rank, neighbours are Stride world ranks apart. The library
// computes teams and conversions on every backend and every NCCL.
type Team struct {
	NRanks, Rank, Stride int
}

func (t Team) toC() C.ncore_team_t {
	return C.ncore_team_t{n_ranks: C.int32_t(t.NRanks), rank: C.int32_t(t.Rank), stride: C.int32_t(t.Stride)}
}

func teamFromC(t C.ncore_team_t) Team {
	return Team{NRanks: int(t.n_ranks), Rank: int(t.rank), Stride: int(t.stride)}
}

func (c *Communicator) teamQuery(q func(C.ncore_comm_t, *C.ncore_team_t) C.ncgo_result) (Team, error) {
	out, err := query(c, func(o *C.ncore_team_t) C.ncgo_result { return q(c.ch(), o) })
	return teamFromC(out), err
}

// TeamWorld is the world team: every rank, stride 1 (ncclTeamWorld).
func (c *Communicator) TeamWorld() (Team, error) {
	return c.teamQuery(func(h C.ncore_comm_t, o *C.ncore_team_t) C.ncgo_result { return C.ncgo_comm_team_world(h, o) })
}

// TeamLSA is this rank's load/store-accessible team (ncclTeamLsa).
func (c *Communicator) TeamLSA() (Team, error) {
	return c.teamQuery(func(h C.ncore_comm_t, o *C.ncore_team_t) C.ncgo_result { return C.ncgo_comm_team_lsa(h, o) })
}

// TeamRail is this rank's rail team: the ranks with its index in every LSA
// team (ncclTeamRail).
func (c *Communicator) TeamRail() (Team, error) {
	return c.teamQuery(func(h C.ncore_comm_t, o *C.ncore_team_t) C.ncgo_result { return C.ncgo_comm_team_rail(h, o) })
}

// teamConvert converts member teamRank of team with q (to world or LSA).
func (c *Communicator) teamConvert(q func(C.ncore_comm_t, *C.ncore_team_t, C.int, *C.int) C.ncgo_result, team Team, teamRank int) (int, error) {
	raw := team.toC()
	out, err := query(c, func(o *C.int) C.ncgo_result { return q(c.ch(), &raw, C.int(teamRank), o) })
	return int(out), err
}

// TeamRankToWorld is the world rank of member teamRank of team
// (ncclTeamRankToWorld); ErrInvalid for a malformed team or a member
// outside it.
func (c *Communicator) TeamRankToWorld(team Team, teamRank int) (int, error) {
	return c.teamConvert(func(h C.ncore_comm_t, t *C.ncore_team_t, r C.int, o *C.int) C.ncgo_result {
		return C.ncgo_comm_team_rank_to_world(h, t, r, o)
	}, team, teamRank)
}

// TeamRankToLSA is the index in TeamLSA of member teamRank of team
// (ncclTeamRankToLsa); ErrInvalid when that member is not in this rank's
// LSA team.
func (c *Communicator) TeamRankToLSA(team Team, teamRank int) (int, error) {
	return c.teamConvert(func(h C.ncore_comm_t, t *C.ncore_team_t, r C.int, o *C.int) C.ncgo_result {
		return C.ncgo_comm_team_rank_to_lsa(h, t, r, o)
	}, team, teamRank)
}
