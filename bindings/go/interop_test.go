package ncore

import (
	"encoding/binary"
	"math"
	"runtime"
	"testing"
	"time"
)

// Raw handles and addresses (handles.go, DeviceElements, HostBytes,
// Release / MemFree) and the library-reported argument errors that the
// conformance runner relies on.

func TestLibraryReportsArgumentErrorsItself(t *testing.T) {
	_, err := InitAll(0, nil, nil)
	wantErr(t, "InitAll(0)", err, ErrInvalid, "ncore_comm_init_all", "ndev")
	_, err = DataTypeSize(DataType(99))
	wantErr(t, "DataTypeSize(99)", err, ErrInvalid, "ncore_dtype_size")
	if n, err := DataTypeSize(BFloat16); err != nil || n != 2 {
		t.Fatalf("DataTypeSize(BFloat16) = %d, %v", n, err)
	}
	mem, err := MemAlloc(BackendHost, 64)
	must(t, "MemAlloc", err)
	p := mem.Release()
	must(t, "Close after Release does nothing", mem.Close())
	must(t, "MemFree", MemFree(BackendHost, p.Addr))
	wantErr(t, "second MemFree", MemFree(BackendHost, p.Addr), ErrInvalid, "ptr")
	must(t, "MemFree(0)", MemFree(BackendHost, 0))
}

func TestHostBytesViewsRawBytesAsATypedBuffer(t *testing.T) {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, math.Float32bits(1.5))
	hb := HostBytes(b, Float32)
	if hb.Len() != 2 || hb.DataType() != Float32 {
		t.Fatalf("HostBytes: %d elements of %v", hb.Len(), hb.DataType())
	}
	if hb := HostBytes(b, Float16); hb.Len() != 4 {
		t.Fatalf("float16 view has %d elements", hb.Len())
	}
	// An unknown type passes through (one element per byte) for the library
	// to refuse.
	if hb := HostBytes(b, DataType(99)); hb.Len() != 8 {
		t.Fatalf("unknown type view has %d elements", hb.Len())
	}
	d := DeviceElements(0x1000, 3, Int64)
	if d.Len() != 3 || d.Ptr().Bytes != 24 {
		t.Fatalf("DeviceElements: %d elements, %d bytes", d.Len(), d.Ptr().Bytes)
	}
}

func TestRawHandlesWrapTheSameObjects(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		mem, err := MemAlloc(BackendHost, 64)
		must(t, "MemAlloc", err)
		defer mem.Close()
		w, err := c.RegisterWindow(mem.Ptr(), WindowCollSymmetric)
		must(t, "RegisterWindow", err)
		op, err := c.CreatePreMulSum(Host([]float32{2}), ScalarHostImmediate)
		must(t, "CreatePreMulSum", err)

		same := CommunicatorFromHandle(c.Handle())
		if r := value[int](t, "borrowed Rank")(same.Rank()); r != rank {
			t.Fatalf("borrowed communicator has rank %d", r)
		}
		if n := value[int](t, "borrowed window Size")(WindowFromHandle(w.Handle()).Size()); n != 64 {
			t.Fatalf("borrowed window size %d", n)
		}
		if dt := value[DataType](t, "borrowed op DataType")(CustomRedOpFromHandle(op.Handle()).DataType()); dt != Float32 {
			t.Fatalf("borrowed op type %v", dt)
		}
		// A handle of another kind is refused by the library, not misread.
		_, err = WindowFromHandle(op.Handle()).Size()
		wantErr(t, "op handle as a window", err, ErrInvalid, "ncore_window_size")
		_, err = SymmetricMemoryFromHandle(0).Size()
		wantErr(t, "null symmetric handle", err, ErrInvalid, "NCORE_NULL_HANDLE")
		if RegisteredBufferFromHandle(w.Handle()).IsValid() || DevCommFromHandle(0).IsValid() {
			t.Fatal("wrong-kind or null handles report valid")
		}

		// Device-style buffers with explicit counts reach the library as is:
		// a NULL send buffer with elements is its error, with its message.
		sum := DeviceElements(mem.Ptr().Addr, 4, Int32)
		err = c.AllReduce(DeviceElements(0, 4, Int32), sum, Sum, nil)
		wantErr(t, "NULL sendbuf", err, ErrInvalid, "ncore_allreduce", "sendbuf")
		must(t, "fill", Memcpy(BackendHost, sum, Host([]int32{1, 2, 3, int32(rank)}), nil))
		must(t, "AllReduce on raw memory", c.AllReduce(sum, sum, Sum, nil))
		got := make([]int32, 4)
		must(t, "read", Memcpy(BackendHost, Host(got), sum, nil))
		if got[0] != 2 || got[1] != 4 || got[2] != 6 || got[3] != 1 {
			t.Fatalf("raw allreduce gave %v", got)
		}

		err = c.WaitSignal(nil, nil)
		wantErr(t, "no descriptors", err, ErrInvalid, "ncore_wait_signal", "descs")
		err = c.WaitSignalWith([]WaitSignalDesc{SignalsFrom(1-rank, 1)}, &WaitSignalOptions{StructSize: 2}, nil)
		wantErr(t, "struct_size 2", err, ErrInvalid, "struct_size")
		_, err = c.CreateDevComm(&DevCommRequirements{StructSize: 3})
		wantErr(t, "requirements struct_size 3", err, ErrInvalid, "struct_size")
		must(t, "Close borrowed window", WindowFromHandle(w.Handle()).Close())
		if w.IsValid() {
			t.Fatal("window still valid after closing it through a borrowed wrapper")
		}
	})
}

// A communicator dropped without Close is destroyed by its finalizer, and a
// resource of it answers ErrClosed afterwards (the handle outlives the Go
// object, so the check goes through a borrowed wrapper).
func TestFinalizerDestroysADroppedCommunicator(t *testing.T) {
	handle, opHandle := func() (uint64, uint64) {
		id, err := NewUniqueID(BackendHost)
		must(t, "NewUniqueID", err)
		c, err := InitRank(1, id, 0, hostConfig(5e9))
		must(t, "InitRank", err)
		op, err := c.CreatePreMulSum(Host([]float64{3}), ScalarHostImmediate)
		must(t, "CreatePreMulSum", err)
		return c.Handle(), op.Handle()
	}()
	for i := 0; i < 20 && CommunicatorFromHandle(handle).IsValid(); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if CommunicatorFromHandle(handle).IsValid() {
		t.Fatal("the finalizer did not destroy the dropped communicator")
	}
	_, err := CustomRedOpFromHandle(opHandle).DataType()
	wantErr(t, "operator of a finalized communicator", err, ErrClosed)
}
