package ncore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Multi-rank tests run each rank as a process: the test binary re-executes
// itself with -test.run naming the one test, and the environment that
// tools/ncore-run would set (NCORE_RANK, NCORE_NRANKS, NCORE_UNIQUE_ID) plus
// childEnv naming the test, so that the same test function runs the rank's
// body instead of spawning.

const childEnv = "NCORE_GO_TEST_RANK_OF"

// rankOptions tune runRanks.
type rankOptions struct {
	// mayDie lists ranks that are allowed to exit abnormally (the killed
	// peer of a failure test).
	mayDie map[int]bool
	// timeout is the communicator timeout (default 20 s).
	timeout time.Duration
	// backend runs the ranks (default BackendHost). On NCCL each rank uses
	// device rank % device count, and with NCORE_OVERSUBSCRIBE=1 each gets
	// its own NCCL host identity, as the launchers give it, so that ranks
	// can share a GPU.
	backend Backend
}

// hostConfig is the configuration the tests use: the host backend.
func hostConfig(timeout time.Duration) *Config {
	cfg := DefaultConfig()
	cfg.Backend = BackendHost
	cfg.Timeout = timeout
	return &cfg
}

// rankConfig is this rank's configuration on backend. On NCCL it pins the
// calling goroutine to its OS thread (the current device belongs to a
// thread) and makes the rank's device current there.
func rankConfig(t *testing.T, backend Backend, timeout time.Duration) *Config {
	t.Helper()
	if backend != BackendNCCL {
		return hostConfig(timeout)
	}
	runtime.LockOSThread()
	rank, err := envInt(EnvRank)
	must(t, EnvRank, err)
	count := value[int](t, "DeviceCount")(DeviceCount(BackendNCCL))
	cfg := DefaultConfig()
	cfg.Backend, cfg.Timeout, cfg.Device = BackendNCCL, timeout, rank%count
	must(t, "SetDevice", SetDevice(BackendNCCL, cfg.Device))
	return &cfg
}

// oversubscribeRequested reads NCORE_OVERSUBSCRIBE as the launchers do
// (tools/ncore_launch_env.h): set to anything but "" or "0".
func oversubscribeRequested() bool {
	v := os.Getenv("NCORE_OVERSUBSCRIBE")
	return v != "" && v != "0"
}

// isolatedHostEnv is what tools/ncore_launch_env.h's
// ncore_launch_env_isolate_host gives rank r of job: its own NCCL host
// identity and sockets on loopback, variables the user set kept.
func isolatedHostEnv(job string, r int) []string {
	env := []string{"NCORE_OVERSUBSCRIBE=1"}
	if _, set := os.LookupEnv("NCCL_HOSTID"); !set {
		env = append(env, fmt.Sprintf("NCCL_HOSTID=ncore-%s-rank%d", job, r))
	}
	if _, set := os.LookupEnv("NCCL_SOCKET_IFNAME"); !set {
		env = append(env, "NCCL_SOCKET_IFNAME=lo")
	}
	return env
}

// runRanks runs body on n ranks. In the parent it spawns the ranks and fails
// t with their output if any failed; in a rank it builds the communicator
// with FromEnv and runs body.
func runRanks(t *testing.T, n int, opts rankOptions, body func(t *testing.T, c *Communicator, rank int)) {
	t.Helper()
	if opts.timeout == 0 {
		opts.timeout = 20 * time.Second
	}
	if opts.backend == BackendAuto {
		opts.backend = BackendHost
	}
	if os.Getenv(childEnv) == t.Name() {
		c, err := FromEnv(rankConfig(t, opts.backend, opts.timeout))
		if err != nil {
			t.Fatalf("FromEnv: %v", err)
		}
		defer c.Close()
		rank, err := c.Rank()
		if err != nil {
			t.Fatalf("Rank: %v", err)
		}
		body(t, c, rank)
		if !t.Failed() && c.IsValid() {
			// Leave together, so that no peer sees this rank's exit as a
			// failure while it still works (errors: the body may have
			// finalized, aborted or killed a peer itself).
			_ = c.Finalize()
		}
		return
	}
	if os.Getenv(childEnv) != "" {
		t.Skip("another test's rank")
	}
	spawnRanks(t, n, opts)
}

// spawnRanks starts n copies of this test and checks how they ended.
func spawnRanks(t *testing.T, n int, opts rankOptions) {
	t.Helper()
	id, err := NewUniqueID(opts.backend)
	if err != nil {
		t.Fatalf("NewUniqueID: %v", err)
	}
	limit := 90 * time.Second
	if opts.backend == BackendNCCL {
		limit = 240 * time.Second // NCCL init over sockets takes seconds
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	outputs := make([]bytes.Buffer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+runPattern(t.Name()), "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(),
			childEnv+"="+t.Name(),
			fmt.Sprintf("%s=%d", EnvRank, r),
			fmt.Sprintf("%s=%d", EnvNRanks, n),
			EnvUniqueID+"="+id.String(),
			"NCORE_BACKEND="+opts.backend.String())
		if opts.backend == BackendNCCL && oversubscribeRequested() {
			cmd.Env = append(cmd.Env, isolatedHostEnv(fmt.Sprint(os.Getpid()), r)...)
		}
		cmd.Stdout = &outputs[r]
		cmd.Stderr = &outputs[r]
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting rank %d: %v", r, err)
		}
		wg.Add(1)
		go func(r int, cmd *exec.Cmd) {
			defer wg.Done()
			errs[r] = cmd.Wait()
		}(r, cmd)
	}
	wg.Wait()
	for r := 0; r < n; r++ {
		out := outputs[r].String()
		if opts.mayDie[r] {
			continue
		}
		// A rank must have run and passed this very test: a pattern that
		// matched nothing would also exit 0.
		if errs[r] != nil || !strings.Contains(out, "--- PASS: "+t.Name()) {
			t.Errorf("rank %d of %d failed (%v):\n%s", r, n, errs[r], out)
		}
	}
}

// runPattern is the -test.run pattern that selects exactly the test name
// (subtests are matched level by level).
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// must fails the test on an error.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// value returns a function that passes a (value, error) result through, or
// fails the test on the error: value[int](t, "Rank")(c.Rank()).
func value[T any](t *testing.T, what string) func(T, error) T {
	t.Helper()
	return func(v T, err error) T {
		t.Helper()
		must(t, what, err)
		return v
	}
}

// wantErr checks that err matches the sentinel and its message contains
// every fragment.
func wantErr(t *testing.T, what string, err error, sentinel error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, sentinel)
	}
	if sentinel != nil && !errors.Is(err, sentinel) {
		t.Fatalf("%s: error %v, want %v", what, err, sentinel)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("%s: error %q does not mention %q", what, err.Error(), f)
		}
	}
}
