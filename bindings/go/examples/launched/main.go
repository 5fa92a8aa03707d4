// Command launched is the Go program of the launcher tests
// (tests/launchers/run.sh): it joins the job with ncore.FromEnv alone,
// allreduces rank + 1 and prints "launched: rank R of N sum S".
package main

import (
	"fmt"
	"os"
	"time"

	"ncore.dev/ncore"
)

func main() {
	cfg := ncore.DefaultConfig()
	cfg.Timeout = time.Minute
	comm, err := ncore.FromEnv(&cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "launched:", err)
		os.Exit(1)
	}
	defer comm.Close()
	rank, _ := comm.Rank()
	size, _ := comm.Size()
	value := []int32{int32(rank + 1)}
	buf := ncore.Host(value)
	if err := comm.AllReduce(buf, buf, ncore.Sum, nil); err != nil {
		fmt.Fprintln(os.Stderr, "launched: allreduce:", err)
		os.Exit(1)
	}
	fmt.Printf("launched: rank %d of %d sum %d\n", rank, size, value[0])
}
