package ncore

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// The binding on NCCL with 2 ranks, in memory from ncore's allocator:
// collectives, a send/recv ring, a window with PutSignal / Signal /
// WaitSignal. Two ranks need two GPUs, or NCORE_OVERSUBSCRIBE=1 to share
// one: each rank then gets its own NCCL host identity (runRanks), so its LSA
// team is itself, and calls that need a load/store-reachable peer must
// answer exactly ErrNotSupported naming the LSA team. Skips with the reason
// where NCCL or a GPU is missing; the same body runs on the host backend
// (every rank an LSA peer) everywhere, so CI exercises it.
//
// On a GPU machine: `go test -c -o build/bin/ncore-go-tests` here, carried
// with build/lib, and build/bin/ncore-go-tests -test.run 'NCCL|DeviceMemoryRanks' -test.v
// (tools/gpu-run.sh).

// ncclSkipReason is why n NCCL ranks cannot run here, or "".
func ncclSkipReason(n int) string {
	if _, err := BackendNCCL.Resolve(); err != nil {
		return fmt.Sprintf("NCCL backend unavailable: %v", err)
	}
	count, err := DeviceCount(BackendNCCL)
	switch {
	case err != nil:
		return fmt.Sprintf("cannot count CUDA devices: %v", err)
	case count == 0:
		return "no CUDA device"
	case count >= n || oversubscribeRequested():
		return ""
	}
	return fmt.Sprintf("%d NCCL ranks need %d GPUs, or NCORE_OVERSUBSCRIBE=1 to share one; found %d",
		n, n, count)
}

func TestNCCLTwoRanksDeviceMemory(t *testing.T) {
	if os.Getenv(childEnv) == "" { // the parent decides on skips
		if reason := ncclSkipReason(2); reason != "" {
			t.Skip(reason)
		}
	}
	runRanks(t, 2, rankOptions{backend: BackendNCCL, timeout: 60 * time.Second},
		deviceMemoryRanks(BackendNCCL))
}

func TestDeviceMemoryRanksOnHost(t *testing.T) {
	runRanks(t, 2, rankOptions{}, deviceMemoryRanks(BackendHost))
}

// lsaReachable says whether peer is in c's LSA team (NCCL's team is the
// block of LSASize consecutive ranks around this one).
func lsaReachable(t *testing.T, c *Communicator, peer int) bool {
	t.Helper()
	rank := value[int](t, "Rank")(c.Rank())
	first := rank - value[int](t, "LSARank")(c.LSARank())
	return peer >= first && peer < first+value[int](t, "LSASize")(c.LSASize())
}

// lsaCall checks a call that reaches peer through its memory: done when
// peer is LSA-reachable, else exactly ErrNotSupported naming the LSA team.
// It returns whether the call was done.
func lsaCall(t *testing.T, c *Communicator, peer int, what string, err error) bool {
	t.Helper()
	if lsaReachable(t, c, peer) {
		must(t, fmt.Sprintf("%s (LSA peer %d)", what, peer), err)
		return true
	}
	wantErr(t, fmt.Sprintf("%s (rank %d, outside the LSA team)", what, peer), err,
		ErrNotSupported, "LSA team")
	return false
}

// deviceMemoryRanks is the body on backend: every buffer from MemAlloc
// (device memory on NCCL), filled and read with Memcpy from Go slices.
func deviceMemoryRanks(backend Backend) func(t *testing.T, c *Communicator, rank int) {
	return func(t *testing.T, c *Communicator, rank int) {
		n := value[int](t, "Size")(c.Size())
		right, left := (rank+1)%n, (rank+n-1)%n
		var open []*DeviceMemory
		defer func() {
			for _, m := range open {
				m.Close()
			}
		}()
		alloc := func(count int) *DeviceMemory {
			m, err := MemAlloc(backend, 4*count)
			must(t, "MemAlloc", err)
			open = append(open, m)
			return m
		}
		// load makes device memory holding values.
		load := func(values ...float32) *DeviceMemory {
			m := alloc(len(values))
			must(t, "Memcpy in", Memcpy(backend, m.As(Float32), Host(values), nil))
			return m
		}
		// filled makes count elements of value.
		filled := func(count int, value float32) *DeviceMemory {
			values := make([]float32, count)
			for i := range values {
				values[i] = value
			}
			return load(values...)
		}
		// read waits for c's work, then copies m's first count elements out.
		read := func(m *DeviceMemory, count int) []float32 {
			must(t, "Synchronize", c.Synchronize(nil))
			out := make([]float32, count)
			must(t, "Memcpy out", Memcpy(backend, Host(out), m.As(Float32).Elements(0, count), nil))
			return out
		}
		expect := func(what string, got []float32, want ...float32) {
			t.Helper()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: got %v, want %v", what, got, want)
			}
		}

		// Properties.
		device := -1
		if backend == BackendNCCL {
			device = rank % value[int](t, "DeviceCount")(DeviceCount(BackendNCCL))
		}
		if b := value[Backend](t, "Backend")(c.Backend()); b != backend {
			t.Fatalf("Backend = %v, want %v", b, backend)
		}
		if d := value[int](t, "Device")(c.Device()); d != device {
			t.Fatalf("Device = %d, want %d", d, device)
		}
		if backend == BackendNCCL && oversubscribeRequested() {
			// Every rank its own NCCL host: nothing is load/store reachable.
			lr, ls := value[int](t, "LSARank")(c.LSARank()), value[int](t, "LSASize")(c.LSASize())
			if lr != 0 || ls != 1 {
				t.Fatalf("oversubscribed: LSA rank/size %d/%d, want 0/1", lr, ls)
			}
		}

		// The eight collectives.
		r, nf := float32(rank), float32(n)
		y := alloc(4)
		must(t, "AllReduce", c.AllReduce(load(r, r+1, r+2, r+3).As(Float32), y.As(Float32), Sum, nil))
		base := nf * (nf - 1) / 2
		expect("AllReduce", read(y, 4), base, base+nf, base+2*nf, base+3*nf)

		root := n - 1
		b := filled(3, -1)
		var bsend Buffer
		if rank == root {
			bsend = load(100, 101, 102).As(Float32)
		}
		must(t, "Broadcast", c.Broadcast(bsend, b.As(Float32), root, nil))
		expect("Broadcast", read(b, 3), 100, 101, 102)

		var rrecv Buffer
		red := filled(2, -1)
		if rank == 0 {
			rrecv = red.As(Float32)
		}
		must(t, "Reduce", c.Reduce(filled(2, r).As(Float32), rrecv, Max, 0, nil))
		if rank == 0 {
			expect("Reduce Max", read(red, 2), nf-1, nf-1)
		}

		g := filled(2*n, -1)
		must(t, "AllGather", c.AllGather(load(10*r, 10*r+1).As(Float32), g.As(Float32), nil))
		var wantG []float32
		for k := 0; k < n; k++ {
			wantG = append(wantG, 10*float32(k), 10*float32(k)+1)
		}
		expect("AllGather", read(g, 2*n), wantG...)

		var rsIn []float32
		for j := 0; j < n; j++ {
			rsIn = append(rsIn, r+100*float32(j), r+100*float32(j)+1)
		}
		rs := filled(2, -1)
		must(t, "ReduceScatter", c.ReduceScatter(load(rsIn...).As(Float32), rs.As(Float32), Sum, nil))
		expect("ReduceScatter", read(rs, 2), base+nf*100*r, base+nf*(100*r+1))

		var a2aIn, wantA2A []float32
		for j := 0; j < n; j++ {
			a2aIn = append(a2aIn, 1000*r+float32(j))
			wantA2A = append(wantA2A, 1000*float32(j)+r)
		}
		a2a := filled(n, -1)
		must(t, "AllToAll", c.AllToAll(load(a2aIn...).As(Float32), a2a.As(Float32), nil))
		expect("AllToAll", read(a2a, n), wantA2A...)

		var grecv Buffer
		gathered := filled(2*n, -1)
		if rank == 0 {
			grecv = gathered.As(Float32)
		}
		must(t, "Gather", c.Gather(load(r, -r).As(Float32), grecv, 0, nil))
		if rank == 0 {
			var want []float32
			for k := 0; k < n; k++ {
				want = append(want, float32(k), -float32(k))
			}
			expect("Gather", read(gathered, 2*n), want...)
		}

		var ssend Buffer
		if rank == 0 {
			var blocks []float32
			for j := 0; j < n; j++ {
				blocks = append(blocks, 5*float32(j))
			}
			ssend = load(blocks...).As(Float32)
		}
		s := filled(1, -1)
		must(t, "Scatter", c.Scatter(ssend, s.As(Float32), 0, nil))
		expect("Scatter", read(s, 1), 5*r)

		// On a stream of its own.
		stream, err := NewStream(backend)
		must(t, "NewStream", err)
		defer stream.Close()
		z := filled(4, r+1)
		must(t, "AllReduce on a stream", c.AllReduce(z.As(Float32), z.As(Float32), Sum, stream))
		must(t, "Synchronize(stream)", c.Synchronize(stream))
		sum := nf * (nf + 1) / 2
		expect("AllReduce on a stream", read(z, 4), sum, sum, sum, sum)

		// Errors found before the backend sees the call.
		err = c.AllReduce(z.As(Float32), alloc(2).As(Float32), Sum, nil)
		wantErr(t, "AllReduce into 2 elements", err, ErrInvalid, "recvbuf")
		err = c.Broadcast(b.As(Float32), b.As(Float32), n, nil)
		wantErr(t, fmt.Sprintf("Broadcast from root %d", n), err, ErrInvalid, "root")
		if backend == BackendNCCL {
			err = c.AllReduce(Host([]float32{1}), Host([]float32{0}), Sum, nil)
			wantErr(t, "AllReduce of a Go slice on NCCL", err, ErrInvalid, "device memory")
		}

		// A send/recv ring in one group.
		ringOut := load(10*r, 10*r+1, 10*r+2)
		ringIn := filled(3, -1)
		must(t, "ring", Group(func() error {
			if err := c.Send(ringOut.As(Float32), right, nil); err != nil {
				return err
			}
			return c.Recv(ringIn.As(Float32), left, nil)
		}))
		l := float32(left)
		expect("ring", read(ringIn, 3), 10*l, 10*l+1, 10*l+2)

		// A window: rank r puts 4 elements into slot r of its right
		// neighbour's part and of its own part (slot n + r).
		const slot = 4
		inbox := filled(2*n*slot, 0)
		must(t, "Synchronize", c.Synchronize(nil)) // zeroed before any peer writes
		w, err := c.RegisterWindow(inbox.Ptr(), WindowCollSymmetric)
		must(t, "RegisterWindow", err)
		if size := value[int](t, "PeerSize")(w.PeerSize(right)); size != 4*2*n*slot {
			t.Fatalf("PeerSize(%d) = %d", right, size)
		}
		_, peerOK, err := w.PeerDevicePointer(right, 0)
		must(t, "PeerDevicePointer", err)
		if peerOK != lsaReachable(t, c, right) {
			t.Fatalf("peer pointer of rank %d present=%v, LSA-reachable=%v", right, peerOK, !peerOK)
		}
		if _, ok, err := w.PeerDevicePointer(rank, 0); err != nil || !ok {
			t.Fatalf("own peer pointer: ok=%v err=%v", ok, err)
		}
		mine := load(r, r+0.25, r+0.5, r+0.75)
		lsaCall(t, c, right, "PutSignal", c.PutSignal(mine.As(Float32), right, w, rank*slot, nil, nil))
		arrived := lsaCall(t, c, left, "WaitSignal", c.WaitSignal([]WaitSignalDesc{SignalsFrom(left, 1)}, nil))
		must(t, "PutSignal to itself", c.PutSignal(mine.As(Float32), rank, w, (n+rank)*slot, nil, nil))
		must(t, "WaitSignal on itself", c.WaitSignal([]WaitSignalDesc{SignalsFrom(rank, 1)}, nil))
		lsaCall(t, c, right, "Signal", c.Signal(right, nil, nil))
		lsaCall(t, c, left, "WaitSignal", c.WaitSignal([]WaitSignalDesc{SignalsFrom(left, 1)}, nil))
		got := read(inbox, 2*n*slot)
		expect("put into its own window", got[(n+rank)*slot:(n+rank+1)*slot], r, r+0.25, r+0.5, r+0.75)
		if arrived {
			expect(fmt.Sprintf("put from rank %d", left), got[left*slot:(left+1)*slot], l, l+0.25, l+0.5, l+0.75)
		}
		// Everyone is done with the window before it goes.
		one := filled(1, 1)
		must(t, "barrier", c.AllReduce(one.As(Float32), one.As(Float32), Sum, nil))
		expect("barrier", read(one, 1), nf)
		must(t, "Window.Close", w.Close())
	}
}
