package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// The collectives, one per row of the table of operations
// (core/op_table.h). Every rank calls the same collectives in the same order
// with matching counts, types, operators and roots. Counts come from the
// buffers (see each method); the binding checks that the buffers hold what
// the call will touch, so C never writes past a Go slice. In-place use
// follows NCCL (e.g. AllReduce(x, x, ...); AllGather(recv[rank*n:(rank+1)*n],
// recv, ...)), also for Go slices inside a group.

// collPart is what a collective's buffer holds and where it is used (a
// buffer column of the table of operations).
type collPart struct {
	perRank  bool // holds nranks * count elements, else count
	rootOnly bool // used on root only: may be nil elsewhere
}

// collOp is one collective's row of the table (op_table_gen.go).
type collOp struct {
	fn         string // its C function, for messages
	send, recv collPart
}

// collArgs is a collective's prepared buffers, count and element type.
type collArgs struct {
	send, recv cArgs
	count      int
	dtype      DataType
}

// prepareColl takes collective op's count from its buffers and checks them
// against its row of the table of operations (core/op_table.h, copied into
// op_table_gen.go): the count is the length of the buffer every rank uses
// that holds count elements (sendbuf's, else recvbuf's), or sendbuf's
// length / nranks where both hold nranks * count; each buffer must hold
// what the call touches in it, and may be nil where only root uses it.
func (c *Communicator) prepareColl(op *collOp, send, recv Buffer, stream *Stream) (collArgs, error) {
	size := 0
	if op.send.perRank || op.recv.perRank {
		size = c.nranks()
	}
	n := 0
	switch {
	case !op.send.perRank && !op.send.rootOnly:
		n = viewOf(send).count
	case !op.recv.perRank && !op.recv.rootOnly:
		n = viewOf(recv).count
	case size > 0:
		total := viewOf(send).count
		if total%size != 0 {
			return collArgs{}, newError(StatusInvalid, op.fn, "sendbuf", "holds %d elements, not a multiple of nranks %d", total, size)
		}
		n = total / size
	}
	need := func(p collPart) int {
		if p.perRank {
			return n * size
		}
		return n
	}
	a, err := c.prepare(op.fn, send, recv, need(op.send), need(op.recv), op.send.rootOnly, op.recv.rootOnly, stream)
	a.count = n
	return a, err
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
	a, err := c.prepareColl(&collAllReduce, send, recv, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_allreduce(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(a.count), C.int(a.dtype), C.int(op), stream.arg())), c, send, recv)
}

// Broadcast copies root's send into every rank's recv; the count is
// len(recv). send is read on root only and may be nil elsewhere.
func (c *Communicator) Broadcast(send, recv Buffer, root int, stream *Stream) error {
	n := cNumbers{function: collBroadcast.fn}
	croot := n.int("root", root)
	if n.err != nil {
		return n.err
	}
	a, err := c.prepareColl(&collBroadcast, send, recv, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_broadcast(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(a.count), C.int(a.dtype), croot, stream.arg())), c, send, recv)
}

// Reduce is AllReduce with the result on root only; the count is len(send);
// recv may be nil on the other ranks.
func (c *Communicator) Reduce(send, recv Buffer, op ReduceOp, root int, stream *Stream) error {
	n := cNumbers{function: collReduce.fn}
	croot := n.int("root", root)
	if n.err != nil {
		return n.err
	}
	a, err := c.prepareColl(&collReduce, send, recv, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_reduce(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(a.count), C.int(a.dtype), C.int(op), croot, stream.arg())), c, send, recv)
}

// AllGather: every rank's send (len(send) elements) lands at recv[r*n:] on
// every rank; recv holds nranks*len(send).
func (c *Communicator) AllGather(send, recv Buffer, stream *Stream) error {
	a, err := c.prepareColl(&collAllGather, send, recv, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_allgather(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(a.count), C.int(a.dtype), stream.arg())), c, send, recv)
}

// ReduceScatter reduces nranks*len(recv) elements of send over ranks; rank
// r receives block r in recv.
func (c *Communicator) ReduceScatter(send, recv Buffer, op ReduceOp, stream *Stream) error {
	a, err := c.prepareColl(&collReduceScatter, send, recv, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_reduce_scatter(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(a.count), C.int(a.dtype), C.int(op), stream.arg())), c, send, recv)
}

// AllToAll: block j of send (len(send)/nranks elements) goes to rank j and
// lands at block i there, i being the sender. Not in place.
func (c *Communicator) AllToAll(send, recv Buffer, stream *Stream) error {
	a, err := c.prepareColl(&collAllToAll, send, recv, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_alltoall(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(a.count), C.int(a.dtype), stream.arg())), c, send, recv)
}

// Gather: every rank's send (len(send) elements) lands at recv[r*n:] on
// root; recv (nranks*len(send) elements) may be nil on other ranks.
func (c *Communicator) Gather(send, recv Buffer, root int, stream *Stream) error {
	n := cNumbers{function: collGather.fn}
	croot := n.int("root", root)
	if n.err != nil {
		return n.err
	}
	a, err := c.prepareColl(&collGather, send, recv, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_gather(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(a.count), C.int(a.dtype), croot, stream.arg())), c, send, recv)
}

// Scatter: block r (len(recv) elements) of root's send lands in rank r's
// recv; send (nranks*len(recv) elements) may be nil on other ranks.
func (c *Communicator) Scatter(send, recv Buffer, root int, stream *Stream) error {
	n := cNumbers{function: collScatter.fn}
	croot := n.int("root", root)
	if n.err != nil {
		return n.err
	}
	a, err := c.prepareColl(&collScatter, send, recv, stream)
	if err != nil {
		return err
	}
	return done(fromResult(C.ncgo_scatter(c.ch(), a.send.hp, a.send.dp, a.recv.hp, a.recv.dp,
		C.size_t(a.count), C.int(a.dtype), croot, stream.arg())), c, send, recv)
}
