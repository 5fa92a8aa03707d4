package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"runtime"
	"sync"
)

// Stream orders work (ncore_stream_t): a CUDA stream on NCCL, a token on the
// host backend, where work completes before each call returns. A nil *Stream
// is the default stream.
type Stream struct {
	closeOnce
	addr    uintptr // the C stream as an integer; Go never dereferences it
	backend Backend
}

// closeOnce releases at most once, for the types that own a C pointer
// (Stream, DeviceMemory): unlike handles, a pointer cannot tell the library
// that it was already released.
type closeOnce struct {
	mu     sync.Mutex
	closed bool
}

// release runs free unless already released; nil afterwards.
func (o *closeOnce) release(free func() C.ncgo_result) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	return fromResult(free())
}

// isClosed says whether release ran.
func (o *closeOnce) isClosed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closed
}

// NewStream creates a stream on backend (ncore_stream_create; NCCL: a
// non-blocking CUDA stream).
func NewStream(backend Backend) (*Stream, error) {
	var out C.uintptr_t
	if err := fromResult(C.ncgo_stream_create(&out, C.int(backend))); err != nil {
		return nil, err
	}
	s := &Stream{addr: uintptr(out), backend: backend}
	runtime.SetFinalizer(s, func(s *Stream) { s.Close() })
	return s, nil
}

// Close destroys the stream (ncore_stream_destroy). Idempotent.
func (s *Stream) Close() error {
	if s == nil {
		return nil
	}
	return s.release(func() C.ncgo_result {
		return C.ncgo_stream_destroy(C.uintptr_t(s.addr), C.int(s.backend))
	})
}

// Synchronize waits until all work on the stream completed.
func (s *Stream) Synchronize() error {
	if err := s.check("ncore_stream_synchronize"); err != nil {
		return err
	}
	return fromResult(C.ncgo_stream_synchronize(s.arg(), C.int(s.backendOr(BackendAuto))))
}

// Backend is the backend the stream was made for.
func (s *Stream) Backend() Backend { return s.backend }

// Addr is the C stream (a cudaStream_t on NCCL), for other CUDA libraries.
func (s *Stream) Addr() uintptr {
	if s == nil {
		return 0
	}
	return s.addr
}

// check refuses a closed stream with ErrClosed (the C side cannot tell a
// destroyed CUDA stream from a live one).
func (s *Stream) check(function string) error {
	if s == nil {
		return nil
	}
	if s.isClosed() {
		return newError(StatusClosed, function, "stream", "was closed")
	}
	return nil
}

// arg is the stream as a wrapper argument (0 for the default stream).
func (s *Stream) arg() C.uintptr_t {
	if s == nil {
		return 0
	}
	return C.uintptr_t(s.addr)
}

// backendOr is the stream's backend, or fallback for the default stream.
func (s *Stream) backendOr(fallback Backend) Backend {
	if s == nil {
		return fallback
	}
	return s.backend
}

// DeviceMemory is memory from MemAlloc (ncore_mem_alloc): device memory on
// NCCL (ncclMemAlloc, as windows require), shared memory on the host backend
// (so windows over it have real peer pointers). Close frees it; a finalizer
// does so if it is garbage collected while open.
type DeviceMemory struct {
	closeOnce
	ptr     DevicePtr
	backend Backend
}

// MemAlloc allocates size bytes of communication memory on backend.
// Contents are uninitialised.
func MemAlloc(backend Backend, size int) (*DeviceMemory, error) {
	n := cNumbers{function: "ncore_mem_alloc"}
	csize := n.size("size", size)
	if n.err != nil {
		return nil, n.err
	}
	var out C.uintptr_t
	if err := fromResult(C.ncgo_mem_alloc(&out, csize, C.int(backend))); err != nil {
		return nil, err
	}
	m := &DeviceMemory{ptr: DevicePtr{Addr: uintptr(out), Bytes: size}, backend: backend}
	runtime.SetFinalizer(m, func(m *DeviceMemory) { m.Close() })
	return m, nil
}

// Ptr is the allocation's range. It is only valid until Close.
func (m *DeviceMemory) Ptr() DevicePtr { return m.ptr }

// As views the whole allocation as elements of dt.
func (m *DeviceMemory) As(dt DataType) DeviceBuffer { return m.ptr.As(dt) }

// Len is the size in bytes.
func (m *DeviceMemory) Len() int { return m.ptr.Bytes }

// Backend is the backend it was allocated on.
func (m *DeviceMemory) Backend() Backend { return m.backend }

// Close frees the memory (ncore_mem_free). Idempotent.
func (m *DeviceMemory) Close() error {
	if m == nil {
		return nil
	}
	return m.release(func() C.ncgo_result { return C.ncgo_mem_free(C.uintptr_t(m.ptr.Addr), C.int(m.backend)) })
}

// Release hands the memory over to the caller: m forgets it (no finalizer,
// Close does nothing) and the range is returned, to be freed with MemFree.
// For code that manages ncore_mem_alloc memory by address, as C does.
func (m *DeviceMemory) Release() DevicePtr {
	m.mu.Lock()
	defer m.mu.Unlock()
	runtime.SetFinalizer(m, nil)
	m.closed = true
	return m.ptr
}

// MemFree frees memory from MemAlloc by address (ncore_mem_free), e.g. after
// Release. Unlike DeviceMemory.Close it is not idempotent: a second free, or
// an address MemAlloc did not return, gives ErrInvalidArgument. addr 0 is a
// no-op.
func MemFree(backend Backend, addr uintptr) error {
	return fromResult(C.ncgo_mem_free(C.uintptr_t(addr), C.int(backend)))
}

// Memcpy copies src into the start of dst, ordered on stream
// (ncore_memcpy, kind inferred). dst must hold at least src's bytes. It is
// asynchronous on NCCL for device-to-device copies; a copy from or to a Go
// slice waits for the stream before returning, so that C never keeps a Go
// pointer.
func Memcpy(backend Backend, dst, src Buffer, stream *Stream) error {
	d, s := viewOf(dst), viewOf(src)
	if err := s.refused("ncore_memcpy", "src"); err != nil {
		return err
	}
	if d.bytes() < s.bytes() {
		return newError(StatusInvalid, "ncore_memcpy", "dst",
			"holds %d bytes, src has %d", d.bytes(), s.bytes())
	}
	return MemcpyBytes(backend, dst, src, s.bytes(), MemcpyDefault, stream)
}

// MemcpyBytes copies n bytes from src to dst with an explicit direction.
// Both buffers must hold n bytes. Go slices make it synchronous (see Memcpy).
func MemcpyBytes(backend Backend, dst, src Buffer, n int, kind MemcpyKind, stream *Stream) error {
	const fn = "ncore_memcpy"
	if err := stream.check(fn); err != nil {
		return err
	}
	d, s := viewOf(dst), viewOf(src)
	if err := d.refused(fn, "dst"); err != nil {
		return err
	}
	if err := s.refused(fn, "src"); err != nil {
		return err
	}
	count := cNumbers{function: fn}
	bytes := count.size("bytes", n)
	if count.err != nil {
		return count.err
	}
	if d.bytes() < n {
		return newError(StatusInvalid, fn, "dst", "holds %d bytes, %d to copy", d.bytes(), n)
	}
	if s.bytes() < n {
		return newError(StatusInvalid, fn, "src", "holds %d bytes, %d to copy", s.bytes(), n)
	}
	da, sa := directArgs(d), directArgs(s)
	var err error
	if d.isGo || s.isGo {
		err = fromResult(C.ncgo_memcpy_sync(da.hp, da.dp, sa.hp, sa.dp, bytes, C.int(kind), stream.arg(), C.int(backend)))
	} else {
		err = fromResult(C.ncgo_memcpy(da.hp, da.dp, sa.hp, sa.dp, bytes, C.int(kind), stream.arg(), C.int(backend)))
	}
	runtime.KeepAlive(dst)
	runtime.KeepAlive(src)
	return err
}

// Memset sets every byte of dst to value, ordered on stream. A Go slice
// makes it synchronous (see Memcpy).
func Memset(backend Backend, dst Buffer, value byte, stream *Stream) error {
	const fn = "ncore_memset"
	if err := stream.check(fn); err != nil {
		return err
	}
	d := viewOf(dst)
	if err := d.refused(fn, "dst"); err != nil {
		return err
	}
	da := directArgs(d)
	var err error
	if d.isGo {
		err = fromResult(C.ncgo_memset_sync(da.hp, da.dp, C.int(value), C.size_t(d.bytes()), stream.arg(), C.int(backend)))
	} else {
		err = fromResult(C.ncgo_memset(da.hp, da.dp, C.int(value), C.size_t(d.bytes()), stream.arg(), C.int(backend)))
	}
	runtime.KeepAlive(dst)
	return err
}

// SynchronizeDefault waits for the default stream of backend.
func SynchronizeDefault(backend Backend) error {
	return fromResult(C.ncgo_stream_synchronize(0, C.int(backend)))
}

// DeviceCount is the number of devices: CUDA devices on NCCL, 1 on host.
func DeviceCount(backend Backend) (int, error) {
	var out C.int
	if err := fromResult(C.ncgo_device_count(C.int(backend), &out)); err != nil {
		return 0, err
	}
	return int(out), nil
}

// SetDevice makes device the current device of the calling OS thread
// (cudaSetDevice). Go moves goroutines between threads: call
// runtime.LockOSThread first, or use Config.Device instead.
func SetDevice(backend Backend, device int) error {
	n := cNumbers{function: "ncore_device_set"}
	cdevice := n.int("device", device)
	if n.err != nil {
		return n.err
	}
	return fromResult(C.ncgo_device_set(C.int(backend), cdevice))
}

// CurrentDevice is the calling OS thread's current device (-1 on host).
func CurrentDevice(backend Backend) (int, error) {
	var out C.int
	if err := fromResult(C.ncgo_device_get(C.int(backend), &out)); err != nil {
		return 0, err
	}
	return int(out), nil
}
