package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// The eight collectives. Every rank calls the same collectives in the same
// order with matching counts, types, operators and roots. Counts come from
// the buffers (see each method); the binding checks that the buffers hold
// what the call will touch, so C never writes past a Go slice. In-place use
// follows NCCL (e.g. AllReduce(x, x, ...); AllGather(recv[rank*n:(rank+1)*n],
// recv, ...)), also for Go slices inside a group.

// collArgs is a collective's prepared buffers and element type.
type collArgs struct {
	send, recv cArgs
	dtype      DataType
}

// prepare checks the two buffers (each needs at least sendNeed / recvNeed
// elements unless it may be nil and is) and turns them into C arguments.
func (c *Communicator) prepare(fn string, send, recv Buffer, sendNeed, recvNeed int,
	sendMayBeNil, recvMayBeNil bool, stream *Stream) (collArgs, error) {
	if err := stream.check(fn); err != nil {
		return collArgs{}, err
	}
	s, r := viewOf(send), viewOf(recv)
	if err := needs(fn, "sendbuf", send, s, sendNeed, sendMayBeNil); err != nil {
		return collArgs{}, err
	}
	if err := needs(fn, "recvbuf", recv, r, recvNeed, recvMayBeNil); err != nil {
		return collArgs{}, err
	}
	dtype := s.dtype
	switch {
	case send == nil:
		dtype = r.dtype
	case recv != nil && r.dtype != s.dtype:
		return collArgs{}, newError(StatusInvalid, fn, "recvbuf", "holds %v, sendbuf holds %v", r.dtype, s.dtype)
	}
	sa, ra, err := bufferPairArgs(c, fn, "sendbuf", "recvbuf", s, r, false, true)
	if err != nil {
		return collArgs{}, err
	}
	return collArgs{send: sa, recv: ra, dtype: dtype}, nil
}

// needs checks that a buffer holds at least need elements.
func needs(fn, name string, b Buffer, v bufferView, need int, mayBeNil bool) error {
	if err := v.refused(fn, name); err != nil {
		return err
	}
	if b == nil {
		if mayBeNil || need == 0 {
			return nil
		}
		return newError(StatusInvalid, fn, name, "is nil, %d elements needed", need)
	}
	if v.count < need {
		return newError(StatusInvalid, fn, name, "holds %d elements, %d needed", v.count, need)
	}
	return nil
}

// nranks is the communicator size for buffer-size checks; 0 when the
// communicator is closed (the C call then reports ErrClosed).
func (c *Communicator) nranks() int {
	n, err := c.Size()
	if err != nil {
		return 0
	}
	return n
}

// done keeps the Go values alive up to here and returns err.
func done(err error, keep ...any) error {
	runtime.KeepAlive(keep)
	return err
}

// AllReduce: recv[i] = op over ranks of send[i], on every rank; the count is
// len(send), and recv must hold as many.
func (c *Communicator) AllReduce(send, recv Buffer, op ReduceOp, stream *Stream) error {
	const fn = "ncore_allreduce"
	n := viewOf(send).count
	a, err := c.prepare(fn, send, recv, n, n, false, false, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_allreduce(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(n), C.int(a.dtype), C.int(op), stream.arg())), c, send, recv)
}

// Broadcast copies root's send into every rank's recv; the count is
// len(recv). send is read on root only and may be nil elsewhere.
func (c *Communicator) Broadcast(send, recv Buffer, root int, stream *Stream) error {
	const fn = "ncore_broadcast"
	n := viewOf(recv).count
	a, err := c.prepare(fn, send, recv, n, n, true, false, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_broadcast(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(n), C.int(a.dtype), C.int(root), stream.arg())), c, send, recv)
}

// Reduce is AllReduce with the result on root only; the count is len(send);
// recv may be nil on the other ranks.
func (c *Communicator) Reduce(send, recv Buffer, op ReduceOp, root int, stream *Stream) error {
	const fn = "ncore_reduce"
	n := viewOf(send).count
	a, err := c.prepare(fn, send, recv, n, n, false, true, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_reduce(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(n), C.int(a.dtype), C.int(op), C.int(root), stream.arg())), c, send, recv)
}

// AllGather: every rank's send (len(send) elements) lands at recv[r*n:] on
// every rank; recv holds nranks*len(send).
func (c *Communicator) AllGather(send, recv Buffer, stream *Stream) error {
	const fn = "ncore_allgather"
	n := viewOf(send).count
	a, err := c.prepare(fn, send, recv, n, n*c.nranks(), false, false, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_allgather(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(n), C.int(a.dtype), stream.arg())), c, send, recv)
}

// ReduceScatter reduces nranks*len(recv) elements of send over ranks; rank
// r receives block r in recv.
func (c *Communicator) ReduceScatter(send, recv Buffer, op ReduceOp, stream *Stream) error {
	const fn = "ncore_reduce_scatter"
	n := viewOf(recv).count
	a, err := c.prepare(fn, send, recv, n*c.nranks(), n, false, false, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_reduce_scatter(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(n), C.int(a.dtype), C.int(op), stream.arg())), c, send, recv)
}

// AllToAll: block j of send (len(send)/nranks elements) goes to rank j and
// lands at block i there, i being the sender. Not in place.
func (c *Communicator) AllToAll(send, recv Buffer, stream *Stream) error {
	const fn = "ncore_alltoall"
	size := c.nranks()
	n := 0
	if size > 0 {
		total := viewOf(send).count
		if total%size != 0 {
			return newError(StatusInvalid, fn, "sendbuf", "holds %d elements, not a multiple of nranks %d", total, size)
		}
		n = total / size
	}
	a, err := c.prepare(fn, send, recv, n*size, n*size, false, false, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_alltoall(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(n), C.int(a.dtype), stream.arg())), c, send, recv)
}

// Gather: every rank's send (len(send) elements) lands at recv[r*n:] on
// root; recv (nranks*len(send) elements) may be nil on other ranks.
func (c *Communicator) Gather(send, recv Buffer, root int, stream *Stream) error {
	const fn = "ncore_gather"
	n := viewOf(send).count
	a, err := c.prepare(fn, send, recv, n, n*c.nranks(), false, true, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_gather(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(n), C.int(a.dtype), C.int(root), stream.arg())), c, send, recv)
}

// Scatter: block r (len(recv) elements) of root's send lands in rank r's
// recv; send (nranks*len(recv) elements) may be nil on other ranks.
func (c *Communicator) Scatter(send, recv Buffer, root int, stream *Stream) error {
	const fn = "ncore_scatter"
	n := viewOf(recv).count
	a, err := c.prepare(fn, send, recv, n*c.nranks(), n, true, false, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_scatter(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(n), C.int(a.dtype), C.int(root), stream.arg())), c, send, recv)
}
