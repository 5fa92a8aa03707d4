package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// resource is what every handle type embeds (Communicator, RegisteredBuffer,
// Window, CustomRedOp, DevComm, SymmetricMemory): the C handle and its kind,
// which give each type Handle, Close and IsValid from one definition.
// Handles are generation-checked integers, so a stale, closed or wrong-kind
// handle makes each call fail with the library's status and message
// (ErrClosed, ErrInvalidArgument), never undefined behaviour.
type resource struct {
	handle uint64
	kind   *handleKind
}

// handleKind is what the shared code knows of one handle type: its C close
// (ncore_*_close, ncore_symmetric_free, ncore_comm_destroy) and is_valid.
type handleKind struct {
	close   func(h uint64) C.ncgo_result
	isValid func(h uint64) C.int
}

var (
	commKind = handleKind{
		close:   func(h uint64) C.ncgo_result { return C.ncgo_comm_destroy(C.ncore_comm_t(h)) },
		isValid: func(h uint64) C.int { return C.ncore_comm_is_valid(C.ncore_comm_t(h)) },
	}
	registeredBufferKind = handleKind{
		close: func(h uint64) C.ncgo_result {
			return C.ncgo_registered_buffer_close(C.ncore_registered_buffer_t(h))
		},
		isValid: func(h uint64) C.int {
			return C.ncore_registered_buffer_is_valid(C.ncore_registered_buffer_t(h))
		},
	}
	windowKind = handleKind{
		close:   func(h uint64) C.ncgo_result { return C.ncgo_window_close(C.ncore_window_t(h)) },
		isValid: func(h uint64) C.int { return C.ncore_window_is_valid(C.ncore_window_t(h)) },
	}
	customRedOpKind = handleKind{
		close:   func(h uint64) C.ncgo_result { return C.ncgo_custom_redop_close(C.ncore_custom_redop_t(h)) },
		isValid: func(h uint64) C.int { return C.ncore_custom_redop_is_valid(C.ncore_custom_redop_t(h)) },
	}
	devCommKind = handleKind{
		close:   func(h uint64) C.ncgo_result { return C.ncgo_dev_comm_close(C.ncore_dev_comm_t(h)) },
		isValid: func(h uint64) C.int { return C.ncore_dev_comm_is_valid(C.ncore_dev_comm_t(h)) },
	}
	symmetricKind = handleKind{
		close:   func(h uint64) C.ncgo_result { return C.ncgo_symmetric_free(C.ncore_symmetric_t(h)) },
		isValid: func(h uint64) C.int { return C.ncore_symmetric_is_valid(C.ncore_symmetric_t(h)) },
	}
)

// Handle is the C handle (an ncore_*_t integer), for code that calls the C
// ABI directly. It stays owned by the Go value.
func (r *resource) Handle() uint64 { return r.handle }

// Close closes the handle: ncore_*_close, ncore_symmetric_free for
// SymmetricMemory, ncore_comm_destroy for a Communicator (which also closes
// every resource made from it). Local; idempotent: later calls on the handle
// answer ErrClosed.
func (r *resource) Close() error {
	// r points into the Go value that embeds it, which KeepAlive keeps, so
	// its finalizer cannot close the handle during the call.
	defer runtime.KeepAlive(r)
	return fromResult(r.kind.close(r.handle))
}

// IsValid reports whether the handle is still open.
func (r *resource) IsValid() bool {
	defer runtime.KeepAlive(r)
	return r.kind.isValid(r.handle) != 0
}

// owned gives v (a fresh handle type that this package made) a finalizer
// that closes its handle if it is garbage collected while open.
func owned[T interface{ Close() error }](v T) T {
	runtime.SetFinalizer(v, func(v T) { v.Close() })
	return v
}

// query runs a C query that writes one value through its out-parameter,
// keeping keep (the Go value whose handle it uses) alive for the call.
func query[T any](keep any, call func(out *T) C.ncgo_result) (T, error) {
	defer runtime.KeepAlive(keep)
	var out T
	err := fromResult(call(&out))
	return out, err
}

// Interop with code that holds raw C handles: the ...FromHandle functions
// wrap an integer that something else owns. A wrapper made from a handle is
// BORROWED: it has no finalizer, and nothing closes the handle unless you
// call Close. Any integer is safe to wrap.

// CommunicatorFromHandle wraps a raw ncore_comm_t (borrowed). A handle that
// is not a live communicator is accepted; calls on it report why.
func CommunicatorFromHandle(h uint64) *Communicator {
	c := &Communicator{resource: resource{h, &commKind}}
	if b, err := query(c, func(o *C.int) C.ncgo_result { return C.ncgo_comm_backend(c.ch(), o) }); err == nil {
		c.backend = Backend(b)
	}
	return c
}

// RegisteredBufferFromHandle wraps a raw ncore_registered_buffer_t (borrowed).
func RegisteredBufferFromHandle(h uint64) *RegisteredBuffer {
	return &RegisteredBuffer{resource{h, &registeredBufferKind}}
}

// WindowFromHandle wraps a raw ncore_window_t (borrowed).
func WindowFromHandle(h uint64) *Window { return &Window{resource{h, &windowKind}} }

// CustomRedOpFromHandle wraps a raw ncore_custom_redop_t (borrowed).
func CustomRedOpFromHandle(h uint64) *CustomRedOp {
	return &CustomRedOp{resource: resource{h, &customRedOpKind}}
}

// DevCommFromHandle wraps a raw ncore_dev_comm_t (borrowed).
func DevCommFromHandle(h uint64) *DevComm { return &DevComm{resource{h, &devCommKind}} }

// SymmetricMemoryFromHandle wraps a raw ncore_symmetric_t (borrowed). Its Put
// and Get accept Go slices as on the host backend; pass device memory on NCCL.
func SymmetricMemoryFromHandle(h uint64) *SymmetricMemory {
	return &SymmetricMemory{resource: resource{h, &symmetricKind}}
}
