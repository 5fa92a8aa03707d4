package main

// The batch protocol (conformance/README.md, "Batches"), as in the C runner
// (runners/c/batch.c). One launch runs several cases in order: the plan
// directory's `batch` file names a directory per case (holding
// plan.<rank>); for each case rank 0 makes a fresh unique id and publishes
// it in <case>/uid (a temporary file, then rename, so no rank reads half an
// id), and the other ranks wait for it.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ncore.dev/ncore"
)

// uidWait is how long a rank waits for rank 0 to publish a case's id: rank 0
// may still be finishing the previous case; a longer wait means it is stuck
// (and run.py's watchdog stops the launch first).
const uidWait = 120 * time.Second

// loadBatch is the case directories of <dir>/batch, in order.
func loadBatch(dir string) ([]string, error) {
	text, err := os.ReadFile(filepath.Join(dir, "batch"))
	if err != nil {
		return nil, fmt.Errorf("cannot open %s/batch: %v", dir, err)
	}
	var cases []string
	for _, line := range strings.Split(string(text), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			cases = append(cases, filepath.Join(dir, line))
		}
	}
	return cases, nil
}

// caseUniqueID is the case's unique id: made and published by rank 0, read
// by the others.
func caseUniqueID(caseDir string, rank int) (ncore.UniqueID, error) {
	path := filepath.Join(caseDir, "uid")
	if rank == 0 {
		id, err := ncore.NewUniqueID(ncore.BackendAuto)
		if err != nil {
			return id, fmt.Errorf("ncore_get_unique_id: %v", err)
		}
		if err := os.WriteFile(path+".tmp", []byte(id.String()+"\n"), 0o644); err != nil {
			return id, err
		}
		return id, os.Rename(path+".tmp", path)
	}
	for deadline := time.Now().Add(uidWait); time.Now().Before(deadline); {
		text, err := os.ReadFile(path)
		if err != nil {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		id, err := ncore.ParseUniqueID(strings.TrimSpace(string(text)))
		if err != nil {
			return id, fmt.Errorf("%s does not hold a unique id", path)
		}
		return id, nil
	}
	return ncore.UniqueID{}, fmt.Errorf("rank 0 published no unique id in %s within %v", path, uidWait)
}
