// tests/install/go: the README's first Go program, a user's module built
// against an installed ncore (cgo pkg-config) and started by the installed ncore-run: every rank
// contributes rank + 1, the allreduce must give n(n+1)/2.
package main

import (
	"fmt"
	"os"

	"ncore.dev/ncore"
)

func main() {
	comm, err := ncore.FromEnv(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FromEnv:", err)
		os.Exit(1)
	}
	defer comm.Close()
	rank, _ := comm.Rank()
	size, _ := comm.Size()
	if rank == 0 {
		info, err := ncore.GetLibraryInfo()
		if err != nil {
			fmt.Fprintln(os.Stderr, "GetLibraryInfo:", err)
			os.Exit(1)
		}
		fmt.Printf("ncore %s: %v (%s)\n", info.Version, info.Backend, info.BackendReason)
	}
	value := []float32{float32(rank + 1)}
	if err := comm.AllReduce(ncore.Host(value), ncore.Host(value), ncore.Sum, nil); err != nil {
		fmt.Fprintln(os.Stderr, "AllReduce:", err)
		os.Exit(1)
	}
	if want := float32(size*(size+1)) / 2; value[0] != want {
		fmt.Fprintf(os.Stderr, "rank %d: got %g, expected %g\n", rank, value[0], want)
		os.Exit(1)
	}
	fmt.Printf("rank %d of %d: sum %g\n", rank, size, value[0])
}
