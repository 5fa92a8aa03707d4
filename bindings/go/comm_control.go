package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// SuspendFlags are Communicator.Suspend's flags (NCORE_SUSPEND_*).
type SuspendFlags uint32

// SuspendMem releases the communicator's dynamic device memory while
// suspended (NCORE_SUSPEND_MEM).
const SuspendMem SuspendFlags = C.NCORE_SUSPEND_MEM

// MemStat is what Communicator.MemStat reports (ncore_comm_mem_stat_t).
type MemStat int

const (
	// MemStatGPUMemSuspend: bytes of device memory a suspend can release.
	MemStatGPUMemSuspend MemStat = C.NCORE_COMM_MEM_STAT_GPU_MEM_SUSPEND
	// MemStatGPUMemSuspended: 1 while suspended, else 0.
	MemStatGPUMemSuspended MemStat = C.NCORE_COMM_MEM_STAT_GPU_MEM_SUSPENDED
	// MemStatGPUMemPersist: bytes kept while suspended.
	MemStatGPUMemPersist MemStat = C.NCORE_COMM_MEM_STAT_GPU_MEM_PERSIST
	// MemStatGPUMemTotal: all bytes held.
	MemStatGPUMemTotal MemStat = C.NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL
)

// CommProperties is what a communicator can do (ncore_comm_properties_t).
type CommProperties struct {
	Rank, NRanks           int
	CUDADevice, NVMLDevice int // -1 on the host backend
	DeviceAPISupport       bool
	MultimemSupport        bool
	GinType, RailedGinType GinType
	NLSATeams              int
	HostRMASupport         bool // one-sided calls reach peers outside the LSA team
	// NCCL 2.31+ (zero before; the host backend: no GIN, its own hash):
	// the widest GIN connection a device communicator may ask for, the
	// granularity of a custom GIN stride, a hash equal on all ranks of the
	// communicator, the available GIN types, the bytes of the running
	// NCCL's device communicator (the loaded version's own before 2.31).
	GinConnectionType         GinConnectionType
	GinMinStride              int
	CommHash                  uint64
	AvailableGinTypes         []GinType
	DevCommRuntimeVersionSize uint64
	// NCCL 2.32+ CFT support over every rank (unicast endpoints, multicast
	// ones, counted operations): CFTNo before 2.32 and on the host backend,
	// CFTUnknown on 2.32 (a layout this ncore does not read yet).
	CFTSupport, CFTMulticastSupport, CFTCountedSupport CFTAnswer
}

// CFTAnswer is one of CommProperties' CFT fields: CFTNo, CFTYes or
// CFTUnknown.
type CFTAnswer int32

const (
	CFTNo      CFTAnswer = 0
	CFTYes     CFTAnswer = 1
	CFTUnknown CFTAnswer = -1
)

// Properties reads the communicator's properties (ncore_comm_properties).
func (c *Communicator) Properties() (CommProperties, error) {
	defer runtime.KeepAlive(c)
	var p C.ncore_comm_properties_t
	p.struct_size = C.sizeof_ncore_comm_properties_t
	if err := fromResult(C.ncgo_comm_properties(c.ch(), &p)); err != nil {
		return CommProperties{}, err
	}
	return CommProperties{
		Rank: int(p.rank), NRanks: int(p.nranks),
		CUDADevice: int(p.cuda_device), NVMLDevice: int(p.nvml_device),
		DeviceAPISupport: p.device_api_support != 0, MultimemSupport: p.multimem_support != 0,
		GinType: GinType(p.gin_type), RailedGinType: GinType(p.railed_gin_type),
		NLSATeams: int(p.n_lsa_teams), HostRMASupport: p.host_rma_support != 0,
		GinConnectionType: GinConnectionType(p.gin_connection_type),
		GinMinStride:      int(p.gin_min_stride), CommHash: uint64(p.comm_hash),
		AvailableGinTypes:         ginTypesOf(uint64(p.available_gin_types)),
		DevCommRuntimeVersionSize: uint64(p.dev_comm_runtime_version_size),
		CFTSupport:                CFTAnswer(p.cft_support),
		CFTMulticastSupport:       CFTAnswer(p.cft_multicast_support),
		CFTCountedSupport:         CFTAnswer(p.cft_counted_support),
	}, nil
}

// ginTypesOf lists the GIN types whose bits are set in mask.
func ginTypesOf(mask uint64) []GinType {
	var types []GinType
	for t := 0; t < 64; t++ {
		if mask>>t&1 != 0 {
			types = append(types, GinType(t))
		}
	}
	return types
}

// Revoke revokes the communicator (ncore_comm_revoke, NCCL 2.28.7+): later
// communicating calls fail with StatusInvalidUsage; queries, Split, Shrink,
// Synchronize, Abort and Destroy remain.
func (c *Communicator) Revoke() error {
	defer runtime.KeepAlive(c)
	return fromResult(C.ncgo_comm_revoke(c.ch(), C.NCORE_REVOKE_DEFAULT))
}

// GetUniqueID makes the id new ranks join with in Grow
// (ncore_comm_get_unique_id, NCCL 2.29.2+); one at a time.
func (c *Communicator) GetUniqueID() (UniqueID, error) {
	defer runtime.KeepAlive(c)
	var cid C.ncore_unique_id_t
	var id UniqueID
	if err := fromResult(C.ncgo_comm_get_unique_id(c.ch(), &cid)); err != nil {
		return id, err
	}
	for i := range id {
		id[i] = byte(cid.internal[i])
	}
	return id, nil
}

// Grow is an existing rank's part of ncore_comm_grow (NCCL 2.29.2+): id at
// the root (from GetUniqueID), nil elsewhere; existing ranks keep their
// ranks. cfg nil inherits this communicator's.
func (c *Communicator) Grow(nranks int, id *UniqueID, cfg *Config) (*Communicator, error) {
	defer runtime.KeepAlive(c)
	return grow(c.ch(), nranks, id, -1, cfg)
}

// JoinGrow is a new rank's part of a grow: it joins with the root's id as
// rank (in [old size, nranks)).
func JoinGrow(nranks int, id UniqueID, rank int, cfg *Config) (*Communicator, error) {
	return grow(C.NCORE_NULL_HANDLE, nranks, &id, rank, cfg)
}

func grow(h C.ncore_comm_t, nranks int, id *UniqueID, rank int, cfg *Config) (*Communicator, error) {
	cc, err := cfg.toC()
	if err != nil {
		return nil, err
	}
	defer cc.free()
	var cid *C.ncore_unique_id_t
	if id != nil {
		v := id.toC()
		cid = &v
	}
	n := cNumbers{function: "ncore_comm_grow"}
	cnranks, crank := n.int("nranks", nranks), n.int("rank", rank)
	if n.err != nil {
		return nil, n.err
	}
	var out C.ncore_comm_t
	if err := fromResult(C.ncgo_comm_grow(h, cnranks, cid, crank, &out, cc.ptr())); err != nil {
		return nil, err
	}
	return newCommunicator(out)
}

// Suspend suspends the communicator (ncore_comm_suspend, NCCL 2.29.7+):
// communicating calls fail with StatusInvalidUsage until Resume.
func (c *Communicator) Suspend(flags SuspendFlags) error {
	defer runtime.KeepAlive(c)
	return fromResult(C.ncgo_comm_suspend(c.ch(), C.uint32_t(flags)))
}

// Resume resumes a suspended communicator (ncore_comm_resume).
func (c *Communicator) Resume() error {
	defer runtime.KeepAlive(c)
	return fromResult(C.ncgo_comm_resume(c.ch()))
}

// MemStat reads one memory statistic (ncore_comm_mem_stat, NCCL 2.29.7+).
func (c *Communicator) MemStat(stat MemStat) (uint64, error) {
	defer runtime.KeepAlive(c)
	n := cNumbers{function: "ncore_comm_mem_stat"}
	cstat := n.int("stat", int(stat))
	if n.err != nil {
		return 0, n.err
	}
	var v C.uint64_t
	err := fromResult(C.ncgo_comm_mem_stat(c.ch(), cstat, &v))
	return uint64(v), err
}

// InitRankScalable is InitRank with several bootstrap roots
// (ncore_comm_init_rank_scalable): every rank passes the same ids.
func InitRankScalable(nranks, rank int, ids []UniqueID, cfg *Config) (*Communicator, error) {
	cc, err := cfg.toC()
	if err != nil {
		return nil, err
	}
	defer cc.free()
	cids := make([]C.ncore_unique_id_t, len(ids)+1) // +1: never empty
	for i := range ids {
		cids[i] = ids[i].toC()
	}
	n := cNumbers{function: "ncore_comm_init_rank_scalable"}
	cnranks, crank, ccount := n.int("nranks", nranks), n.int("rank", rank), n.int("id_count", len(ids))
	if n.err != nil {
		return nil, n.err
	}
	var h C.ncore_comm_t
	if err := fromResult(C.ncgo_comm_init_rank_scalable(&h, cnranks, crank, ccount, &cids[0], cc.ptr())); err != nil {
		return nil, err
	}
	return newCommunicator(h)
}
