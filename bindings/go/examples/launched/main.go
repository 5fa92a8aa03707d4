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

// sumOfRanks joins the job and returns this rank, the size and the sum of
// rank + 1 over all ranks.
func sumOfRanks() (rank, size int, sum int32, err error) {
	cfg := ncore.DefaultConfig()
	cfg.Timeout = time.Minute
	comm, err := ncore.FromEnv(&cfg)
	if err != nil {
		return 0, 0, 0, err
	}
	defer comm.Close()
	if rank, err = comm.Rank(); err == nil {
		size, err = comm.Size()
	}
	value := []int32{int32(rank + 1)}
	if err == nil {
		buf := ncore.Host(value)
		err = comm.AllReduce(buf, buf, ncore.Sum, nil)
	}
	return rank, size, value[0], err
}

func main() {
	rank, size, sum, err := sumOfRanks()
	if err != nil {
		fmt.Fprintln(os.Stderr, "launched:", err)
		os.Exit(1)
	}
	fmt.Printf("launched: rank %d of %d sum %d\n", rank, size, sum)
}
