package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"encoding/hex"
	"unsafe"
)

// UniqueIDBytes is the size of a UniqueID.
const UniqueIDBytes = C.NCORE_UNIQUE_ID_BYTES

// UniqueID is the opaque token that bootstraps a communicator: one rank makes
// it with NewUniqueID and every rank passes the same bytes to InitRank.
// Plain data; copy freely.
type UniqueID [UniqueIDBytes]byte

// NewUniqueID makes a new id for a communicator on backend (Auto resolves as
// for InitRank; the id records the backend and init checks it).
func NewUniqueID(backend Backend) (UniqueID, error) {
	var cid C.ncore_unique_id_t
	var id UniqueID
	if err := fromResult(C.ncgo_get_unique_id(&cid, C.int(backend))); err != nil {
		return id, err
	}
	copy(id[:], C.GoBytes(unsafe.Pointer(&cid), C.int(len(id))))
	return id, nil
}

// String is the id as 256 lower-case hex digits, the form tools/ncore-run
// puts in NCORE_UNIQUE_ID.
func (id UniqueID) String() string { return hex.EncodeToString(id[:]) }

// ParseUniqueID reads the 256-hex-digit form of String (either case).
func ParseUniqueID(s string) (UniqueID, error) {
	var id UniqueID
	if len(s) != 2*UniqueIDBytes {
		return id, newError(StatusInvalid, "ncore.ParseUniqueID", "s",
			"has %d characters, a unique id has %d hex digits", len(s), 2*UniqueIDBytes)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, newError(StatusInvalid, "ncore.ParseUniqueID", "s", "is not hex: %v", err)
	}
	return id, nil
}

// toC copies the id into C's struct (a Go value; C only borrows it).
func (id *UniqueID) toC() C.ncore_unique_id_t {
	var cid C.ncore_unique_id_t
	for i, b := range id {
		cid.internal[i] = C.char(b)
	}
	return cid
}
