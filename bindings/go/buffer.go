package ncore

import "unsafe"

// Float16, BFloat16, Float8E4M3 and Float8E5M2 are the raw bit patterns of
// the element types Go has no arithmetic for; slices of them are buffers of
// the matching DataType.
type (
	Float16Bits    uint16
	BFloat16Bits   uint16
	Float8E4M3Bits uint8
	Float8E5M2Bits uint8
)

// Element is every Go type whose slices are host buffers.
type Element interface {
	int8 | uint8 | int32 | uint32 | int64 | uint64 | float32 | float64 |
		Float16Bits | BFloat16Bits | Float8E4M3Bits | Float8E5M2Bits
}

// Buffer is memory an operation reads or writes: a Go slice (Host) or device
// memory (DevicePtr.As, DeviceMemory.As). A nil Buffer is a NULL pointer with
// no elements (e.g. gather's receive buffer on a non-root rank).
type Buffer interface {
	// view describes the memory; unexported so that only this package's
	// buffer kinds exist (their pointer handling is what keeps cgo's rules).
	view() bufferView
}

// bufferView is what a C call needs from a Buffer.
type bufferView struct {
	goPtr    unsafe.Pointer // first element of a Go slice, or nil
	addr     uintptr        // device / C address when goPtr is nil
	count    int            // elements
	dtype    DataType
	elemSize int
	isGo     bool // memory belongs to Go: host backend only, staged in groups
	foreign  bool // a type other than the package's kinds (refused: check)
}

// bytes is the size of the viewed memory.
func (v bufferView) bytes() int { return v.count * v.elemSize }

// HostBuffer is a Go slice used as a buffer; make it with Host.
type HostBuffer struct {
	ptr   unsafe.Pointer
	count int
	dtype DataType
	size  int
}

// Host wraps a Go slice as a Buffer; its element type gives the DataType
// (int8 Int8, byte Uint8, float32 Float32, Float16Bits Float16, ...).
// The slice must not be resized or dropped while an operation that uses it
// is queued (see the package doc on groups).
func Host[T Element](s []T) HostBuffer {
	var zero T
	b := HostBuffer{count: len(s), dtype: dataTypeOf(zero), size: int(unsafe.Sizeof(zero))}
	if len(s) > 0 {
		b.ptr = unsafe.Pointer(&s[0])
	}
	return b
}

// view implements Buffer.
func (b HostBuffer) view() bufferView {
	return bufferView{goPtr: b.ptr, count: b.count, dtype: b.dtype, elemSize: b.size, isGo: true}
}

// Len is the number of elements.
func (b HostBuffer) Len() int { return b.count }

// DataType is the element type.
func (b HostBuffer) DataType() DataType { return b.dtype }

// HostBytes views raw bytes as elements of dt (for data that arrives as
// bytes, or for the 16- and 8-bit float types): len(b) / dt.Size() elements.
// An unknown dt is passed through with one element per byte, so that the
// library reports the type itself.
func HostBytes(b []byte, dt DataType) HostBuffer {
	size := dt.Size()
	if size == 0 {
		size = 1
	}
	hb := HostBuffer{count: len(b) / size, dtype: dt, size: size}
	if len(b) > 0 {
		hb.ptr = unsafe.Pointer(&b[0])
	}
	return hb
}

// dataTypeOf maps an Element type to its DataType.
func dataTypeOf(v any) DataType {
	switch v.(type) {
	case int8:
		return Int8
	case uint8:
		return Uint8
	case int32:
		return Int32
	case uint32:
		return Uint32
	case int64:
		return Int64
	case uint64:
		return Uint64
	case float32:
		return Float32
	case float64:
		return Float64
	case Float16Bits:
		return Float16
	case BFloat16Bits:
		return BFloat16
	case Float8E4M3Bits:
		return Float8E4M3
	case Float8E5M2Bits:
		return Float8E5M2
	}
	panic("ncore: unreachable element type")
}

// DevicePtr is a range of device memory, or of memory from MemAlloc: an
// address and a length in bytes. The memory belongs to whoever allocated it;
// Go only carries the integer, so it is never subject to Go's pointer rules.
type DevicePtr struct {
	Addr  uintptr
	Bytes int
}

// DeviceElements describes count elements of dt at addr, device memory or
// memory from MemAlloc (or any C memory). Go cannot check the range: the
// caller vouches for it. addr 0 passes NULL, so that the library reports a
// missing buffer itself; an unknown dt is passed through for the same reason.
func DeviceElements(addr uintptr, count int, dt DataType) DeviceBuffer {
	size := dt.Size()
	return DeviceBuffer{ptr: DevicePtr{Addr: addr, Bytes: count * size}, dtype: dt, count: count, size: size}
}

// As views the range as elements of dt: Bytes / dt.Size() of them.
func (p DevicePtr) As(dt DataType) DeviceBuffer {
	size := dt.Size()
	count := 0
	if size > 0 {
		count = p.Bytes / size
	}
	return DeviceBuffer{ptr: p, dtype: dt, count: count, size: size}
}

// Slice is the sub-range [off, off+n) in bytes; it panics when out of range,
// like slicing.
func (p DevicePtr) Slice(off, n int) DevicePtr {
	if off < 0 || n < 0 || off+n > p.Bytes {
		panic("ncore: DevicePtr.Slice out of range")
	}
	return DevicePtr{Addr: p.Addr + uintptr(off), Bytes: n}
}

// DeviceBuffer is typed device memory; make it with DevicePtr.As.
type DeviceBuffer struct {
	ptr   DevicePtr
	dtype DataType
	count int
	size  int
}

// view implements Buffer.
func (b DeviceBuffer) view() bufferView {
	return bufferView{addr: b.ptr.Addr, count: b.count, dtype: b.dtype, elemSize: b.size}
}

// Len is the number of elements.
func (b DeviceBuffer) Len() int { return b.count }

// DataType is the element type.
func (b DeviceBuffer) DataType() DataType { return b.dtype }

// Ptr is the untyped range.
func (b DeviceBuffer) Ptr() DevicePtr { return b.ptr }

// Elements is the sub-buffer of n elements starting at element off; it
// panics when out of range, like slicing.
func (b DeviceBuffer) Elements(off, n int) DeviceBuffer {
	if off < 0 || n < 0 || off+n > b.count {
		panic("ncore: DeviceBuffer.Elements out of range")
	}
	return DeviceBuffer{ptr: DevicePtr{Addr: b.ptr.Addr + uintptr(off*b.size), Bytes: n * b.size},
		dtype: b.dtype, count: n, size: b.size}
}

// refused is the error for a Buffer no call may use, nil otherwise: one of
// another type than the package's kinds (viewOf), or one of a negative
// element count (DeviceElements(addr, -1, dt), DevicePtr{Bytes: -4}.As),
// which C's size_t would read as a huge one. Every call checks its buffers
// here before it converts their counts.
func (v bufferView) refused(function, argument string) error {
	switch {
	case v.foreign:
		return newError(StatusInvalid, function, argument,
			"is not a HostBuffer or DeviceBuffer (a type embedding one is not accepted: pass the field)")
	case v.count < 0:
		return newError(StatusInvalid, function, argument, "holds %d elements, a negative count", v.count)
	}
	return nil
}

// viewOf is the view of a possibly nil Buffer. The package's two kinds are
// read through a type switch, not the interface method: a method called
// through an interface makes the compiler move every value converted to
// Buffer to the heap (an allocation per call for a DeviceBuffer);
// with the switch it stays on the caller's stack. Any other type (one that
// embeds a kind gets its method) is marked foreign and refused by the
// checks (refused).
func viewOf(b Buffer) bufferView {
	switch v := b.(type) {
	case nil:
		return bufferView{}
	case DeviceBuffer:
		return v.view()
	case HostBuffer:
		return v.view()
	case *DeviceBuffer:
		if v != nil {
			return v.view()
		}
	case *HostBuffer:
		if v != nil {
			return v.view()
		}
	default:
		return bufferView{foreign: true}
	}
	return bufferView{}
}
