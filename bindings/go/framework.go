package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Buffers described by other frameworks: DLPack tensors and the (CUDA) array
// interface, resolved by the library (ncore_buffer_resolve_*) so that Go
// accepts and refuses the same buffers, with the same messages, as the C,
// Python and Rust bindings. Go slices and DevicePtr need none of this; it is
// for memory that arrives from a C library or another runtime.

// DeviceType says where resolved memory lives (ncore_device_type_t).
type DeviceType int32

// The device types.
const (
	// DeviceCPU is host memory (DeviceID -1).
	DeviceCPU DeviceType = C.NCORE_DEVICE_CPU
	// DeviceCUDA is CUDA device (or managed / pinned) memory.
	DeviceCUDA DeviceType = C.NCORE_DEVICE_CUDA
)

// ResolvedBuffer is a framework buffer as the library resolved it
// (ncore_buffer_desc_t): the first element, the element count and type, and
// where it lives.
type ResolvedBuffer struct {
	Addr       uintptr
	Count      int
	DataType   DataType
	DeviceType DeviceType
	DeviceID   int
}

// Buffer is the resolved memory as a Buffer for the communication calls.
func (r ResolvedBuffer) Buffer() DeviceBuffer { return DeviceElements(r.Addr, r.Count, r.DataType) }

// resolved converts the C descriptor.
func resolved(d *C.ncore_buffer_desc_t) ResolvedBuffer {
	return ResolvedBuffer{Addr: uintptr(d.ptr), Count: int(d.count), DataType: DataType(d.dtype),
		DeviceType: DeviceType(d.device_type), DeviceID: int(d.device_id)}
}

// emptyDesc is an output descriptor of this binding's size: the library
// writes no more than that.
func emptyDesc() C.ncore_buffer_desc_t {
	return C.ncore_buffer_desc_t{struct_size: C.sizeof_ncore_buffer_desc_t}
}

// DataTypeFromDLPack maps a DLPack dtype (DLDataTypeCode, bits, lanes) to a
// DataType (ncore_dtype_from_dlpack); ErrInvalidArgument when there is no
// equivalent (bool, complex, lanes != 1, ...).
func DataTypeFromDLPack(code, bits uint8, lanes uint16) (DataType, error) {
	var out C.int
	if err := fromResult(C.ncgo_dtype_from_dlpack(C.uint8_t(code), C.uint8_t(bits), C.uint16_t(lanes), &out)); err != nil {
		return 0, err
	}
	return DataType(out), nil
}

// ResolveDLPack resolves the DLTensor at address tensor, which the caller's
// framework owns (ncore_buffer_resolve_dlpack): it must be C-contiguous, of
// a type with an ncore equivalent, on the CPU or a CUDA device.
func ResolveDLPack(tensor uintptr) (ResolvedBuffer, error) {
	d := emptyDesc()
	if err := fromResult(C.ncgo_buffer_resolve_dlpack(&d, C.uintptr_t(tensor))); err != nil {
		return ResolvedBuffer{}, err
	}
	return resolved(&d), nil
}

// ResolveArrayInterface resolves a buffer described by the CUDA Array
// Interface, or NumPy's array interface when deviceID is -1
// (ncore_buffer_resolve_array_interface): data address, shape, strides in
// bytes (nil = C-contiguous) and typestr ("<f4").
func ResolveArrayInterface(data uintptr, shape, strides []int64, typestr string, deviceID int) (ResolvedBuffer, error) {
	cs := C.CString(typestr)
	defer C.free(unsafe.Pointer(cs))
	var shapePtr, stridesPtr *C.int64_t
	if len(shape) > 0 {
		shapePtr = (*C.int64_t)(unsafe.Pointer(&shape[0]))
	}
	if strides != nil {
		if len(strides) != len(shape) {
			return ResolvedBuffer{}, newError(StatusInvalid, "ncore_buffer_resolve_array_interface", "strides",
				"has %d entries, shape has %d", len(strides), len(shape))
		}
		if len(strides) > 0 {
			stridesPtr = (*C.int64_t)(unsafe.Pointer(&strides[0]))
		}
	}
	n := cNumbers{function: "ncore_buffer_resolve_array_interface"}
	ndim, device := n.int("ndim", len(shape)), n.int("device_id", deviceID)
	if n.err != nil {
		return ResolvedBuffer{}, n.err
	}
	d := emptyDesc()
	err := fromResult(C.ncgo_buffer_resolve_array_interface(&d, C.uintptr_t(data), ndim,
		shapePtr, stridesPtr, cs, device))
	runtime.KeepAlive(shape)
	runtime.KeepAlive(strides)
	if err != nil {
		return ResolvedBuffer{}, err
	}
	return resolved(&d), nil
}

// CheckBuffer says whether a resolved buffer can be used with the
// communicator (ncore_comm_check_buffer): host memory on the host backend,
// memory of the communicator's device on NCCL. argumentName ("sendbuf")
// names it in the message; "" for none.
func (c *Communicator) CheckBuffer(b ResolvedBuffer, argumentName string) error {
	defer runtime.KeepAlive(c)
	n := cNumbers{function: "ncore_comm_check_buffer"}
	count, device := n.size("count", b.Count), n.int("device_id", b.DeviceID)
	if n.err != nil {
		return n.err
	}
	var name *C.char
	if argumentName != "" {
		name = C.CString(argumentName)
		defer C.free(unsafe.Pointer(name))
	}
	return fromResult(C.ncgo_comm_check_buffer(c.ch(), C.uintptr_t(b.Addr), count,
		C.int(b.DataType), C.int(b.DeviceType), device, name))
}
