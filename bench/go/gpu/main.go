// Command gpu measures the Go binding's per-call cost on the NCCL backend:
// one rank on GPU 0, 8-byte calls on device memory and one
// stream, through the ncore package and through a C loop in this same
// process (loops.c via cgo: one crossing per round, so it is what a C
// caller pays), rounds of 20,000 calls, the two interleaved, best of 5 after
// a warm-up round. Allreduce is timed to the end of the stream; send and
// recv as enqueue calls inside groups of 64 sends then 64 receives. Prints
// one JSON object. Built by bench/gpu/build.sh (build/bin/bench-go-gpu); run
// by bench/gpu/run-all.sh on the GPU machine.
package main

/*
#cgo pkg-config: ncore
#include <stdint.h>
#include <time.h>
#include <ncore.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// An empty C function: what one cgo crossing costs on its own.
static void nothing(void) {}

// n allreduces of 2 floats in place, then the stream drained: seconds.
static double c_allreduce(uint64_t comm, uintptr_t buf, int n, uintptr_t stream) {
  double t0 = now_s();
  for (int i = 0; i < n; i++)
    if (ncore_allreduce(comm, (void *)buf, (void *)buf, 2, NCORE_FLOAT32, NCORE_SUM,
                        (ncore_stream_t)stream) != NCORE_OK) return -1;
  if (ncore_stream_synchronize((ncore_stream_t)stream, NCORE_BACKEND_NCCL) != NCORE_OK) return -1;
  return now_s() - t0;
}

// n / batch groups of batch sends then batch receives to rank 0: seconds
// spent in the sends (send != 0) or in the receives.
static double c_sendrecv(uint64_t comm, uintptr_t sbuf, uintptr_t rbuf, int n,
                         int batch, int send, uintptr_t stream) {
  double spent = 0;
  for (int done = 0; done + batch <= n; done += batch) {
    if (ncore_group_start() != NCORE_OK) return -1;
    double t0 = now_s();
    for (int i = 0; i < batch; i++)
      if (ncore_send(comm, (void *)sbuf, 2, NCORE_FLOAT32, 0, (ncore_stream_t)stream) != NCORE_OK) return -1;
    double t1 = now_s();
    for (int i = 0; i < batch; i++)
      if (ncore_recv(comm, (void *)rbuf, 2, NCORE_FLOAT32, 0, (ncore_stream_t)stream) != NCORE_OK) return -1;
    double t2 = now_s();
    if (ncore_group_end() != NCORE_OK) return -1;
    spent += send ? t1 - t0 : t2 - t1;
  }
  if (ncore_stream_synchronize((ncore_stream_t)stream, NCORE_BACKEND_NCCL) != NCORE_OK) return -1;
  return spent;
}
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"ncore.dev/ncore"
)

const (
	calls  = 20000
	rounds = 5
	batch  = 64
)

func die(what string, err error) {
	fmt.Fprintf(os.Stderr, "bench-go-gpu: %s: %v\n", what, err)
	os.Exit(1)
}

// best runs the two sides interleaved (the first alternates; round 0 warms
// up) and returns the best seconds per call of each.
func best(sides [2]func() float64) [2]float64 {
	out := [2]float64{math.Inf(1), math.Inf(1)}
	for r := 0; r <= rounds; r++ {
		for k := 0; k < 2; k++ {
			side := (r + k) % 2
			t := sides[side]() / calls
			if t < 0 {
				die("C loop", fmt.Errorf("a call failed"))
			}
			if r > 0 && t < out[side] {
				out[side] = t
			}
		}
	}
	return out
}

func main() {
	id, err := ncore.NewUniqueID(ncore.BackendNCCL)
	if err != nil {
		die("unique id", err)
	}
	cfg := ncore.DefaultConfig()
	cfg.Backend = ncore.BackendNCCL
	cfg.Device = 0
	comm, err := ncore.InitRank(1, id, 0, &cfg)
	if err != nil {
		die("init", err)
	}
	defer comm.Close()
	stream, err := ncore.NewStream(ncore.BackendNCCL)
	if err != nil {
		die("stream", err)
	}
	defer stream.Close()
	sendMem, err := ncore.MemAlloc(ncore.BackendNCCL, 64)
	if err != nil {
		die("mem", err)
	}
	defer sendMem.Close()
	recvMem, err := ncore.MemAlloc(ncore.BackendNCCL, 64)
	if err != nil {
		die("mem", err)
	}
	defer recvMem.Close()
	sbuf := sendMem.Ptr().Slice(0, 8).As(ncore.Float32)
	rbuf := recvMem.Ptr().Slice(0, 8).As(ncore.Float32)
	handle := C.uint64_t(comm.Handle())
	sAddr, rAddr := C.uintptr_t(sbuf.Ptr().Addr), C.uintptr_t(rbuf.Ptr().Addr)
	st := C.uintptr_t(stream.Addr())

	allreduce := best([2]func() float64{
		func() float64 { return float64(C.c_allreduce(handle, rAddr, calls, st)) },
		func() float64 {
			t0 := time.Now()
			for i := 0; i < calls; i++ {
				if err := comm.AllReduce(rbuf, rbuf, ncore.Sum, stream); err != nil {
					die("AllReduce", err)
				}
			}
			if err := stream.Synchronize(); err != nil {
				die("Synchronize", err)
			}
			return time.Since(t0).Seconds()
		},
	})
	p2p := func(send bool) [2]float64 {
		flag := C.int(0)
		if send {
			flag = 1
		}
		return best([2]func() float64{
			func() float64 { return float64(C.c_sendrecv(handle, sAddr, rAddr, calls, batch, flag, st)) },
			func() float64 {
				var spent time.Duration
				for done := 0; done+batch <= calls; done += batch {
					if err := ncore.GroupStart(); err != nil {
						die("GroupStart", err)
					}
					t0 := time.Now()
					for i := 0; i < batch; i++ {
						if err := comm.Send(sbuf, 0, stream); err != nil {
							die("Send", err)
						}
					}
					t1 := time.Now()
					for i := 0; i < batch; i++ {
						if err := comm.Recv(rbuf, 0, stream); err != nil {
							die("Recv", err)
						}
					}
					t2 := time.Now()
					if err := ncore.GroupEnd(); err != nil {
						die("GroupEnd", err)
					}
					if send {
						spent += t1.Sub(t0)
					} else {
						spent += t2.Sub(t1)
					}
				}
				if err := stream.Synchronize(); err != nil {
					die("Synchronize", err)
				}
				return spent.Seconds()
			},
		})
	}
	// The floor under any Go binding: one cgo crossing, nothing done.
	floor := math.Inf(1)
	for r := 0; r <= rounds; r++ {
		t0 := time.Now()
		for i := 0; i < calls; i++ {
			C.nothing()
		}
		if t := time.Since(t0).Seconds() / calls; r > 0 && t < floor {
			floor = t
		}
	}
	rows := []string{}
	for _, r := range []struct {
		op string
		t  [2]float64
	}{{"allreduce", allreduce}, {"send", p2p(true)}, {"recv", p2p(false)}} {
		rows = append(rows, fmt.Sprintf(`{"op": "%s", "bytes": 8, "c_us": %.4f, "go_us": %.4f, "added_us": %.4f}`,
			r.op, r.t[0]*1e6, r.t[1]*1e6, (r.t[1]-r.t[0])*1e6))
	}
	fmt.Printf(`{"bench": "go-gpu", "calls": %d, "rounds": %d, "batch": %d, "cgo_crossing_us": %.4f, "results": [%s]}`+"\n",
		calls, rounds, batch, floor*1e6, strings.Join(rows, ", "))
}
