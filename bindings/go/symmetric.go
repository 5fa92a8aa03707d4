package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// SymmetricMemory is an allocation made collectively, the same size on
// every rank, in the NVSHMEM style (ncore_symmetric_*): each rank can reach
// the others' parts through PeerPointer where load/store reachable and
// always through Put / Get. Close frees this rank's part; a finalizer does
// so if it is garbage collected while open.
type SymmetricMemory struct {
	handle C.ncore_symmetric_t
	comm   *Communicator // for the Go-slice rules of Put / Get
}

// SymmetricAlloc allocates size bytes on every rank (ncore_symmetric_alloc),
// zeroed. Collective; every rank passes the same size.
func (c *Communicator) SymmetricAlloc(size int) (*SymmetricMemory, error) {
	defer runtime.KeepAlive(c)
	if size < 0 {
		return nil, newError(StatusInvalid, "ncore_symmetric_alloc", "size", "%d is negative", size)
	}
	var h C.ncore_symmetric_t
	if err := fromResult(C.ncgo_symmetric_alloc(&h, c.handle, C.size_t(size))); err != nil {
		return nil, err
	}
	s := &SymmetricMemory{handle: h, comm: c}
	runtime.SetFinalizer(s, func(s *SymmetricMemory) { s.Close() })
	return s, nil
}

// Size is each rank's part in bytes.
func (s *SymmetricMemory) Size() (int, error) {
	defer runtime.KeepAlive(s)
	var out C.size_t
	if err := fromResult(C.ncgo_symmetric_size(s.handle, &out)); err != nil {
		return 0, err
	}
	return int(out), nil
}

// Local is this rank's part (device memory on NCCL).
func (s *SymmetricMemory) Local() (DevicePtr, error) {
	defer runtime.KeepAlive(s)
	n, err := s.Size()
	if err != nil {
		return DevicePtr{}, err
	}
	var out C.uintptr_t
	if err := fromResult(C.ncgo_symmetric_local_pointer(s.handle, &out)); err != nil {
		return DevicePtr{}, err
	}
	return DevicePtr{Addr: uintptr(out), Bytes: n}, nil
}

// PeerPointer is rank pe's part as this rank can address it (nvshmem_ptr);
// ok is false (addr 0) when pe is not load/store reachable.
func (s *SymmetricMemory) PeerPointer(pe int) (addr uintptr, ok bool, err error) {
	defer runtime.KeepAlive(s)
	var out C.uintptr_t
	if err := fromResult(C.ncgo_symmetric_peer_pointer(s.handle, C.int(pe), &out)); err != nil {
		return 0, false, err
	}
	return uintptr(out), out != 0, nil
}

// Put copies all of src into rank pe's part at byte offset dstOffset,
// ordered on stream (nvshmem put); complete for the target after a
// synchronisation such as a collective or a signal.
func (s *SymmetricMemory) Put(dstOffset int, src Buffer, pe int, stream *Stream) error {
	const fn = "ncore_symmetric_put"
	if err := stream.check(fn); err != nil {
		return err
	}
	if dstOffset < 0 {
		return newError(StatusInvalid, fn, "dst_offset", "%d is negative", dstOffset)
	}
	v := viewOf(src)
	a, err := immediateArgs(s.comm, fn, "src", v)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_symmetric_put(s.handle, C.size_t(dstOffset), a.hp, a.dp, C.size_t(v.bytes()),
		C.int(pe), stream.arg())), s, src)
}

// Get fills all of dst from rank pe's part at byte offset srcOffset,
// ordered on stream (nvshmem get).
func (s *SymmetricMemory) Get(dst Buffer, srcOffset int, pe int, stream *Stream) error {
	const fn = "ncore_symmetric_get"
	if err := stream.check(fn); err != nil {
		return err
	}
	if srcOffset < 0 {
		return newError(StatusInvalid, fn, "src_offset", "%d is negative", srcOffset)
	}
	v := viewOf(dst)
	a, err := immediateArgs(s.comm, fn, "dst", v)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_symmetric_get(a.hp, a.dp, s.handle, C.size_t(srcOffset), C.size_t(v.bytes()),
		C.int(pe), stream.arg())), s, dst)
}

// Close frees this rank's part (ncore_symmetric_free). Local; idempotent.
func (s *SymmetricMemory) Close() error {
	if s == nil {
		return nil
	}
	defer runtime.KeepAlive(s)
	return fromResult(C.ncgo_symmetric_free(s.handle))
}

// IsValid reports whether the allocation is still open.
func (s *SymmetricMemory) IsValid() bool {
	defer runtime.KeepAlive(s)
	return C.ncore_symmetric_is_valid(s.handle) != 0
}
