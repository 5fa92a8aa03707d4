// Command orchestrator starts N ranks of itself, has them exchange data
// one-sidedly (PutSignal into a ring neighbour's window), reduce it with an
// AllReduce, and gathers and reports what each rank saw.
//
//	go run ./examples/orchestrator -n 4                 # host backend on a CPU machine
//	NCORE_BACKEND=nccl ./orchestrator -n 2              # GPUs: one per rank
//
// The same code runs on both backends because every buffer the library
// touches is ncore memory (MemAlloc) and every copy goes through Memcpy on a
// Stream: shared memory on the host backend, device memory on NCCL.
//
// Orchestration: without NCORE_RANK in the environment the program is the
// orchestrator. It makes the unique id, re-executes itself N times with
// NCORE_RANK / NCORE_NRANKS / NCORE_UNIQUE_ID set (what tools/ncore-run
// does), and reads one "RESULT {json}" line from each rank.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"ncore.dev/ncore"
)

// result is what one rank reports to the orchestrator.
type result struct {
	Rank       int     `json:"rank"`
	Backend    string  `json:"backend"`
	Device     int     `json:"device"`
	PutOK      bool    `json:"put_ok"`
	ReduceOK   bool    `json:"reduce_ok"`
	FirstSum   float64 `json:"first_sum"`
	PutMicros  float64 `json:"put_us"`
	Error      string  `json:"error,omitempty"`
	ElapsedSec float64 `json:"elapsed_s"`
}

func init() {
	// The NCCL backend's current device belongs to an OS thread; keep the
	// main goroutine on one.
	runtime.LockOSThread()
}

func main() {
	n := flag.Int("n", 4, "number of ranks to start")
	count := flag.Int("count", 1024, "float32 elements each rank puts")
	flag.Parse()
	if _, isRank := os.LookupEnv(ncore.EnvRank); isRank {
		os.Exit(runRank(rankCount()))
	}
	os.Exit(orchestrate(os.Args[0], *n, *count))
}

// countEnv carries -count from the orchestrator to its ranks (an
// environment variable rather than a flag, so that any binary that embeds
// the rank side, such as this package's test, can serve as a rank).
const countEnv = "NCORE_ORCHESTRATOR_COUNT"

// rankCount is the element count the orchestrator asked for.
func rankCount() int {
	var n int
	if _, err := fmt.Sscanf(os.Getenv(countEnv), "%d", &n); err != nil || n < 1 {
		return 1024
	}
	return n
}

// orchestrate starts n ranks (each runs the program self), collects their
// results and checks them.
func orchestrate(self string, n, count int) int {
	backend, err := ncore.BackendAuto.Resolve()
	if err != nil {
		fmt.Fprintln(os.Stderr, "orchestrator:", err)
		return 1
	}
	id, err := ncore.NewUniqueID(backend)
	if err != nil {
		fmt.Fprintln(os.Stderr, "orchestrator:", err)
		return 1
	}
	fmt.Printf("orchestrator: starting %d ranks on the %v backend (ncore %s)\n", n, backend, ncore.Version())
	results := make([]*result, n)
	logs := make([]bytes.Buffer, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(),
			fmt.Sprintf("%s=%d", countEnv, count),
			fmt.Sprintf("%s=%d", ncore.EnvRank, r),
			fmt.Sprintf("%s=%d", ncore.EnvNRanks, n),
			ncore.EnvUniqueID+"="+id.String(),
			"NCORE_BACKEND="+backend.String())
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, "orchestrator:", err)
			return 1
		}
		cmd.Stderr = &logs[r]
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "orchestrator: starting rank:", err)
			return 1
		}
		wg.Add(1)
		go func(r int, cmd *exec.Cmd) {
			defer wg.Done()
			scan := bufio.NewScanner(stdout)
			for scan.Scan() {
				line := scan.Text()
				if strings.HasPrefix(line, "RESULT ") {
					var res result
					if json.Unmarshal([]byte(strings.TrimPrefix(line, "RESULT ")), &res) == nil {
						results[r] = &res
					}
				} else {
					logs[r].WriteString(line + "\n")
				}
			}
			if err := cmd.Wait(); err != nil && results[r] != nil && results[r].Error == "" {
				results[r].Error = "exit: " + err.Error()
			}
		}(r, cmd)
	}
	wg.Wait()

	failed := 0
	fmt.Printf("%-5s %-8s %-6s %-7s %-9s %-12s %-9s\n", "rank", "backend", "device", "put", "allreduce", "sum[0]", "put µs")
	for r, res := range results {
		if res == nil {
			failed++
			fmt.Printf("%-5d no result; its output:\n%s\n", r, logs[r].String())
			continue
		}
		if !res.PutOK || !res.ReduceOK || res.Error != "" {
			failed++
		}
		fmt.Printf("%-5d %-8s %-6d %-7v %-9v %-12g %-9.1f %s\n", res.Rank, res.Backend, res.Device,
			res.PutOK, res.ReduceOK, res.FirstSum, res.PutMicros, res.Error)
	}
	if failed > 0 {
		fmt.Printf("orchestrator: %d of %d ranks failed\n", failed, n)
		return 1
	}
	fmt.Printf("orchestrator: all %d ranks agree\n", n)
	return 0
}

// runRank is one rank's work; it prints its RESULT line and returns the exit
// status.
func runRank(count int) int {
	start := time.Now()
	res := result{Device: -1}
	err := rankBody(count, &res)
	if err != nil {
		res.Error = err.Error()
	}
	res.ElapsedSec = time.Since(start).Seconds()
	line, _ := json.Marshal(res)
	fmt.Printf("RESULT %s\n", line)
	if err != nil {
		return 1
	}
	return 0
}

// pattern is what rank r puts: r*1000 + i.
func pattern(r, count int) []float32 {
	p := make([]float32, count)
	for i := range p {
		p[i] = float32(r*1000 + i)
	}
	return p
}

// rankBody: init from the environment, put into the next rank's window,
// wait for the previous rank's put, AllReduce what arrived, check both.
func rankBody(count int, res *result) error {
	backend, err := ncore.BackendAuto.Resolve()
	if err != nil {
		return err
	}
	cfg := ncore.DefaultConfig()
	cfg.Backend = backend
	cfg.Timeout = 60 * time.Second
	if backend == ncore.BackendNCCL {
		// One GPU per rank, round robin over the visible devices.
		ndev, err := ncore.DeviceCount(backend)
		if err != nil {
			return err
		}
		rank, _ := envRank()
		cfg.Device = rank % ndev
		if err := ncore.SetDevice(backend, cfg.Device); err != nil {
			return err
		}
	}
	comm, err := ncore.FromEnv(&cfg)
	if err != nil {
		return err
	}
	defer comm.Close()
	rank, err := comm.Rank()
	if err != nil {
		return err
	}
	size, err := comm.Size()
	if err != nil {
		return err
	}
	res.Rank, res.Backend = rank, backend.String()
	if res.Device, err = comm.Device(); err != nil {
		return err
	}
	next, prev := (rank+1)%size, (rank+size-1)%size
	bytesPer := 4 * count

	stream, err := ncore.NewStream(backend)
	if err != nil {
		return err
	}
	defer stream.Close()
	// Window memory must be ncore memory (ncclMemAlloc on NCCL).
	winMem, err := ncore.MemAlloc(backend, bytesPer)
	if err != nil {
		return err
	}
	defer winMem.Close()
	srcMem, err := ncore.MemAlloc(backend, bytesPer)
	if err != nil {
		return err
	}
	defer srcMem.Close()
	if err := ncore.Memcpy(backend, srcMem.As(ncore.Float32), ncore.Host(pattern(rank, count)), stream); err != nil {
		return err
	}
	win, err := comm.RegisterWindow(winMem.Ptr(), ncore.WindowCollSymmetric)
	if err != nil {
		return err
	}
	defer win.Close()

	// One-sided ring: put my pattern into next's window, wait for prev's.
	t0 := time.Now()
	if err := comm.PutSignal(srcMem.As(ncore.Float32), next, win, 0, nil, stream); err != nil {
		return err
	}
	if err := comm.WaitSignal([]ncore.WaitSignalDesc{ncore.SignalsFrom(prev, 1)}, stream); err != nil {
		return err
	}
	if err := stream.Synchronize(); err != nil {
		return err
	}
	res.PutMicros = float64(time.Since(t0).Nanoseconds()) / 1e3
	got := make([]float32, count)
	if err := ncore.Memcpy(backend, ncore.Host(got), winMem.As(ncore.Float32), stream); err != nil {
		return err
	}
	want := pattern(prev, count)
	res.PutOK = equal(got, want)

	// AllReduce what arrived, in place: every rank holds one other rank's
	// pattern, so the sum is sum over r of r*1000 + i.
	buf := winMem.As(ncore.Float32)
	if err := comm.AllReduce(buf, buf, ncore.Sum, stream); err != nil {
		return err
	}
	if err := ncore.Memcpy(backend, ncore.Host(got), buf, stream); err != nil {
		return err
	}
	res.FirstSum = float64(got[0])
	res.ReduceOK = true
	for i, v := range got {
		if v != float32(1000*size*(size-1)/2+size*i) {
			res.ReduceOK = false
			break
		}
	}
	if err := win.Close(); err != nil {
		return err
	}
	return comm.Finalize()
}

// equal compares two float32 slices.
func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// envRank reads NCORE_RANK (for the device choice before the communicator
// exists).
func envRank() (int, error) {
	var r int
	_, err := fmt.Sscanf(os.Getenv(ncore.EnvRank), "%d", &r)
	return r, err
}
