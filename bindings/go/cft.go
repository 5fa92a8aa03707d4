package ncore

/*
#include "ncgo.h"
*/
import "C"

// CFT, Compute Fabric Transport (ncore/cft.h): a communicator's CFT teams
// and the logical endpoint addresses of a window's memory, as NCCL 2.31+
// answers them. The host backend and older NCCL refuse every call with
// ErrNotSupported naming NCCL 2.31.

// CFTTeamMode is the layout of the CFT team TeamCFT answers (nccl.core
// NcclCftTeamMode; ncclCftTeamMode_t).
type CFTTeamMode int32

// The CFT team layouts.
const (
	// CFTTeamFlat: every rank of the CFT unicast group.
	CFTTeamFlat CFTTeamMode = C.NCORE_CFT_TEAM_FLAT
	// CFTTeamHierMultimem: the unicast group's ranks with this rank's index
	// in every multicast group.
	CFTTeamHierMultimem CFTTeamMode = C.NCORE_CFT_TEAM_HIER_MULTIMEM
	// CFTTeamHierLSA: the unicast group's ranks with this rank's index in
	// every LSA team.
	CFTTeamHierLSA CFTTeamMode = C.NCORE_CFT_TEAM_HIER_LSA
)

// CFTCap is a bit of a device communicator's CFT capabilities (nccl.core
// NcclCftCap; ncclCftCap_t); or them together.
type CFTCap int32

// The CFT capability bits.
const (
	CFTCapNone     CFTCap = C.NCORE_CFT_CAP_NONE
	CFTCapCFT      CFTCap = C.NCORE_CFT_CAP_CFT
	CFTCapMultimem CFTCap = C.NCORE_CFT_CAP_MULTIMEM
)

// CFTLeInfo is a logical endpoint address (nccl.core CftLeInfo): the
// endpoint's id and the byte offset in it, which a kernel's CFT operations
// take instead of a pointer.
type CFTLeInfo struct {
	LeID     uint32
	LeOffset uint64
}

// TeamCFT is this rank's CFT team in the layout mode (ncclTeamCft).
func (c *Communicator) TeamCFT(mode CFTTeamMode) (Team, error) {
	return c.teamQuery(func(h C.ncore_comm_t, o *C.ncore_team_t) C.ncgo_result {
		return C.ncgo_comm_team_cft(h, C.int(mode), o)
	})
}

// TeamCFTMultimem is this rank's CFT multimem team (ncclTeamCftMultimem).
func (c *Communicator) TeamCFTMultimem() (Team, error) {
	return c.teamQuery(func(h C.ncore_comm_t, o *C.ncore_team_t) C.ncgo_result {
		return C.ncgo_comm_team_cft_multimem(h, o)
	})
}

func (w *Window) leInfo(n *cNumbers, q func(*C.ncore_cft_le_info_t) C.ncgo_result) (CFTLeInfo, error) {
	if n.err != nil {
		return CFTLeInfo{}, n.err
	}
	out, err := query(w, q)
	return CFTLeInfo{LeID: uint32(out.le_id), LeOffset: uint64(out.le_offset)}, err
}

// MultimemLeInfo is the multicast logical endpoint address of byte offset
// of this rank's part (ncclGetMultimemDeviceLeInfo).
func (w *Window) MultimemLeInfo(offset int) (CFTLeInfo, error) {
	n := cNumbers{function: "ncore_window_multimem_le_info"}
	coffset := n.size("offset", offset)
	return w.leInfo(&n, func(o *C.ncore_cft_le_info_t) C.ncgo_result {
		return C.ncgo_window_multimem_le_info(w.wh(), coffset, o)
	})
}

// CFTLeInfo is the logical endpoint address of byte offset of the part of
// member peerCFT of cftTeam, a team from TeamCFT (ncclGetCftDeviceLeInfo).
func (w *Window) CFTLeInfo(peerCFT int, cftTeam Team, offset int) (CFTLeInfo, error) {
	n := cNumbers{function: "ncore_window_cft_le_info"}
	cpeer, coffset := n.int("peer_cft", peerCFT), n.size("offset", offset)
	team := cftTeam.toC()
	return w.leInfo(&n, func(o *C.ncore_cft_le_info_t) C.ncgo_result {
		return C.ncgo_window_cft_le_info(w.wh(), coffset, cpeer, &team, o)
	})
}

// PeerLeInfo is the logical endpoint address of byte offset of world rank
// peer's part (ncclGetPeerDeviceLeInfo).
func (w *Window) PeerLeInfo(peer, offset int) (CFTLeInfo, error) {
	n := cNumbers{function: "ncore_window_peer_le_info"}
	cpeer, coffset := n.int("peer", peer), n.size("offset", offset)
	return w.leInfo(&n, func(o *C.ncore_cft_le_info_t) C.ncgo_result {
		return C.ncgo_window_peer_le_info(w.wh(), coffset, cpeer, o)
	})
}
