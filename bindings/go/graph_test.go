package ncore

import (
	"fmt"
	"os"
	"testing"
	"time"

	"ncore.dev/ncore/internal/cudagraph"
)

// An allreduce, a send/recv ring in a group, and PutSignal to the
// next rank with a WaitSignal for the previous one (where they are LSA
// peers), run once eagerly, then captured into a CUDA graph on a stream of
// ours (cudagraph: the driver's calls through dlopen, Go has no CUDA
// binding) and replayed with new inputs, the data checked after each
// replay. A Synchronize of the capturing stream is refused
// (ErrInvalidUsage naming the CUDA graph) and the capture goes on. NCCL
// only: the host backend has nothing to capture; skips with the reason
// where NCCL or the GPUs are missing.
func TestNCCLGraphCapture(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		if reason := ncclSkipReason(2); reason != "" {
			t.Skip(reason)
		}
	}
	runRanks(t, 2, rankOptions{backend: BackendNCCL, timeout: 60 * time.Second}, graphRanks)
}

func graphRanks(t *testing.T, c *Communicator, rank int) {
	const words, replays = 8, 4
	n := value[int](t, "Size")(c.Size())
	right, left := (rank+1)%n, (rank+n-1)%n
	oneSided := lsaReachable(t, c, right) && lsaReachable(t, c, left)
	var open []*DeviceMemory
	defer func() {
		for _, m := range open {
			m.Close()
		}
	}()
	alloc := func(bytes int) *DeviceMemory {
		m, err := MemAlloc(BackendNCCL, bytes)
		must(t, "MemAlloc", err)
		open = append(open, m)
		return m
	}
	send, sum, ringIn, staging, inbox := alloc(4*words), alloc(4*words), alloc(4*words),
		alloc(4*words), alloc(4096)
	must(t, "Memset", Memset(BackendNCCL, inbox.As(Uint8), 0, nil))
	must(t, "Synchronize", c.Synchronize(nil)) // zeroed before any peer writes
	w, err := c.RegisterWindow(inbox.Ptr(), WindowCollSymmetric)
	must(t, "RegisterWindow", err)
	stream, err := NewStream(BackendNCCL)
	must(t, "NewStream", err)
	defer stream.Close()

	// What rank r sends in step s.
	values := func(r, step int) []int32 {
		v := make([]int32, words)
		for i := range v {
			v[i] = int32(1000*r + 10*step + i)
		}
		return v
	}
	calls := func(capturing bool) {
		must(t, "AllReduce", c.AllReduce(send.As(Int32), sum.As(Int32), Sum, stream))
		must(t, "ring", Group(func() error {
			if err := c.Send(send.As(Int32), right, stream); err != nil {
				return err
			}
			return c.Recv(ringIn.As(Int32), left, stream)
		}))
		if capturing {
			wantErr(t, "Synchronize while capturing", c.Synchronize(stream),
				ErrInvalidUsage, "CUDA graph")
		}
		if oneSided {
			must(t, "PutSignal", c.PutSignal(staging.As(Int32), right, w, 0, nil, stream))
			must(t, "WaitSignal", c.WaitSignal([]WaitSignalDesc{SignalsFrom(left, 1)}, stream))
		}
	}
	inputs := func(step int) {
		must(t, "Memcpy send", Memcpy(BackendNCCL, send.As(Int32), Host(values(rank, step)), nil))
		must(t, "Memcpy staging", Memcpy(BackendNCCL, staging.As(Int32), Host(values(rank, step)), nil))
		one := alloc(4)
		must(t, "Memcpy one", Memcpy(BackendNCCL, one.As(Int32), Host([]int32{1}), nil))
		must(t, "barrier", c.AllReduce(one.As(Int32), one.As(Int32), Sum, nil))
		must(t, "barrier", c.Synchronize(nil))
	}
	read := func(m *DeviceMemory) []int32 { // its first words (the inbox is larger)
		out := make([]int32, words)
		must(t, "Memcpy out", Memcpy(BackendNCCL, Host(out), m.Ptr().Slice(0, 4*words).As(Int32), nil))
		return out
	}
	check := func(step int, what string) {
		must(t, "Synchronize(stream)", c.Synchronize(stream))
		want := make([]int32, words)
		for r := 0; r < n; r++ {
			for i, v := range values(r, step) {
				want[i] += v
			}
		}
		for _, m := range []struct {
			name string
			got  []int32
			want []int32
		}{{"allreduce", read(sum), want}, {"ring", read(ringIn), values(left, step)}} {
			if fmt.Sprint(m.got) != fmt.Sprint(m.want) {
				t.Fatalf("%s: %s: got %v, want %v", what, m.name, m.got, m.want)
			}
		}
		if oneSided {
			if got := read(inbox); fmt.Sprint(got) != fmt.Sprint(values(left, step)) {
				t.Fatalf("%s: put from rank %d: got %v, want %v", what, left, got, values(left, step))
			}
		}
	}

	inputs(0)
	calls(false)
	check(0, "eager")
	graph, err := cudagraph.Capture(stream.Addr(), func() { calls(true) })
	must(t, "capture", err)
	defer graph.Close()
	for step := 1; step <= replays; step++ {
		inputs(step)
		must(t, "launch", graph.Launch(stream.Addr()))
		check(step, fmt.Sprintf("replay %d", step))
	}
	inputs(replays + 1) // no peer still writes into the window
	must(t, "Window.Close", w.Close())
}
