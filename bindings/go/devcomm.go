package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// DevCommRequirements ask for device-communicator resources
// (ncore_dev_comm_requirements_t, nccl.core NCCLDevCommRequirements). The
// zero value is the default: GinContextCount 0 and nil optional fields mean
// NCCL's default (4 contexts; the others as NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER).
// An optional field the loaded NCCL does not know, when set, fails with
// StatusNotSupported naming it.
type DevCommRequirements struct {
	// StructSize overrides struct_size; 0 means this binding's
	// sizeof(ncore_dev_comm_requirements_t). For exercising the ABI's
	// versioning; the library rejects sizes it cannot read.
	StructSize uint32
	// NCCL's ncclDevResourceRequirements_t* / ncclTeamRequirements_t* lists,
	// as addresses, passed through to NCCL; must be 0 on the host backend.
	ResourceRequirementsList uintptr
	TeamRequirementsList     uintptr
	LSAMultimem              bool
	BarrierCount             int32
	LSABarrierCount          int32
	RailGinBarrierCount      int32
	LSALLA2ABlockCount       int32
	LSALLA2ASlotCount        int32
	GinForceEnable           bool
	GinContextCount          int32
	GinSignalCount           int32
	GinCounterCount          int32
	GinConnectionType        GinConnectionType
	GinExclusiveContexts     *bool  // NCCL 2.29.5+
	GinQueueDepth            *int32 // NCCL 2.29.5+
	GinTrafficClass          *int32 // NCCL 2.30+
	WorldGinBarrierCount     *int32 // NCCL 2.30+
	GinStrongSignalsRequired *bool  // NCCL 2.30.7+
	GinVASignalsRequired     *bool  // NCCL 2.30.7+
	// NCCL 2.32: the GIN rank stride for a custom-stride connection, the
	// GIN transport to require, CFT capabilities (a bitmask: 1 CFT, 2 CFT
	// multimem) and CFT barriers.
	GinCustomStride *int32
	GinType         *GinType
	CFTCaps         *int32
	CFTBarrierCount *int32
}

// optInt is *v, or ConfigUndef for nil (NCCL's default).
func optInt(v *int32) C.int32_t {
	if v == nil {
		return C.int32_t(ConfigUndef)
	}
	return C.int32_t(*v)
}

// optBool is 0/1, or ConfigUndef for nil.
func optBool(v *bool) C.int32_t {
	if v == nil {
		return C.int32_t(ConfigUndef)
	}
	return boolInt(*v)
}

// DevCommInfo is what a device communicator provides (ncore_dev_comm_info_t).
type DevCommInfo struct {
	Rank, NRanks     int
	LSARank, LSASize int
	GinType          GinType
	RailedGinType    GinType
	GinContextCount  int
	GinSignalCount   int
	GinCounterCount  int
	LSAMultimem      bool
	ResourceCount    int // ABI 1.2: how many ResourceHandles
}

// DevComm is a device communicator (nccl.core DevCommResource): kernels use
// its Pointer. Closed by Close or with its communicator; a finalizer closes
// it if it is garbage collected while open.
type DevComm struct{ resource }

// boolInt is 1 for true.
func boolInt(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// CreateDevComm creates a device communicator (ncore_create_dev_comm).
// Collective. req nil means the defaults.
func (c *Communicator) CreateDevComm(req *DevCommRequirements) (*DevComm, error) {
	return c.createDevComm(req, nil)
}

// createDevComm fills the C requirements from req (nil: the library's
// defaults) and then with more (CreateDevCommWith's arrays), and creates.
func (c *Communicator) createDevComm(req *DevCommRequirements,
	more func(*C.ncore_dev_comm_requirements_t)) (*DevComm, error) {
	defer runtime.KeepAlive(c)
	var creq *C.ncore_dev_comm_requirements_t
	var lists [2]C.uintptr_t
	if req != nil {
		creq = &C.ncore_dev_comm_requirements_t{}
		if err := fromResult(C.ncgo_dev_comm_requirements_init(creq, C.sizeof_ncore_dev_comm_requirements_t)); err != nil {
			return nil, err
		}
		lists = [2]C.uintptr_t{C.uintptr_t(req.ResourceRequirementsList), C.uintptr_t(req.TeamRequirementsList)}
		creq.lsa_multimem = boolInt(req.LSAMultimem)
		creq.barrier_count = C.int32_t(req.BarrierCount)
		creq.lsa_barrier_count = C.int32_t(req.LSABarrierCount)
		creq.rail_gin_barrier_count = C.int32_t(req.RailGinBarrierCount)
		creq.lsa_ll_a2a_block_count = C.int32_t(req.LSALLA2ABlockCount)
		creq.lsa_ll_a2a_slot_count = C.int32_t(req.LSALLA2ASlotCount)
		creq.gin_force_enable = boolInt(req.GinForceEnable)
		if req.GinContextCount != 0 {
			creq.gin_context_count = C.int32_t(req.GinContextCount)
		}
		creq.gin_signal_count = C.int32_t(req.GinSignalCount)
		creq.gin_counter_count = C.int32_t(req.GinCounterCount)
		creq.gin_connection_type = C.int32_t(req.GinConnectionType)
		creq.gin_exclusive_contexts = optBool(req.GinExclusiveContexts)
		creq.gin_queue_depth = optInt(req.GinQueueDepth)
		creq.gin_traffic_class = optInt(req.GinTrafficClass)
		creq.world_gin_barrier_count = optInt(req.WorldGinBarrierCount)
		creq.gin_strong_signals_required = optBool(req.GinStrongSignalsRequired)
		creq.gin_va_signals_required = optBool(req.GinVASignalsRequired)
		creq.gin_custom_stride = optInt(req.GinCustomStride)
		creq.gin_type = C.int32_t(ConfigUndef)
		if req.GinType != nil {
			creq.gin_type = C.int32_t(*req.GinType)
		}
		creq.cft_caps = optInt(req.CFTCaps)
		creq.cft_barrier_count = optInt(req.CFTBarrierCount)
		if more != nil {
			more(creq)
		}
		if req.StructSize != 0 {
			creq.struct_size = C.uint32_t(req.StructSize)
		}
	}
	var h C.ncore_dev_comm_t
	if err := fromResult(C.ncgo_create_dev_comm(&h, c.ch(), creq, lists[0], lists[1])); err != nil {
		return nil, err
	}
	return owned(&DevComm{resource{uint64(h), &devCommKind}}), nil
}

// dh is the handle as the C calls take it.
func (d *DevComm) dh() C.ncore_dev_comm_t { return C.ncore_dev_comm_t(d.handle) }

// Pointer is the address of the ncclDevComm_t (host backend: of a host
// description of the team), owned by the library while d is open.
func (d *DevComm) Pointer() (uintptr, error) {
	p, err := query(d, func(o *C.uintptr_t) C.ncgo_result { return C.ncgo_dev_comm_pointer(d.dh(), o) })
	return uintptr(p), err
}

// Info says what the device communicator provides.
func (d *DevComm) Info() (DevCommInfo, error) {
	ci, err := query(d, func(o *C.ncore_dev_comm_info_t) C.ncgo_result {
		// This binding's own size: the library writes no more than that.
		o.struct_size = C.uint32_t(C.sizeof_ncore_dev_comm_info_t)
		return C.ncgo_dev_comm_info(d.dh(), o)
	})
	if err != nil {
		return DevCommInfo{}, err
	}
	return DevCommInfo{
		Rank: int(ci.rank), NRanks: int(ci.nranks), LSARank: int(ci.lsa_rank), LSASize: int(ci.lsa_size),
		GinType: GinType(ci.gin_type), RailedGinType: GinType(ci.railed_gin_type),
		GinContextCount: int(ci.gin_context_count), GinSignalCount: int(ci.gin_signal_count),
		GinCounterCount: int(ci.gin_counter_count), LSAMultimem: ci.lsa_multimem != 0,
		ResourceCount: int(ci.resource_count),
	}, nil
}
