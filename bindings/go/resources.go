package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// RegisteredBuffer is memory registered with a communicator for zero-copy
// transfers (nccl.core RegisteredBufferHandle). Closed by Close or with its
// communicator; a finalizer closes it if it is garbage collected while open.
type RegisteredBuffer struct {
	handle C.ncore_registered_buffer_t
}

// RegisterBuffer registers p with the communicator (ncore_register_buffer).
// Local. Registration keeps the pointer, so p must be device or MemAlloc
// memory (never a Go slice), and must outlive the registration.
func (c *Communicator) RegisterBuffer(p DevicePtr) (*RegisteredBuffer, error) {
	defer runtime.KeepAlive(c)
	var h C.ncore_registered_buffer_t
	if err := fromResult(C.ncgo_register_buffer(&h, c.handle, C.uintptr_t(p.Addr), C.size_t(p.Bytes))); err != nil {
		return nil, err
	}
	b := &RegisteredBuffer{handle: h}
	runtime.SetFinalizer(b, func(b *RegisteredBuffer) { b.Close() })
	return b, nil
}

// Size is the registered range's size in bytes.
func (b *RegisteredBuffer) Size() (int, error) {
	defer runtime.KeepAlive(b)
	var out C.size_t
	if err := fromResult(C.ncgo_registered_buffer_size(b.handle, &out)); err != nil {
		return 0, err
	}
	return int(out), nil
}

// Pointer is the start of the registered range.
func (b *RegisteredBuffer) Pointer() (uintptr, error) {
	defer runtime.KeepAlive(b)
	var out C.uintptr_t
	if err := fromResult(C.ncgo_registered_buffer_pointer(b.handle, &out)); err != nil {
		return 0, err
	}
	return uintptr(out), nil
}

// NativeHandle is the backend's own registration handle (NCCL: the void*
// of ncclCommRegister), nccl.core's `handle` property.
func (b *RegisteredBuffer) NativeHandle() (uintptr, error) {
	defer runtime.KeepAlive(b)
	var out C.uintptr_t
	if err := fromResult(C.ncgo_registered_buffer_native_handle(b.handle, &out)); err != nil {
		return 0, err
	}
	return uintptr(out), nil
}

// Close deregisters (ncore_registered_buffer_close). Idempotent.
func (b *RegisteredBuffer) Close() error {
	if b == nil {
		return nil
	}
	defer runtime.KeepAlive(b)
	return fromResult(C.ncgo_registered_buffer_close(b.handle))
}

// IsValid reports whether the registration is still open.
func (b *RegisteredBuffer) IsValid() bool {
	defer runtime.KeepAlive(b)
	return C.ncore_registered_buffer_is_valid(b.handle) != 0
}

// CustomRedOp is a user-defined reduction operator (nccl.core CustomRedOp),
// valid with the communicator and data type it was made for.
type CustomRedOp struct {
	handle C.ncore_custom_redop_t
	// scalar keeps a device-resident scalar's memory owner alive (the C side
	// reads it at each collective).
	scalar any
}

// CreatePreMulSum creates output = scalar * sum(inputs)
// (ncore_create_pre_mul_sum). scalar is one element whose type is the
// operator's type. ScalarHostImmediate copies it now (a Go slice is fine);
// ScalarDevice reads it at each collective, so it must be a DeviceBuffer
// (not a Go slice) that outlives the operator.
func (c *Communicator) CreatePreMulSum(scalar Buffer, residence ScalarResidence) (*CustomRedOp, error) {
	const fn = "ncore_create_pre_mul_sum"
	defer runtime.KeepAlive(c)
	v := viewOf(scalar)
	if scalar != nil && v.count < 1 {
		return nil, newError(StatusInvalid, fn, "scalar", "holds no element")
	}
	if v.isGo && v.goPtr != nil && residence != ScalarHostImmediate {
		return nil, newError(StatusInvalid, fn, "scalar",
			"is a Go slice; a device-resident scalar is read later and must be device memory")
	}
	var h C.ncore_custom_redop_t
	a := directArgs(v)
	err := fromResult(C.ncgo_create_pre_mul_sum(&h, c.handle, a.hp, a.dp, C.int(v.dtype), C.int(residence)))
	runtime.KeepAlive(scalar)
	if err != nil {
		return nil, err
	}
	op := &CustomRedOp{handle: h}
	if residence == ScalarDevice {
		op.scalar = scalar
	}
	runtime.SetFinalizer(op, func(op *CustomRedOp) { op.Close() })
	return op, nil
}

// Op is the ReduceOp to pass to collectives (nccl.core CustomRedOp.op).
func (op *CustomRedOp) Op() (ReduceOp, error) {
	defer runtime.KeepAlive(op)
	var out C.int
	if err := fromResult(C.ncgo_custom_redop_value(op.handle, &out)); err != nil {
		return 0, err
	}
	return ReduceOp(out), nil
}

// DataType is the type the operator was made for.
func (op *CustomRedOp) DataType() (DataType, error) {
	defer runtime.KeepAlive(op)
	var out C.int
	if err := fromResult(C.ncgo_custom_redop_dtype(op.handle, &out)); err != nil {
		return 0, err
	}
	return DataType(out), nil
}

// Close destroys the operator (ncore_custom_redop_close). Idempotent.
func (op *CustomRedOp) Close() error {
	if op == nil {
		return nil
	}
	defer runtime.KeepAlive(op)
	return fromResult(C.ncgo_custom_redop_close(op.handle))
}

// IsValid reports whether the operator is still open.
func (op *CustomRedOp) IsValid() bool {
	defer runtime.KeepAlive(op)
	return C.ncore_custom_redop_is_valid(op.handle) != 0
}
