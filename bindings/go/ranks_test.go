package ncore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
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
}

// hostConfig is the configuration the tests use: the host backend.
func hostConfig(timeout time.Duration) *Config {
	cfg := DefaultConfig()
	cfg.Backend = BackendHost
	cfg.Timeout = timeout
	return &cfg
}

// runRanks runs body on n ranks. In the parent it spawns the ranks and fails
// t with their output if any failed; in a rank it builds the communicator
// with FromEnv and runs body.
func runRanks(t *testing.T, n int, opts rankOptions, body func(t *testing.T, c *Communicator, rank int)) {
	t.Helper()
	if opts.timeout == 0 {
		opts.timeout = 20 * time.Second
	}
	if os.Getenv(childEnv) == t.Name() {
		c, err := FromEnv(hostConfig(opts.timeout))
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
	id, err := NewUniqueID(BackendHost)
	if err != nil {
		t.Fatalf("NewUniqueID: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
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
			"NCORE_BACKEND=host")
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
