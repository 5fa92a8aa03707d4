package main

import (
	"os"
	"testing"

	"ncore.dev/ncore"
)

// TestMain lets the test binary serve as a rank: the orchestrator re-executes
// it with NCORE_RANK set, as it does the real program.
func TestMain(m *testing.M) {
	if _, isRank := os.LookupEnv(ncore.EnvRank); isRank {
		os.Exit(runRank(rankCount()))
	}
	os.Exit(m.Run())
}

// The example end to end on the host backend: 2 and 4 ranks put into their
// ring neighbour's window, wait for the signal, allreduce and agree.
func TestOrchestratorOnTwoAndFourRanks(t *testing.T) {
	t.Setenv("NCORE_BACKEND", "host")
	for _, n := range []int{2, 4} {
		if status := orchestrate(os.Args[0], n, 256); status != 0 {
			t.Fatalf("orchestrate with %d ranks exited %d", n, status)
		}
	}
}
