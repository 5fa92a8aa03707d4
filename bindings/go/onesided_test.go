package ncore

import (
	"testing"
)

// Windows, put_signal, signal and wait_signal on 4 ranks.

func TestPutSignalWritesIntoThePeersWindow(t *testing.T) {
	runRanks(t, 4, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		size := value[int](t, "Size")(c.Size())
		next, prev := (rank+1)%size, (rank+size-1)%size
		mem, err := MemAlloc(BackendHost, 64)
		must(t, "MemAlloc", err)
		defer mem.Close()
		must(t, "Memset", Memset(BackendHost, mem.As(Uint8), 0, nil))
		w, err := c.RegisterWindow(mem.Ptr(), WindowCollSymmetric)
		must(t, "RegisterWindow", err)
		defer w.Close()

		// Queries.
		if n := value[int](t, "Size")(w.Size()); n != 64 {
			t.Fatalf("window Size = %d", n)
		}
		if n := value[int](t, "PeerSize")(w.PeerSize(next)); n != 64 {
			t.Fatalf("window PeerSize = %d", n)
		}
		if f := value[WindowFlags](t, "Flags")(w.Flags()); f != WindowCollSymmetric {
			t.Fatalf("Flags = %v", f)
		}
		if p := value[uintptr](t, "UserPointer")(w.UserPointer()); p != mem.Ptr().Addr {
			t.Fatalf("UserPointer %#x, registered %#x", p, mem.Ptr().Addr)
		}
		if h := value[uintptr](t, "NativeHandle")(w.NativeHandle()); h == 0 {
			t.Fatal("NativeHandle is 0")
		}
		self, ok, err := w.PeerDevicePointer(rank, 8)
		must(t, "PeerDevicePointer self", err)
		if !ok || self != mem.Ptr().Addr+8 {
			t.Fatalf("own peer pointer %#x ok=%v, want %#x", self, ok, mem.Ptr().Addr+8)
		}
		if _, ok, err := w.PeerDevicePointer(next, 0); err != nil || !ok {
			t.Fatalf("MemAlloc memory should be reachable on host: ok=%v err=%v", ok, err)
		}
		if _, ok, err := w.LSADevicePointer(0, 0); err != nil || !ok {
			t.Fatalf("LSA pointer: ok=%v err=%v", ok, err)
		}
		if _, ok, err := w.LSAMultimemDevicePointer(0); err != nil || ok {
			t.Fatalf("multimem on host: ok=%v err=%v (want unavailable, no error)", ok, err)
		}
		_, _, err = w.PeerDevicePointer(9, 0)
		wantErr(t, "peer pointer of rank 9", err, ErrInvalid, "peer")

		// Ring put: 4 int32 into next's window at element offset 2.
		data := []int32{int32(rank), int32(rank) + 10, int32(rank) + 20, int32(rank) + 30}
		must(t, "PutSignal", c.PutSignal(Host(data), next, w, 2, nil, nil))
		must(t, "WaitSignal", c.WaitSignal([]WaitSignalDesc{SignalsFrom(prev, 1)}, nil))
		got := make([]int32, 6)
		must(t, "read window", Memcpy(BackendHost, Host(got), mem.As(Int32).Elements(0, 6), nil))
		if got[0] != 0 || got[2] != int32(prev) || got[5] != int32(prev)+30 {
			t.Fatalf("window after put from %d: %v", prev, got)
		}

		// Two plain signals, consumed by one wait of op_count 2.
		must(t, "Signal 1", c.Signal(next, nil, nil))
		must(t, "Signal 2", c.Signal(next, nil, nil))
		must(t, "WaitSignal 2", c.WaitSignal([]WaitSignalDesc{SignalsFrom(prev, 2)}, nil))

		// Errors: reserved arguments, zero op count, a put that does not fit.
		wantErr(t, "signal index 1", c.Signal(next, &SignalOptions{SignalIndex: 1}, nil), ErrInvalid, "signal_index")
		wantErr(t, "op_count 0", c.WaitSignal([]WaitSignalDesc{{Peer: prev}}, nil), ErrInvalid, "op_count")
		wantErr(t, "no descriptors", c.WaitSignal(nil, nil), ErrInvalid, "descs")
		err = c.PutSignal(Host(make([]int32, 16)), next, w, 8, nil, nil)
		wantErr(t, "put past the window", err, ErrInvalid, "ncore_put_signal")
		err = c.PutSignal(Host(data), next, nil, 0, nil, nil)
		wantErr(t, "nil window", err, ErrInvalid, "peer_window")

		// Everyone is done with the windows before they are closed.
		must(t, "barrier", c.AllReduce(Host([]int8{0}), Host(make([]int8, 1)), Sum, nil))
		must(t, "window Close", w.Close())
		must(t, "window second Close", w.Close())
		_, err = w.Size()
		wantErr(t, "closed window", err, ErrClosed)
		wantErr(t, "put to closed window", c.PutSignal(Host(data), next, w, 0, nil, nil), ErrClosed)
	})
}
