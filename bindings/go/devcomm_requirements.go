package ncore

/*
#include <stdlib.h>
#include "ncgo.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// A device communicator's team and resource requirements and the handles
// NCCL returns for them (ncore/devcomm.h, ABI 1.2; nccl4py 0.4.1's
// TeamRequirement, LsaBarrierRequirement, GinBarrierRequirement,
// LLA2ARequirement and their handles). ncore calls NCCL's
// nccl*CreateRequirement helpers and chains NCCL's lists itself.

// TeamRequirement is one team's requirement (ncore_team_requirement_t):
// with Multimem the device communicator gets a multimem handle for the team
// (DevComm.MultimemHandle). Requirements for the same team merge.
type TeamRequirement struct {
	Team     Team
	Multimem bool
}

// ResourceKind names a device resource (ncore_dev_resource_kind_t).
type ResourceKind int32

// The resource kinds.
const (
	ResourceLSABarrier ResourceKind = C.NCORE_DEV_RESOURCE_LSA_BARRIER // ncclLsaBarrierCreateRequirement
	ResourceGinBarrier ResourceKind = C.NCORE_DEV_RESOURCE_GIN_BARRIER // ncclGinBarrierCreateRequirement
	ResourceLLA2A      ResourceKind = C.NCORE_DEV_RESOURCE_LL_A2A      // ncclLLA2ACalcSlots + ncclLLA2ACreateRequirement
)

// ResourceRequirement is one device resource's requirement
// (ncore_dev_resource_requirement_t). Barriers use Team and NBarriers, an
// LL all-to-all NBlocks, MaxElements and MaxElementSize; the fields a kind
// does not use must be zero. LSABarrier, GinBarrier and LLA2A make them.
type ResourceRequirement struct {
	Kind                                 ResourceKind
	Team                                 Team
	NBarriers                            int32
	NBlocks, MaxElements, MaxElementSize int32
}

// LSABarrier asks for nBarriers LSA barriers over team.
func LSABarrier(team Team, nBarriers int32) ResourceRequirement {
	return ResourceRequirement{Kind: ResourceLSABarrier, Team: team, NBarriers: nBarriers}
}

// GinBarrier asks for nBarriers GIN barriers over team.
func GinBarrier(team Team, nBarriers int32) ResourceRequirement {
	return ResourceRequirement{Kind: ResourceGinBarrier, Team: team, NBarriers: nBarriers}
}

// LLA2A asks for a low-latency all-to-all of nBlocks blocks holding up to
// maxElements elements of at most maxElementSize bytes.
func LLA2A(nBlocks, maxElements, maxElementSize int32) ResourceRequirement {
	return ResourceRequirement{Kind: ResourceLLA2A, NBlocks: nBlocks, MaxElements: maxElements,
		MaxElementSize: maxElementSize}
}

// ResourceHandle is what NCCL returned for one ResourceRequirement
// (ncore_dev_resource_handle_t): an LSA barrier's BufHandle and NBarriers,
// a GIN barrier's Signal0, an LL all-to-all's BufHandle and NSlots.
type ResourceHandle struct {
	Kind      ResourceKind
	BufHandle uint32
	NBarriers int32
	Signal0   uint32
	NSlots    uint32
}

// MultimemHandle is a team's multimem handle (ncore_multimem_handle_t):
// the multicast base NCCL gave the team, 0 when it gave none.
type MultimemHandle struct {
	MCBasePointer uintptr
}

// cArray copies n elements made by fill into C memory (the library reads
// them during the call; Go memory must not hold the pointer cgo passes).
func cArray[T any](n int, fill func(i int, e *T)) *T {
	if n == 0 {
		return nil
	}
	var zero T
	p := (*T)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(zero))))
	elements := unsafe.Slice(p, n)
	for i := range elements {
		fill(i, &elements[i])
	}
	return p
}

// CreateDevCommWith creates a device communicator with team and resource
// requirements (collective); req nil means the defaults for the rest. The
// handles come back through DevComm.ResourceHandles and MultimemHandle.
func (c *Communicator) CreateDevCommWith(req *DevCommRequirements, teams []TeamRequirement,
	resources []ResourceRequirement) (*DevComm, error) {
	if req == nil {
		req = &DevCommRequirements{}
	}
	cteams := cArray(len(teams), func(i int, e *C.ncore_team_requirement_t) {
		e.struct_size = C.uint32_t(C.sizeof_ncore_team_requirement_t)
		e.team = teams[i].Team.toC()
		e.multimem = boolInt(teams[i].Multimem)
	})
	defer C.free(unsafe.Pointer(cteams))
	cresources := cArray(len(resources), func(i int, e *C.ncore_dev_resource_requirement_t) {
		r := resources[i]
		e.struct_size = C.uint32_t(C.sizeof_ncore_dev_resource_requirement_t)
		e.kind = C.int32_t(r.Kind)
		e.team = r.Team.toC()
		e.n_barriers = C.int32_t(r.NBarriers)
		e.n_blocks = C.int32_t(r.NBlocks)
		e.max_elements = C.int32_t(r.MaxElements)
		e.max_element_size = C.int32_t(r.MaxElementSize)
	})
	defer C.free(unsafe.Pointer(cresources))
	return c.createDevComm(req, func(creq *C.ncore_dev_comm_requirements_t) {
		creq.teams = cteams
		creq.team_count = C.int32_t(len(teams))
		creq.resources = cresources
		creq.resource_count = C.int32_t(len(resources))
	})
}

// ResourceHandles are the handles NCCL returned for the requirements'
// resources, in their order.
func (d *DevComm) ResourceHandles() ([]ResourceHandle, error) {
	info, err := d.Info()
	if err != nil {
		return nil, err
	}
	handles := make([]ResourceHandle, 0, info.ResourceCount)
	for i := 0; i < info.ResourceCount; i++ {
		h, err := d.ResourceHandle(i)
		if err != nil {
			return nil, err
		}
		handles = append(handles, h)
	}
	return handles, nil
}

// ResourceHandle is the handle of resource index (0-based, the
// requirements' order); ErrInvalid outside [0, ResourceCount).
func (d *DevComm) ResourceHandle(index int) (ResourceHandle, error) {
	n := cNumbers{function: "ncore_dev_comm_resource_handle"}
	cindex := n.int("index", index)
	if n.err != nil {
		return ResourceHandle{}, n.err
	}
	h, err := query(d, func(o *C.ncore_dev_resource_handle_t) C.ncgo_result {
		o.struct_size = C.uint32_t(C.sizeof_ncore_dev_resource_handle_t)
		return C.ncgo_dev_comm_resource_handle(d.dh(), cindex, o)
	})
	return ResourceHandle{Kind: ResourceKind(h.kind), BufHandle: uint32(h.buf_handle),
		NBarriers: int32(h.n_barriers), Signal0: uint32(h.signal0), NSlots: uint32(h.n_slots)}, err
}

// MultimemHandle is the multimem handle NCCL returned for team, asked for
// with TeamRequirement{Multimem: true}; ErrInvalid for a team not asked so.
func (d *DevComm) MultimemHandle(team Team) (MultimemHandle, error) {
	defer runtime.KeepAlive(d)
	out := (*C.ncore_multimem_handle_t)(C.calloc(1, C.sizeof_ncore_multimem_handle_t))
	defer C.free(unsafe.Pointer(out))
	out.struct_size = C.uint32_t(C.sizeof_ncore_multimem_handle_t)
	cteam := team.toC()
	if err := fromResult(C.ncgo_dev_comm_multimem_handle(d.dh(), &cteam, out)); err != nil {
		return MultimemHandle{}, err
	}
	return MultimemHandle{MCBasePointer: uintptr(out.mc_base_pointer)}, nil
}

// MultimemDevicePointer is the multicast pointer to byte offset through a
// team's multimem handle; ok is false where there is none (always on the
// host backend).
func (w *Window) MultimemDevicePointer(multimem MultimemHandle, offset int) (addr uintptr, ok bool, err error) {
	n := cNumbers{function: "ncore_window_multimem_device_pointer"}
	coffset := n.size("offset", offset)
	handle := (*C.ncore_multimem_handle_t)(C.calloc(1, C.sizeof_ncore_multimem_handle_t))
	defer C.free(unsafe.Pointer(handle))
	handle.struct_size = C.uint32_t(C.sizeof_ncore_multimem_handle_t)
	// A device address, not Go memory: stored as the integer it is (the
	// struct is C memory, so no Go pointer rules apply to it).
	*(*uintptr)(unsafe.Pointer(&handle.mc_base_pointer)) = multimem.MCBasePointer
	return w.pointerQuery(&n, func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_window_multimem_device_pointer(w.wh(), handle, coffset, o)
	})
}
