package ncore

import "testing"

// DLPack and array-interface resolution, through the library.

func TestFrameworkBuffersResolveThroughTheLibrary(t *testing.T) {
	if dt, err := DataTypeFromDLPack(2, 32, 1); err != nil || dt != Float32 { // kDLFloat
		t.Fatalf("DLPack float32 -> %v, %v", dt, err)
	}
	if dt, err := DataTypeFromDLPack(4, 16, 1); err != nil || dt != BFloat16 { // kDLBfloat
		t.Fatalf("DLPack bfloat16 -> %v, %v", dt, err)
	}
	_, err := DataTypeFromDLPack(2, 32, 4)
	wantErr(t, "4 lanes", err, ErrInvalid, "lanes")
	_, err = ResolveDLPack(0)
	wantErr(t, "NULL tensor", err, ErrInvalid, "ncore_buffer_resolve_dlpack")

	mem, err := MemAlloc(BackendHost, 64)
	must(t, "MemAlloc", err)
	defer mem.Close()
	r, err := ResolveArrayInterface(mem.Ptr().Addr, []int64{2, 3}, nil, "<f4", -1)
	must(t, "ResolveArrayInterface", err)
	if r.Addr != mem.Ptr().Addr || r.Count != 6 || r.DataType != Float32 || r.DeviceType != DeviceCPU || r.DeviceID != -1 {
		t.Fatalf("resolved %+v", r)
	}
	if r.Buffer().Len() != 6 {
		t.Fatalf("resolved buffer has %d elements", r.Buffer().Len())
	}
	_, err = ResolveArrayInterface(mem.Ptr().Addr, []int64{2, 3}, []int64{4, 8}, "<f4", -1)
	wantErr(t, "non-contiguous strides", err, ErrInvalid)
	_, err = ResolveArrayInterface(mem.Ptr().Addr, []int64{2}, nil, "<V2", -1)
	wantErr(t, "typestr <V2", err, ErrInvalid)

	id, err := NewUniqueID(BackendHost)
	must(t, "NewUniqueID", err)
	c, err := InitRank(1, id, 0, hostConfig(5e9))
	must(t, "InitRank", err)
	defer c.Close()
	must(t, "CheckBuffer host memory", c.CheckBuffer(r, "sendbuf"))
	onGPU := r
	onGPU.DeviceType, onGPU.DeviceID = DeviceCUDA, 0
	wantErr(t, "CheckBuffer device memory on host", c.CheckBuffer(onGPU, "sendbuf"), ErrInvalid, "sendbuf")
}
