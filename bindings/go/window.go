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
type Window struct {
	handle C.ncore_window_t
}

// RegisterWindow registers p as this rank's part of a new window
// (ncore_register_window). Collective. Registration keeps the pointer, so p
// must be MemAlloc memory (NCCL requires ncclMemAlloc memory, 4096-aligned)
// or other device memory, never a Go slice, and must outlive the window.
func (c *Communicator) RegisterWindow(p DevicePtr, flags WindowFlags) (*Window, error) {
	defer runtime.KeepAlive(c)
	var h C.ncore_window_t
	if err := fromResult(C.ncgo_register_window(&h, c.handle, C.uintptr_t(p.Addr), C.size_t(p.Bytes), C.uint32_t(flags))); err != nil {
		return nil, err
	}
	w := &Window{handle: h}
	runtime.SetFinalizer(w, func(w *Window) { w.Close() })
	return w, nil
}

// sizeQuery runs a size_t query.
func (w *Window) sizeQuery(q func(*C.size_t) C.ncgo_result) (int, error) {
	defer runtime.KeepAlive(w)
	var out C.size_t
	if err := fromResult(q(&out)); err != nil {
		return 0, err
	}
	return int(out), nil
}

// Size is this rank's part in bytes.
func (w *Window) Size() (int, error) {
	return w.sizeQuery(func(o *C.size_t) C.ncgo_result { return C.ncgo_window_size(w.handle, o) })
}

// PeerSize is peer's part in bytes (a put to peer must fit in it).
func (w *Window) PeerSize(peer int) (int, error) {
	return w.sizeQuery(func(o *C.size_t) C.ncgo_result { return C.ncgo_window_peer_size(w.handle, C.int(peer), o) })
}

// Flags are the flags the window was registered with.
func (w *Window) Flags() (WindowFlags, error) {
	defer runtime.KeepAlive(w)
	var out C.uint32_t
	if err := fromResult(C.ncgo_window_flags(w.handle, &out)); err != nil {
		return 0, err
	}
	return WindowFlags(out), nil
}

// addrQuery runs a uintptr query.
func (w *Window) addrQuery(q func(*C.uintptr_t) C.ncgo_result) (uintptr, error) {
	defer runtime.KeepAlive(w)
	var out C.uintptr_t
	if err := fromResult(q(&out)); err != nil {
		return 0, err
	}
	return uintptr(out), nil
}

// UserPointer is the memory this rank registered (nccl.core user_ptr).
func (w *Window) UserPointer() (uintptr, error) {
	return w.addrQuery(func(o *C.uintptr_t) C.ncgo_result { return C.ncgo_window_user_pointer(w.handle, o) })
}

// NativeHandle is the backend's own window (NCCL: the ncclWindow_t).
func (w *Window) NativeHandle() (uintptr, error) {
	return w.addrQuery(func(o *C.uintptr_t) C.ncgo_result { return C.ncgo_window_native_handle(w.handle, o) })
}

// LSADevicePointer is a device pointer to byte offset of LSA-team member
// lsaRank's part; ok is false (addr 0) when that part is not load/store
// reachable (host backend: memory not from MemAlloc).
func (w *Window) LSADevicePointer(lsaRank, offset int) (addr uintptr, ok bool, err error) {
	if offset < 0 {
		return 0, false, newError(StatusInvalid, "ncore_window_lsa_device_pointer", "offset", "%d is negative", offset)
	}
	addr, err = w.addrQuery(func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_window_lsa_device_pointer(w.handle, C.int(lsaRank), C.size_t(offset), o)
	})
	return addr, err == nil && addr != 0, err
}

// PeerDevicePointer is a device pointer to byte offset of world rank peer's
// part; ok is false (addr 0) when peer is not load/store reachable
// (nccl.core returns None).
func (w *Window) PeerDevicePointer(peer, offset int) (addr uintptr, ok bool, err error) {
	if offset < 0 {
		return 0, false, newError(StatusInvalid, "ncore_window_peer_device_pointer", "offset", "%d is negative", offset)
	}
	addr, err = w.addrQuery(func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_window_peer_device_pointer(w.handle, C.int(peer), C.size_t(offset), o)
	})
	return addr, err == nil && addr != 0, err
}

// LSAMultimemDevicePointer is the LSA multicast pointer to byte offset; ok
// is false when multimem is unavailable (always on the host backend).
func (w *Window) LSAMultimemDevicePointer(offset int) (addr uintptr, ok bool, err error) {
	if offset < 0 {
		return 0, false, newError(StatusInvalid, "ncore_window_lsa_multimem_device_pointer", "offset", "%d is negative", offset)
	}
	addr, err = w.addrQuery(func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_window_lsa_multimem_device_pointer(w.handle, C.size_t(offset), o)
	})
	return addr, err == nil && addr != 0, err
}

// Close deregisters this rank's part (ncore_window_close). Local;
// idempotent.
func (w *Window) Close() error {
	if w == nil {
		return nil
	}
	defer runtime.KeepAlive(w)
	return fromResult(C.ncgo_window_close(w.handle))
}

// IsValid reports whether the window is still open.
func (w *Window) IsValid() bool {
	defer runtime.KeepAlive(w)
	return C.ncore_window_is_valid(w.handle) != 0
}
