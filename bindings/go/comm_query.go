package ncore

/*
#include "ncgo.h"
*/
import "C"

// intQuery runs one of the int-valued queries.
func (c *Communicator) intQuery(q func(C.ncore_comm_t, *C.int) C.ncgo_result) (int, error) {
	out, err := query(c, func(o *C.int) C.ncgo_result { return q(c.ch(), o) })
	return int(out), err
}

// Rank is this rank, in [0, Size()).
func (c *Communicator) Rank() (int, error) {
	return c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_rank(h, o) })
}

// Size is the number of ranks.
func (c *Communicator) Size() (int, error) {
	return c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_size(h, o) })
}

// Device is this rank's CUDA device; -1 on the host backend.
func (c *Communicator) Device() (int, error) {
	return c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_device(h, o) })
}

// LSARank is this rank's index in its load/store-accessible team.
func (c *Communicator) LSARank() (int, error) {
	return c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_lsa_rank(h, o) })
}

// LSASize is the size of the load/store-accessible team.
func (c *Communicator) LSASize() (int, error) {
	return c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_lsa_size(h, o) })
}

// Backend is the backend running the communicator (Host or NCCL), asked of
// the library so that a closed communicator answers ErrClosed.
func (c *Communicator) Backend() (Backend, error) {
	b, err := c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_backend(h, o) })
	return Backend(b), err
}

// AsyncError is the communicator's asynchronous state
// (ncore_comm_async_error): StatusOK, StatusInProgress, or the error a
// background operation hit (StatusRemote after a peer died). err is the
// failure of the query itself (ErrClosed).
func (c *Communicator) AsyncError() (Status, error) {
	s, err := c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_async_error(h, o) })
	return Status(s), err
}

// GinType is the communicator's GIN transport (GinTypeNone on the host
// backend).
func (c *Communicator) GinType() (GinType, error) {
	g, err := c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_gin_type(h, o) })
	return GinType(g), err
}

// RailedGinType is the GIN transport of the communicator's rail team.
func (c *Communicator) RailedGinType() (GinType, error) {
	g, err := c.intQuery(func(h C.ncore_comm_t, o *C.int) C.ncgo_result { return C.ncgo_comm_railed_gin_type(h, o) })
	return GinType(g), err
}
