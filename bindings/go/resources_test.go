package ncore

import (
	"testing"
)

// Split / shrink, queries, registered buffers, custom operators, device
// communicators and symmetric memory on 4 ranks.

func TestQueriesOnFourRanks(t *testing.T) {
	runRanks(t, 4, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		if n := value[int](t, "Size")(c.Size()); n != 4 {
			t.Fatalf("Size = %d", n)
		}
		if d := value[int](t, "Device")(c.Device()); d != -1 {
			t.Fatalf("Device = %d", d)
		}
		if b := value[Backend](t, "Backend")(c.Backend()); b != BackendHost {
			t.Fatalf("Backend = %v", b)
		}
		if r := value[int](t, "LSARank")(c.LSARank()); r != rank {
			t.Fatalf("LSARank = %d", r)
		}
		if n := value[int](t, "LSASize")(c.LSASize()); n != 4 {
			t.Fatalf("LSASize = %d", n)
		}
		if s := value[Status](t, "AsyncError")(c.AsyncError()); s != StatusOK {
			t.Fatalf("AsyncError = %v", s)
		}
		if g := value[GinType](t, "GinType")(c.GinType()); g != GinTypeNone {
			t.Fatalf("GinType = %v", g)
		}
		if g := value[GinType](t, "RailedGinType")(c.RailedGinType()); g != GinTypeNone {
			t.Fatalf("RailedGinType = %v", g)
		}
		// No rank leaves before every rank asked for the async error, so the
		// answer cannot depend on how the backend sees a departed peer.
		must(t, "barrier", c.AllReduce(Host([]int8{0}), Host(make([]int8, 1)), Sum, nil))
	})
}

func TestSplitAndShrinkMakeSmallerCommunicators(t *testing.T) {
	runRanks(t, 4, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		half, err := c.Split(rank%2, -rank, nil)
		must(t, "Split", err)
		defer half.Close()
		if n := value[int](t, "half Size")(half.Size()); n != 2 {
			t.Fatalf("split size %d", n)
		}
		// key -rank reverses the order: the higher old rank comes first.
		want := 0
		if rank < 2 {
			want = 1
		}
		if r := value[int](t, "half Rank")(half.Rank()); r != want {
			t.Fatalf("rank %d has split rank %d, want %d", rank, r, want)
		}
		sum := []int32{int32(rank)}
		must(t, "AllReduce on half", half.AllReduce(Host(sum), Host(sum), Sum, nil))
		if sum[0] != int32(2+2*(rank%2)) { // evens 0+2, odds 1+3
			t.Fatalf("half sum %d", sum[0])
		}
		color := 0
		if rank == 0 {
			color = SplitNoColor
		}
		some, err := c.Split(color, 0, nil)
		must(t, "Split NOCOLOR", err)
		if rank == 0 && some != nil {
			t.Fatal("NOCOLOR rank got a communicator")
		}
		if rank != 0 {
			if n := value[int](t, "Size")(some.Size()); n != 3 {
				t.Fatalf("split without rank 0 has %d ranks", n)
			}
			some.Close()
		}
		_, err = c.Split(-5, 0, nil)
		wantErr(t, "color -5", err, ErrInvalid, "color")

		if rank == 3 {
			return // excluded from the shrink: does not call it
		}
		small, err := c.Shrink([]int{3}, nil, ShrinkDefault)
		must(t, "Shrink", err)
		defer small.Close()
		if n := value[int](t, "shrunk Size")(small.Size()); n != 3 {
			t.Fatalf("shrunk size %d", n)
		}
		if r := value[int](t, "shrunk Rank")(small.Rank()); r != rank {
			t.Fatalf("shrunk rank %d, was %d", r, rank)
		}
		_, err = c.Shrink([]int{rank}, nil, ShrinkDefault)
		wantErr(t, "shrink excluding self", err, ErrInvalid)
	})
}

func TestPreMulSumScalesTheSum(t *testing.T) {
	runRanks(t, 4, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		op, err := c.CreatePreMulSum(Host([]float32{0.5}), ScalarHostImmediate)
		must(t, "CreatePreMulSum", err)
		if dt := value[DataType](t, "DataType")(op.DataType()); dt != Float32 {
			t.Fatalf("op type %v", dt)
		}
		v := value[ReduceOp](t, "Op")(op.Op())
		x := []float32{float32(rank + 1), 2}
		must(t, "AllReduce PreMulSum", c.AllReduce(Host(x), Host(x), v, nil))
		if x[0] != 5 || x[1] != 4 { // 0.5*(1+2+3+4), 0.5*8
			t.Fatalf("PreMulSum gave %v", x)
		}
		err = c.AllReduce(Host([]int32{1}), Host(make([]int32, 1)), v, nil)
		wantErr(t, "float32 op on int32", err, ErrInvalid)
		_, err = c.CreatePreMulSum(Host([]float32{0.5}), ScalarDevice)
		wantErr(t, "Go slice as device scalar", err, ErrInvalid, "scalar")
		must(t, "op Close", op.Close())
		must(t, "op second Close", op.Close())
		_, err = op.Op()
		wantErr(t, "closed op", err, ErrClosed)
	})
}

func TestRegisteredBufferAndDevComm(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		mem, err := MemAlloc(BackendHost, 128)
		must(t, "MemAlloc", err)
		defer mem.Close()
		rb, err := c.RegisterBuffer(mem.Ptr())
		must(t, "RegisterBuffer", err)
		if n := value[int](t, "Size")(rb.Size()); n != 128 {
			t.Fatalf("registered size %d", n)
		}
		if p := value[uintptr](t, "Pointer")(rb.Pointer()); p != mem.Ptr().Addr {
			t.Fatalf("registered pointer %#x", p)
		}
		if h := value[uintptr](t, "NativeHandle")(rb.NativeHandle()); h == 0 {
			t.Fatal("native handle 0")
		}
		_, err = c.RegisterBuffer(DevicePtr{})
		wantErr(t, "register NULL", err, ErrInvalid, "ptr")
		must(t, "rb Close", rb.Close())
		must(t, "rb second Close", rb.Close())
		if rb.IsValid() {
			t.Fatal("closed registration valid")
		}

		dc, err := c.CreateDevComm(nil)
		must(t, "CreateDevComm", err)
		info, err := dc.Info()
		must(t, "Info", err)
		if info.Rank != rank || info.NRanks != 2 || info.LSASize != 2 || info.GinType != GinTypeNone {
			t.Fatalf("dev comm info %+v", info)
		}
		if p := value[uintptr](t, "Pointer")(dc.Pointer()); p == 0 {
			t.Fatal("dev comm pointer 0")
		}
		_, err = c.CreateDevComm(&DevCommRequirements{GinConnectionType: 9})
		wantErr(t, "unknown gin connection type", err, ErrInvalid, "gin_connection_type")
		// Team and resource requirements (ABI 1.2): checked naming the
		// field; the host backend has no device resources and no multimem.
		lsa := value[Team](t, "TeamLSA")(c.TeamLSA())
		world := value[Team](t, "TeamWorld")(c.TeamWorld())
		_, err = c.CreateDevCommWith(nil, nil, []ResourceRequirement{LSABarrier(lsa, 0)})
		wantErr(t, "zero barriers", err, ErrInvalid, "resources[0].n_barriers: 0")
		outside := world
		outside.NRanks = 3
		_, err = c.CreateDevCommWith(nil, []TeamRequirement{{Team: outside}}, nil)
		wantErr(t, "team outside", err, ErrInvalid, "not a team of this communicator")
		_, err = c.CreateDevCommWith(nil, nil, []ResourceRequirement{LLA2A(1, 8, 8)})
		wantErr(t, "host resources", err, ErrNotSupported, "no device resources")
		_, err = c.CreateDevCommWith(nil, []TeamRequirement{{Team: lsa, Multimem: true}}, nil)
		wantErr(t, "host multimem", err, ErrNotSupported, "multimem")
		caps := int32(8)
		_, err = c.CreateDevComm(&DevCommRequirements{CFTCaps: &caps})
		wantErr(t, "cft caps", err, ErrInvalid, "cft_caps")
		teams, err := c.CreateDevCommWith(nil, []TeamRequirement{{Team: world}}, nil)
		must(t, "CreateDevCommWith", err)
		if hs := value[[]ResourceHandle](t, "ResourceHandles")(teams.ResourceHandles()); len(hs) != 0 {
			t.Fatalf("resource handles %+v", hs)
		}
		_, err = teams.MultimemHandle(world)
		wantErr(t, "multimem handle not asked", err, ErrInvalid, "not requested with multimem")
		must(t, "teams Close", teams.Close())
		win, err := c.RegisterWindow(mem.Ptr(), WindowCollSymmetric)
		must(t, "RegisterWindow", err)
		if _, ok, err := win.MultimemDevicePointer(MultimemHandle{}, 0); err != nil || ok {
			t.Fatalf("multimem pointer without a base: ok %v err %v", ok, err)
		}
		_, _, err = win.MultimemDevicePointer(MultimemHandle{}, 129)
		wantErr(t, "multimem pointer offset", err, ErrInvalid, "offset")
		must(t, "win Close", win.Close())
		must(t, "barrier", c.AllReduce(Host([]int8{0}), Host(make([]int8, 1)), Sum, nil))
		must(t, "dc Close", dc.Close())
		must(t, "dc second Close", dc.Close())
		_, err = dc.Info()
		wantErr(t, "closed dev comm", err, ErrClosed)
	})
}

func TestSymmetricMemoryPutGetAndPeerPointers(t *testing.T) {
	runRanks(t, 4, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		size := 4
		next := (rank + 1) % size
		prev := (rank + size - 1) % size
		sym, err := c.SymmetricAlloc(32)
		must(t, "SymmetricAlloc", err)
		if n := value[int](t, "Size")(sym.Size()); n != 32 {
			t.Fatalf("symmetric size %d", n)
		}
		local, err := sym.Local()
		must(t, "Local", err)
		zero := make([]byte, 32)
		must(t, "read zeroed", Memcpy(BackendHost, Host(zero), local.As(Uint8), nil))
		for _, b := range zero {
			if b != 0 {
				t.Fatal("symmetric memory not zeroed")
			}
		}
		// Every rank read its zeroed part before any rank puts into it.
		must(t, "barrier", c.AllReduce(Host([]int8{0}), Host(make([]int8, 1)), Sum, nil))
		peer, ok, err := sym.PeerPointer(next)
		must(t, "PeerPointer", err)
		if !ok || peer == 0 {
			t.Fatal("host symmetric memory should be reachable")
		}
		must(t, "Put", sym.Put(8, Host([]int32{int32(rank) + 1}), next, nil))
		must(t, "barrier", c.AllReduce(Host([]int8{0}), Host(make([]int8, 1)), Sum, nil))
		got := make([]int32, 1)
		must(t, "Get own", sym.Get(Host(got), 8, rank, nil))
		if got[0] != int32(prev)+1 {
			t.Fatalf("my part holds %d, want %d", got[0], prev+1)
		}
		must(t, "Get from next", sym.Get(Host(got), 8, next, nil))
		if got[0] != int32(rank)+1 {
			t.Fatalf("next's part holds %d", got[0])
		}
		err = sym.Put(30, Host([]int32{1}), next, nil)
		wantErr(t, "put past the end", err, ErrInvalid)
		_, _, err = sym.PeerPointer(4)
		wantErr(t, "pe 4", err, ErrInvalid, "pe")
		must(t, "barrier", c.AllReduce(Host([]int8{0}), Host(make([]int8, 1)), Sum, nil))
		must(t, "Close", sym.Close())
		must(t, "second Close", sym.Close())
		_, err = sym.Size()
		wantErr(t, "closed symmetric", err, ErrClosed)
	})
}
