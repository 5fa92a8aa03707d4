package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"os"
	"strconv"
)

// The environment ncore-run (and python -m ncore.run) gives each rank it
// starts.
const (
	EnvRank     = "NCORE_RANK"
	EnvNRanks   = "NCORE_NRANKS"
	EnvUniqueID = "NCORE_UNIQUE_ID"
)

// FromEnv creates this rank's communicator from the environment that
// ncore-run sets: NCORE_RANK, NCORE_NRANKS and NCORE_UNIQUE_ID
// (ncore_comm_init_from_env; the launcher made the id, so no rank has to).
// cfg nil means defaults. A missing or malformed variable gives ErrInvalid
// naming it.
func FromEnv(cfg *Config) (*Communicator, error) {
	cc, err := cfg.toC()
	if err != nil {
		return nil, err
	}
	defer cc.free()
	var h C.ncore_comm_t
	if err := fromResult(C.ncgo_comm_init_from_env(&h, cc.ptr())); err != nil {
		return nil, err
	}
	return newCommunicator(h)
}

// envInt reads an integer environment variable (the tests' rank helpers).
func envInt(name string) (int, error) {
	s, ok := os.LookupEnv(name)
	if !ok {
		return 0, newError(StatusInvalid, "ncore.FromEnv", name, "is not set (start the program with ncore-run)")
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, newError(StatusInvalid, "ncore.FromEnv", name, "%q is not an integer", s)
	}
	return v, nil
}
