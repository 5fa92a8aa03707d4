// Command bench measures the per-call overhead of the Go binding for calls
// that move no data, on a 1-rank host communicator: the rank query and an
// empty group (GroupStart + GroupEnd). overhead.c times the same calls from
// C; run.sh runs both. Best of 5 runs of 1,000,000 calls each.
package main

import (
	"fmt"
	"os"
	"time"

	"ncore.dev/ncore"
)

const iterations = 1000000

func main() {
	id, err := ncore.NewUniqueID(ncore.BackendHost)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	cfg := ncore.DefaultConfig()
	cfg.Backend = ncore.BackendHost
	comm, err := ncore.InitRank(1, id, 0, &cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer comm.Close()
	bestRank, bestGroup := time.Duration(1<<62), time.Duration(1<<62)
	sink := 0
	for run := 0; run < 5; run++ {
		t0 := time.Now()
		for i := 0; i < iterations; i++ {
			r, _ := comm.Rank()
			sink += r
		}
		t1 := time.Now()
		for i := 0; i < iterations; i++ {
			ncore.GroupStart()
			ncore.GroupEnd()
		}
		t2 := time.Now()
		if d := t1.Sub(t0); d < bestRank {
			bestRank = d
		}
		if d := t2.Sub(t1); d < bestGroup {
			bestGroup = d
		}
	}
	perCall := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / iterations }
	fmt.Printf("go         Communicator.Rank         %7.1f ns/call\n", perCall(bestRank))
	fmt.Printf("go         GroupStart+GroupEnd       %7.1f ns/call\n", perCall(bestGroup))
	if sink != 0 {
		fmt.Println("unexpected rank")
	}
}
