package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// Window is this rank's handle of a window registered collectively for
// one-sided access (nccl.core RegisteredWindowHandle). Pass it to PutSignal
// to write into a peer's part. Closed by Close (local) or with its
// communicator; a finalizer closes it if it is garbage collected while open.
type Window struct{ resource }

// RegisterWindow registers p as this rank's part of a new window
// (ncore_register_window). Collective. Registration keeps the pointer, so p
// must be MemAlloc memory (NCCL requires ncclMemAlloc memory, 4096-aligned)
// or other device memory, never a Go slice, and must outlive the window.
func (c *Communicator) RegisterWindow(p DevicePtr, flags WindowFlags) (*Window, error) {
	defer runtime.KeepAlive(c)
	n := cNumbers{function: "ncore_register_window"}
	size := n.size("size", p.Bytes)
	if n.err != nil {
		return nil, n.err
	}
	var h C.ncore_window_t
	if err := fromResult(C.ncgo_register_window(&h, c.ch(), C.uintptr_t(p.Addr), size, C.uint32_t(flags))); err != nil {
		return nil, err
	}
	return owned(&Window{resource{uint64(h), &windowKind}}), nil
}

// wh is the handle as the C calls take it.
func (w *Window) wh() C.ncore_window_t { return C.ncore_window_t(w.handle) }

// sizeQuery runs a size_t query.
func (w *Window) sizeQuery(q func(*C.size_t) C.ncgo_result) (int, error) {
	n, err := query(w, q)
	return int(n), err
}

// Size is this rank's part in bytes.
func (w *Window) Size() (int, error) {
	return w.sizeQuery(func(o *C.size_t) C.ncgo_result { return C.ncgo_window_size(w.wh(), o) })
}

// PeerSize is peer's part in bytes (a put to peer must fit in it).
func (w *Window) PeerSize(peer int) (int, error) {
	n := cNumbers{function: "ncore_window_peer_size"}
	cpeer := n.int("peer", peer)
	if n.err != nil {
		return 0, n.err
	}
	return w.sizeQuery(func(o *C.size_t) C.ncgo_result { return C.ncgo_window_peer_size(w.wh(), cpeer, o) })
}

// Flags are the flags the window was registered with.
func (w *Window) Flags() (WindowFlags, error) {
	f, err := query(w, func(o *C.uint32_t) C.ncgo_result { return C.ncgo_window_flags(w.wh(), o) })
	return WindowFlags(f), err
}

// addrQuery runs a uintptr query.
func (w *Window) addrQuery(q func(*C.uintptr_t) C.ncgo_result) (uintptr, error) {
	p, err := query(w, q)
	return uintptr(p), err
}

// UserPointer is the memory this rank registered (nccl.core user_ptr).
func (w *Window) UserPointer() (uintptr, error) {
	return w.addrQuery(func(o *C.uintptr_t) C.ncgo_result { return C.ncgo_window_user_pointer(w.wh(), o) })
}

// NativeHandle is the backend's own window (NCCL: the ncclWindow_t).
func (w *Window) NativeHandle() (uintptr, error) {
	return w.addrQuery(func(o *C.uintptr_t) C.ncgo_result { return C.ncgo_window_native_handle(w.wh(), o) })
}

// pointerQuery runs a pointer query whose arguments n converted; ok is
// false (addr 0) when the part is not load/store reachable.
func (w *Window) pointerQuery(n *cNumbers, q func(*C.uintptr_t) C.ncgo_result) (addr uintptr, ok bool, err error) {
	if n.err != nil {
		return 0, false, n.err
	}
	addr, err = w.addrQuery(q)
	return addr, err == nil && addr != 0, err
}

// LSADevicePointer is a device pointer to byte offset of LSA-team member
// lsaRank's part; ok is false (addr 0) when that part is not load/store
// reachable (host backend: memory not from MemAlloc).
func (w *Window) LSADevicePointer(lsaRank, offset int) (addr uintptr, ok bool, err error) {
	n := cNumbers{function: "ncore_window_lsa_device_pointer"}
	crank, coffset := n.int("lsa_rank", lsaRank), n.size("offset", offset)
	return w.pointerQuery(&n, func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_window_lsa_device_pointer(w.wh(), crank, coffset, o)
	})
}

// PeerDevicePointer is a device pointer to byte offset of world rank peer's
// part; ok is false (addr 0) when peer is not load/store reachable
// (nccl.core returns None).
func (w *Window) PeerDevicePointer(peer, offset int) (addr uintptr, ok bool, err error) {
	n := cNumbers{function: "ncore_window_peer_device_pointer"}
	cpeer, coffset := n.int("peer", peer), n.size("offset", offset)
	return w.pointerQuery(&n, func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_window_peer_device_pointer(w.wh(), cpeer, coffset, o)
	})
}

// LSAMultimemDevicePointer is the LSA multicast pointer to byte offset; ok
// is false when multimem is unavailable (always on the host backend).
func (w *Window) LSAMultimemDevicePointer(offset int) (addr uintptr, ok bool, err error) {
	n := cNumbers{function: "ncore_window_lsa_multimem_device_pointer"}
	coffset := n.size("offset", offset)
	return w.pointerQuery(&n, func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_window_lsa_multimem_device_pointer(w.wh(), coffset, o)
	})
}
