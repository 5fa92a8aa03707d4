package ncore

/*
#include "ncgo.h"
*/
import "C"

import "fmt"

// Backend picks the implementation that runs a communicator (ncore_backend_t).
type Backend int32

// The backends. Auto takes NCCL when libnccl, libcuda and a device are
// present, else Host; the environment variable NCORE_BACKEND overrides it.
const (
	BackendAuto Backend = C.NCORE_BACKEND_AUTO
	BackendHost Backend = C.NCORE_BACKEND_HOST
	BackendNCCL Backend = C.NCORE_BACKEND_NCCL
)

// String names the backend ("auto", "host", "nccl").
func (b Backend) String() string {
	switch b {
	case BackendAuto:
		return "auto"
	case BackendHost:
		return "host"
	case BackendNCCL:
		return "nccl"
	}
	return fmt.Sprintf("Backend(%d)", int32(b))
}

// ParseBackend reads "auto", "host" or "nccl" (NCORE_BACKEND's spelling).
func ParseBackend(s string) (Backend, error) {
	switch s {
	case "auto", "":
		return BackendAuto, nil
	case "host":
		return BackendHost, nil
	case "nccl":
		return BackendNCCL, nil
	}
	return BackendAuto, newError(StatusInvalid, "ncore.ParseBackend", "s", "%q names no backend (auto, host, nccl)", s)
}

// Resolve says which concrete backend a request gives in this process
// (ncore_backend_resolve): Auto becomes Host or NCCL; a concrete backend is
// checked for availability (ErrUnavailable when NCCL is missing).
func (b Backend) Resolve() (Backend, error) {
	var out C.int
	if err := fromResult(C.ncgo_backend_resolve(C.int(b), &out)); err != nil {
		return BackendAuto, err
	}
	return Backend(out), nil
}

// DataType is an element type (ncore_dtype_t; values equal ncclDataType_t).
type DataType int32

// The element types.
const (
	Int8       DataType = C.NCORE_INT8
	Uint8      DataType = C.NCORE_UINT8
	Int32      DataType = C.NCORE_INT32
	Uint32     DataType = C.NCORE_UINT32
	Int64      DataType = C.NCORE_INT64
	Uint64     DataType = C.NCORE_UINT64
	Float16    DataType = C.NCORE_FLOAT16
	Float32    DataType = C.NCORE_FLOAT32
	Float64    DataType = C.NCORE_FLOAT64
	BFloat16   DataType = C.NCORE_BFLOAT16
	Float8E4M3 DataType = C.NCORE_FLOAT8E4M3
	Float8E5M2 DataType = C.NCORE_FLOAT8E5M2
)

// Size is the size of one element in bytes (ncore_dtype_size); 0 for an
// unknown type.
func (d DataType) Size() int {
	var out C.size_t
	if fromResult(C.ncgo_dtype_size(C.int(d), &out)) != nil {
		return 0
	}
	return int(out)
}

// DataTypeSize is the size of one element of dt (ncore_dtype_size), with
// the library's error for an unknown type.
func DataTypeSize(dt DataType) (int, error) {
	var out C.size_t
	if err := fromResult(C.ncgo_dtype_size(C.int(dt), &out)); err != nil {
		return 0, err
	}
	return int(out), nil
}

// String is the library's name for the type ("float32", "bfloat16", ...).
func (d DataType) String() string {
	var out *C.char
	if fromResult(C.ncgo_dtype_name(C.int(d), &out)) != nil {
		return fmt.Sprintf("DataType(%d)", int32(d))
	}
	return C.GoString(out)
}

// DataTypeFromTypestr maps a NumPy array-interface type string ("<f4") to a
// DataType (ncore_dtype_from_typestr).
func DataTypeFromTypestr(typestr string) (DataType, error) {
	cs := C.CString(typestr)
	defer C.free(unsafePointer(cs))
	var out C.int
	if err := fromResult(C.ncgo_dtype_from_typestr(cs, &out)); err != nil {
		return 0, err
	}
	return DataType(out), nil
}

// ReduceOp is a reduction operator: a built-in one, or a custom operator's
// value (CustomRedOp.Op).
type ReduceOp int32

// The built-in operators (values equal ncclRedOp_t).
const (
	Sum  ReduceOp = 0
	Prod ReduceOp = 1
	Max  ReduceOp = 2
	Min  ReduceOp = 3
	// Avg is the sum divided by the number of ranks.
	Avg ReduceOp = 4
)

// GinType is a GPU Interconnect Network transport (nccl.core NcclGinType).
type GinType int32

// The GIN transports.
const (
	GinTypeNone  GinType = C.NCORE_GIN_TYPE_NONE
	GinTypeProxy GinType = C.NCORE_GIN_TYPE_PROXY
	GinTypeGDAKI GinType = C.NCORE_GIN_TYPE_GDAKI
	GinTypeGPI   GinType = C.NCORE_GIN_TYPE_GPI
	// GinTypeEFAGDA is AWS EFA's device-initiated transport (NCCL 2.31+).
	GinTypeEFAGDA GinType = C.NCORE_GIN_TYPE_EFA_GDA
)

// GinConnectionType says which peers must be reachable through GIN
// (nccl.core NcclGinConnectionType).
type GinConnectionType int32

// The GIN connection topologies.
const (
	GinConnectionNone GinConnectionType = C.NCORE_GIN_CONNECTION_NONE
	GinConnectionFull GinConnectionType = C.NCORE_GIN_CONNECTION_FULL
	GinConnectionRail GinConnectionType = C.NCORE_GIN_CONNECTION_RAIL
	// GinConnectionCustomStride: peers a caller-chosen rank stride apart
	// (NCCL 2.31+).
	GinConnectionCustomStride GinConnectionType = C.NCORE_GIN_CONNECTION_CUSTOM_STRIDE
)

// ScalarResidence says where a PreMulSum scalar lives.
type ScalarResidence int32

// The scalar residences (ncclScalarResidence_t).
const (
	// ScalarDevice: the scalar is read when each collective runs; it must be
	// device-accessible memory (a DevicePtr) that outlives the operator.
	ScalarDevice ScalarResidence = C.NCORE_SCALAR_DEVICE
	// ScalarHostImmediate: the scalar is copied during CreatePreMulSum.
	ScalarHostImmediate ScalarResidence = C.NCORE_SCALAR_HOST_IMMEDIATE
)

// MemcpyKind is the direction of a copy (ncore_memcpy_kind_t).
type MemcpyKind int32

// The copy directions.
const (
	MemcpyDefault        MemcpyKind = C.NCORE_MEMCPY_DEFAULT
	MemcpyHostToDevice   MemcpyKind = C.NCORE_MEMCPY_HOST_TO_DEVICE
	MemcpyDeviceToHost   MemcpyKind = C.NCORE_MEMCPY_DEVICE_TO_HOST
	MemcpyDeviceToDevice MemcpyKind = C.NCORE_MEMCPY_DEVICE_TO_DEVICE
	MemcpyHostToHost     MemcpyKind = C.NCORE_MEMCPY_HOST_TO_HOST
)

// WindowFlags are window registration flags (NCORE_WINDOW_*).
type WindowFlags uint32

// The window flags.
const (
	WindowDefault WindowFlags = C.NCORE_WINDOW_DEFAULT
	// WindowCollSymmetric: every rank registers the same size.
	WindowCollSymmetric WindowFlags = C.NCORE_WINDOW_COLL_SYMMETRIC
	// WindowStrictOrdering (NCCL 2.29.7+): one-sided operations into the
	// window land in the order they were issued.
	WindowStrictOrdering WindowFlags = C.NCORE_WINDOW_STRICT_ORDERING
	// WindowGinOnly (NCCL 2.32+): register for GIN access only.
	WindowGinOnly WindowFlags = C.NCORE_WINDOW_GIN_ONLY
	// WindowCFTCounted (NCCL 2.32+; not on the host backend): register
	// against counted CFT logical endpoints.
	WindowCFTCounted WindowFlags = C.NCORE_WINDOW_CFT_COUNTED
)

// ShrinkFlags are Shrink flags (NCORE_SHRINK_*).
type ShrinkFlags uint32

// The shrink flags.
const (
	ShrinkDefault ShrinkFlags = C.NCORE_SHRINK_DEFAULT
	// ShrinkAbort aborts the parent's outstanding operations first.
	ShrinkAbort ShrinkFlags = C.NCORE_SHRINK_ABORT
)

// SplitNoColor as Split's color leaves this rank out of every new communicator.
const SplitNoColor = C.NCORE_SPLIT_NOCOLOR
