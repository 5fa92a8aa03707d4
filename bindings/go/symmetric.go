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
	resource
	comm *Communicator // for the Go-slice rules of Put / Get
}

// SymmetricAlloc allocates size bytes on every rank (ncore_symmetric_alloc),
// zeroed. Collective; every rank passes the same size.
func (c *Communicator) SymmetricAlloc(size int) (*SymmetricMemory, error) {
	defer runtime.KeepAlive(c)
	n := cNumbers{function: "ncore_symmetric_alloc"}
	csize := n.size("size", size)
	if n.err != nil {
		return nil, n.err
	}
	var h C.ncore_symmetric_t
	if err := fromResult(C.ncgo_symmetric_alloc(&h, c.ch(), csize)); err != nil {
		return nil, err
	}
	return owned(&SymmetricMemory{resource: resource{uint64(h), &symmetricKind}, comm: c}), nil
}

// sh is the handle as the C calls take it.
func (s *SymmetricMemory) sh() C.ncore_symmetric_t { return C.ncore_symmetric_t(s.handle) }

// Size is each rank's part in bytes.
func (s *SymmetricMemory) Size() (int, error) {
	n, err := query(s, func(o *C.size_t) C.ncgo_result { return C.ncgo_symmetric_size(s.sh(), o) })
	return int(n), err
}

// Local is this rank's part (device memory on NCCL).
func (s *SymmetricMemory) Local() (DevicePtr, error) {
	n, err := s.Size()
	if err != nil {
		return DevicePtr{}, err
	}
	p, err := query(s, func(o *C.uintptr_t) C.ncgo_result { return C.ncgo_symmetric_local_pointer(s.sh(), o) })
	if err != nil {
		return DevicePtr{}, err
	}
	return DevicePtr{Addr: uintptr(p), Bytes: n}, nil
}

// PeerPointer is rank pe's part as this rank can address it (nvshmem_ptr);
// ok is false (addr 0) when pe is not load/store reachable.
func (s *SymmetricMemory) PeerPointer(pe int) (addr uintptr, ok bool, err error) {
	n := cNumbers{function: "ncore_symmetric_peer_pointer"}
	cpe := n.int("pe", pe)
	if n.err != nil {
		return 0, false, n.err
	}
	p, err := query(s, func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_symmetric_peer_pointer(s.sh(), cpe, o)
	})
	if err != nil {
		return 0, false, err
	}
	return uintptr(p), p != 0, nil
}

// Put copies all of src into rank pe's part at byte offset dstOffset,
// ordered on stream (nvshmem put); complete for the target after a
// synchronisation such as a collective or a signal.
func (s *SymmetricMemory) Put(dstOffset int, src Buffer, pe int, stream *Stream) error {
	const fn = "ncore_symmetric_put"
	if err := stream.check(fn); err != nil {
		return err
	}
	n := cNumbers{function: fn}
	coffset, cpe := n.size("dst_offset", dstOffset), n.int("pe", pe)
	if n.err != nil {
		return n.err
	}
	v := viewOf(src)
	a, err := immediateArgs(s.comm, fn, "src", v)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_symmetric_put(s.sh(), coffset, a.hp, a.dp, C.size_t(v.bytes()),
		cpe, stream.arg())), s, src)
}

// Get fills all of dst from rank pe's part at byte offset srcOffset,
// ordered on stream (nvshmem get).
func (s *SymmetricMemory) Get(dst Buffer, srcOffset int, pe int, stream *Stream) error {
	const fn = "ncore_symmetric_get"
	if err := stream.check(fn); err != nil {
		return err
	}
	n := cNumbers{function: fn}
	coffset, cpe := n.size("src_offset", srcOffset), n.int("pe", pe)
	if n.err != nil {
		return n.err
	}
	v := viewOf(dst)
	a, err := immediateArgs(s.comm, fn, "dst", v)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_symmetric_get(a.hp, a.dp, s.sh(), coffset, C.size_t(v.bytes()),
		cpe, stream.arg())), s, dst)
}
