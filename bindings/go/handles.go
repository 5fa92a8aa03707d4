package ncore

/*
#include "ncgo.h"
*/
import "C"

// Interop with code that holds raw C handles (ncore_*_t integers): Handle
// gives a Go object's integer, and the ...FromHandle functions wrap an
// integer that something else owns. A wrapper made from a handle is
// BORROWED: it has no finalizer, and nothing closes the handle unless you
// call Close. Any integer is safe to wrap: the C handles are
// generation-checked, so a stale, closed or wrong-kind handle makes each call
// fail with the library's status and message (ErrClosed, ErrInvalidArgument),
// never undefined behaviour.

// CommunicatorFromHandle wraps a raw ncore_comm_t (borrowed). A handle that
// is not a live communicator is accepted; calls on it report why.
func CommunicatorFromHandle(h uint64) *Communicator {
	c := &Communicator{handle: C.ncore_comm_t(h)}
	var b C.int
	if fromResult(C.ncgo_comm_backend(c.handle, &b)) == nil {
		c.backend = Backend(b)
	}
	return c
}

// RegisteredBufferFromHandle wraps a raw ncore_registered_buffer_t (borrowed).
func RegisteredBufferFromHandle(h uint64) *RegisteredBuffer {
	return &RegisteredBuffer{handle: C.ncore_registered_buffer_t(h)}
}

// Handle is the C handle (ncore_registered_buffer_t).
func (b *RegisteredBuffer) Handle() uint64 { return uint64(b.handle) }

// WindowFromHandle wraps a raw ncore_window_t (borrowed).
func WindowFromHandle(h uint64) *Window { return &Window{handle: C.ncore_window_t(h)} }

// Handle is the C handle (ncore_window_t).
func (w *Window) Handle() uint64 { return uint64(w.handle) }

// CustomRedOpFromHandle wraps a raw ncore_custom_redop_t (borrowed).
func CustomRedOpFromHandle(h uint64) *CustomRedOp {
	return &CustomRedOp{handle: C.ncore_custom_redop_t(h)}
}

// Handle is the C handle (ncore_custom_redop_t).
func (op *CustomRedOp) Handle() uint64 { return uint64(op.handle) }

// DevCommFromHandle wraps a raw ncore_dev_comm_t (borrowed).
func DevCommFromHandle(h uint64) *DevComm { return &DevComm{handle: C.ncore_dev_comm_t(h)} }

// Handle is the C handle (ncore_dev_comm_t).
func (d *DevComm) Handle() uint64 { return uint64(d.handle) }

// SymmetricMemoryFromHandle wraps a raw ncore_symmetric_t (borrowed). Its Put
// and Get accept Go slices as on the host backend; pass device memory on NCCL.
func SymmetricMemoryFromHandle(h uint64) *SymmetricMemory {
	return &SymmetricMemory{handle: C.ncore_symmetric_t(h)}
}

// Handle is the C handle (ncore_symmetric_t).
func (s *SymmetricMemory) Handle() uint64 { return uint64(s.handle) }
