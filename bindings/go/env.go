package ncore

import (
	"os"
	"strconv"
)

// The environment tools/ncore-run gives each rank it starts.
const (
	EnvRank     = "NCORE_RANK"
	EnvNRanks   = "NCORE_NRANKS"
	EnvUniqueID = "NCORE_UNIQUE_ID"
)

// FromEnv creates this rank's communicator from the environment that
// tools/ncore-run sets: NCORE_RANK, NCORE_NRANKS and NCORE_UNIQUE_ID (256
// hex digits; the launcher made the id, so no rank has to). cfg nil means
// defaults. A missing or malformed variable gives ErrInvalidArgument naming it.
func FromEnv(cfg *Config) (*Communicator, error) {
	rank, err := envInt(EnvRank)
	if err != nil {
		return nil, err
	}
	nranks, err := envInt(EnvNRanks)
	if err != nil {
		return nil, err
	}
	id, err := ParseUniqueID(os.Getenv(EnvUniqueID))
	if err != nil {
		return nil, newError(StatusInvalid, "ncore.FromEnv", EnvUniqueID, "%s", err.(*Error).Message)
	}
	return InitRank(nranks, id, rank, cfg)
}

// envInt reads an integer environment variable.
func envInt(name string) (int, error) {
	s, ok := os.LookupEnv(name)
	if !ok {
		return 0, newError(StatusInvalid, "ncore.FromEnv", name, "is not set (start the program with tools/ncore-run)")
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, newError(StatusInvalid, "ncore.FromEnv", name, "%q is not an integer", s)
	}
	return v, nil
}
