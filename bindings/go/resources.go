package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// RegisteredBuffer is memory registered with a communicator for zero-copy
// transfers (nccl.core RegisteredBufferHandle). Closed by Close or with its
// communicator; a finalizer closes it if it is garbage collected while open.
type RegisteredBuffer struct{ resource }

// RegisterBuffer registers p with the communicator (ncore_register_buffer).
// Local. Registration keeps the pointer, so p must be device or MemAlloc
// memory (never a Go slice), and must outlive the registration.
func (c *Communicator) RegisterBuffer(p DevicePtr) (*RegisteredBuffer, error) {
	defer runtime.KeepAlive(c)
	n := cNumbers{function: "ncore_register_buffer"}
	size := n.size("size", p.Bytes)
	if n.err != nil {
		return nil, n.err
	}
	var h C.ncore_registered_buffer_t
	if err := fromResult(C.ncgo_register_buffer(&h, c.ch(), C.uintptr_t(p.Addr), size)); err != nil {
		return nil, err
	}
	return owned(&RegisteredBuffer{resource{uint64(h), &registeredBufferKind}}), nil
}

// bh is the handle as the C calls take it.
func (b *RegisteredBuffer) bh() C.ncore_registered_buffer_t {
	return C.ncore_registered_buffer_t(b.handle)
}

// Size is the registered range's size in bytes.
func (b *RegisteredBuffer) Size() (int, error) {
	n, err := query(b, func(o *C.size_t) C.ncgo_result { return C.ncgo_registered_buffer_size(b.bh(), o) })
	return int(n), err
}

// Pointer is the start of the registered range.
func (b *RegisteredBuffer) Pointer() (uintptr, error) {
	p, err := query(b, func(o *C.uintptr_t) C.ncgo_result { return C.ncgo_registered_buffer_pointer(b.bh(), o) })
	return uintptr(p), err
}

// NativeHandle is the backend's own registration handle (NCCL: the void*
// of ncclCommRegister), nccl.core's `handle` property.
func (b *RegisteredBuffer) NativeHandle() (uintptr, error) {
	p, err := query(b, func(o *C.uintptr_t) C.ncgo_result {
		return C.ncgo_registered_buffer_native_handle(b.bh(), o)
	})
	return uintptr(p), err
}

// CustomRedOp is a user-defined reduction operator (nccl.core CustomRedOp),
// valid with the communicator and data type it was made for.
type CustomRedOp struct {
	resource
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
	if err := v.refused(fn, "scalar"); err != nil {
		return nil, err
	}
	if scalar != nil && v.count < 1 {
		return nil, newError(StatusInvalid, fn, "scalar", "holds no element")
	}
	if v.isGo && v.goPtr != nil && residence != ScalarHostImmediate {
		return nil, newError(StatusInvalid, fn, "scalar",
			"is a Go slice; a device-resident scalar is read later and must be device memory")
	}
	var h C.ncore_custom_redop_t
	a := directArgs(v)
	err := fromResult(C.ncgo_create_pre_mul_sum(&h, c.ch(), a.hp, a.dp, C.int(v.dtype), C.int(residence)))
	runtime.KeepAlive(scalar)
	if err != nil {
		return nil, err
	}
	op := &CustomRedOp{resource: resource{uint64(h), &customRedOpKind}}
	if residence == ScalarDevice {
		op.scalar = scalar
	}
	return owned(op), nil
}

// oh is the handle as the C calls take it.
func (op *CustomRedOp) oh() C.ncore_custom_redop_t { return C.ncore_custom_redop_t(op.handle) }

// Op is the ReduceOp to pass to collectives (nccl.core CustomRedOp.op).
func (op *CustomRedOp) Op() (ReduceOp, error) {
	v, err := query(op, func(o *C.int) C.ncgo_result { return C.ncgo_custom_redop_value(op.oh(), o) })
	return ReduceOp(v), err
}

// DataType is the type the operator was made for.
func (op *CustomRedOp) DataType() (DataType, error) {
	v, err := query(op, func(o *C.int) C.ncgo_result { return C.ncgo_custom_redop_dtype(op.oh(), o) })
	return DataType(v), err
}
