package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Groups belong to the calling OS thread in C (ncclGroupStart), so the Go
// side keeps its own record per thread id: how deep the group is and which Go
// slices were staged through C memory for it (see the package doc).

// stagedBuffer is one Go slice copied into C memory for a queued call.
type stagedBuffer struct {
	cmem      unsafe.Pointer // C memory from ncgo_stage_alloc
	goMem     []byte         // the Go memory it mirrors (keeps it alive)
	writeBack bool           // copy C -> Go at the outermost GroupEnd
}

// groupState is one OS thread's open group.
type groupState struct {
	depth  int
	staged []stagedBuffer
}

var (
	groupsMu sync.Mutex
	groups   = map[uintptr]*groupState{}
	// openGroups counts threads with an open group, so calls outside any
	// group skip the lookup.
	openGroups int32
)

// currentGroup is this thread's open group, or nil. Only meaningful while
// the goroutine is locked to its thread, which GroupStart guarantees.
func currentGroup() *groupState {
	if atomic.LoadInt32(&openGroups) == 0 {
		return nil
	}
	tid := uintptr(C.ncgo_thread_id())
	groupsMu.Lock()
	defer groupsMu.Unlock()
	return groups[tid]
}

// GroupStart opens a group (ncore_group_start): until the matching GroupEnd,
// Send, Recv and collectives by this goroutine are only queued, then run
// together, so a rank can send to and receive from peers without deadlock
// and one goroutine can drive several communicators. Groups nest.
// It locks the goroutine to its OS thread until the outermost GroupEnd,
// because C groups are per thread.
func GroupStart() error {
	runtime.LockOSThread()
	var ctid C.uintptr_t
	if err := fromResult(C.ncgo_group_start(&ctid)); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	tid := uintptr(ctid)
	groupsMu.Lock()
	g := groups[tid]
	if g == nil {
		g = &groupState{}
		groups[tid] = g
		atomic.AddInt32(&openGroups, 1)
	}
	g.depth++
	groupsMu.Unlock()
	return nil
}

// GroupEnd closes a group (ncore_group_end); the outermost one runs the
// queued calls (host backend: to completion; NCCL: enqueued on their
// streams), copies staged receive buffers back into their Go slices and
// unlocks the OS thread. Without an open group it returns ErrInvalidUsage.
// If a queued call fails, its error is returned and the rest is abandoned.
func GroupEnd() error {
	var ctid C.uintptr_t
	err := fromResult(C.ncgo_group_end(&ctid))
	tid := uintptr(ctid)
	groupsMu.Lock()
	g := groups[tid]
	if g == nil {
		// No group of ours on this thread: nothing to unlock.
		groupsMu.Unlock()
		return err
	}
	g.depth--
	done := g.depth == 0
	if done {
		delete(groups, tid)
		atomic.AddInt32(&openGroups, -1)
	}
	groupsMu.Unlock()
	if done {
		g.flush()
	}
	runtime.UnlockOSThread()
	return err
}

// Group runs fn between GroupStart and GroupEnd and returns fn's error, else
// GroupEnd's. fn must make its calls on the calling goroutine.
func Group(fn func() error) (err error) {
	if err := GroupStart(); err != nil {
		return err
	}
	defer func() {
		endErr := GroupEnd()
		if err == nil {
			err = endErr
		}
	}()
	return fn()
}

// flush copies staged receive buffers back to Go and frees the C memory.
func (g *groupState) flush() {
	for _, s := range g.staged {
		if s.writeBack {
			C.ncgo_copy(unsafe.Pointer(&s.goMem[0]), s.cmem, C.size_t(len(s.goMem)))
		}
		C.ncgo_stage_free(s.cmem)
	}
	g.staged = nil
}

// stage copies a Go buffer into new C memory recorded in g, and returns its
// address. writeBack: the call writes the buffer.
func (g *groupState) stage(v bufferView, writeBack bool) uintptr {
	n := v.bytes()
	cmem := C.ncgo_stage_alloc(C.size_t(n))
	goMem := unsafe.Slice((*byte)(v.goPtr), n)
	if n > 0 {
		C.ncgo_copy(cmem, v.goPtr, C.size_t(n))
	}
	g.staged = append(g.staged, stagedBuffer{cmem: cmem, goMem: goMem, writeBack: writeBack && n > 0})
	return uintptr(cmem)
}

// cArgs is a buffer as a C wrapper takes it: a Go pointer or an address.
type cArgs struct {
	hp unsafe.Pointer
	dp C.uintptr_t
}

// bufferArgs prepares one buffer for a C call on comm: device memory passes
// through; a Go slice is refused on NCCL, staged inside a group, else passed
// directly (the host backend does not keep it past the call).
func bufferArgs(comm *Communicator, function, argument string, v bufferView, writes bool) (cArgs, error) {
	args, _, err := bufferPairArgs(comm, function, argument, "", v, bufferView{}, writes, false)
	return args, err
}

// immediateArgs prepares a buffer for a call that is never queued in a
// group (symmetric put / get): Go slices are refused on NCCL, else passed
// directly.
func immediateArgs(comm *Communicator, function, argument string, v bufferView) (cArgs, error) {
	if err := v.refused(function, argument); err != nil {
		return cArgs{}, err
	}
	if v.isGo && v.goPtr != nil && comm != nil && comm.backend == BackendNCCL {
		return cArgs{}, newError(StatusInvalid, function, argument,
			"is a Go slice, and the NCCL backend needs device memory (DeviceMemory or a DevicePtr)")
	}
	return directArgs(v), nil
}

// bufferPairArgs prepares a call's send and receive buffers together, so
// that in-place use (one inside the other) still aliases after staging.
func bufferPairArgs(comm *Communicator, function, sendArg, recvArg string, send, recv bufferView,
	sendWrites, recvWrites bool) (cArgs, cArgs, error) {
	for _, a := range []struct {
		name string
		v    bufferView
	}{{sendArg, send}, {recvArg, recv}} {
		if err := a.v.refused(function, a.name); err != nil {
			return cArgs{}, cArgs{}, err
		}
		if a.v.isGo && a.v.goPtr != nil && comm != nil && comm.backend == BackendNCCL {
			return cArgs{}, cArgs{}, newError(StatusInvalid, function, a.name,
				"is a Go slice, and the NCCL backend needs device memory (DeviceMemory or a DevicePtr)")
		}
	}
	// Device memory passes as it is, without asking for the thread's group
	// (a cgo call and a lock inside a group: most of a grouped call's cost).
	if !(send.isGo && send.goPtr != nil || recv.isGo && recv.goPtr != nil) {
		return directArgs(send), directArgs(recv), nil
	}
	g := currentGroup()
	if g == nil {
		return directArgs(send), directArgs(recv), nil
	}
	// Inside a group: stage Go memory. If one Go range lies inside the other,
	// stage the outer one and point the inner one into the copy.
	if send.isGo && recv.isGo && send.goPtr != nil && recv.goPtr != nil {
		if off, ok := within(send, recv); ok {
			base := g.stage(recv, true)
			return cArgs{dp: C.uintptr_t(base + off)}, cArgs{dp: C.uintptr_t(base)}, nil
		}
		if off, ok := within(recv, send); ok {
			base := g.stage(send, true)
			return cArgs{dp: C.uintptr_t(base)}, cArgs{dp: C.uintptr_t(base + off)}, nil
		}
	}
	return stagedArgs(g, send, sendWrites), stagedArgs(g, recv, recvWrites), nil
}

// directArgs passes a buffer as it is.
func directArgs(v bufferView) cArgs {
	if v.isGo {
		return cArgs{hp: v.goPtr}
	}
	return cArgs{dp: C.uintptr_t(v.addr)}
}

// stagedArgs stages a Go buffer in g; other buffers pass as they are.
func stagedArgs(g *groupState, v bufferView, writes bool) cArgs {
	if !v.isGo || v.goPtr == nil {
		return directArgs(v)
	}
	return cArgs{dp: C.uintptr_t(g.stage(v, writes))}
}

// within reports whether inner's bytes lie inside outer's, and at what
// offset. Comparing addresses of one live Go object is stable: Go's heap
// does not move objects, and both slices are kept alive by the caller.
func within(inner, outer bufferView) (uintptr, bool) {
	i, o := uintptr(inner.goPtr), uintptr(outer.goPtr)
	if i >= o && i+uintptr(inner.bytes()) <= o+uintptr(outer.bytes()) {
		return i - o, true
	}
	return 0, false
}
