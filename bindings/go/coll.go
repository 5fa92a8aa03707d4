package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// What the collectives share: their methods, one per row of the table of
// operations (core/op_table.h), are coll_gen.go's (written by
// tools/gen-op-table.py), each prepareColl and then its C call. Every rank
// calls the same collectives in the same order with matching counts, types,
// operators and roots. Counts come from the
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

// collArgs is a collective's prepared buffers, count, element type and root.
type collArgs struct {
	send, recv cArgs
	count      int
	dtype      DataType
	root       C.int
}

// prepareColl takes collective op's count from its buffers and checks them
// against its row of the table of operations (core/op_table.h, copied into
// op_table_gen.go): the count is the length of the buffer every rank uses
// that holds count elements (sendbuf's, else recvbuf's), or sendbuf's
// length / nranks where both hold nranks * count; each buffer must hold
// what the call touches in it, and may be nil where only root uses it.
// root, where the row is rooted, must fit a C int (it is 0 otherwise).
func (c *Communicator) prepareColl(op *collOp, send, recv Buffer, root int, stream *Stream) (collArgs, error) {
	n := cNumbers{function: op.fn}
	croot := n.int("root", root)
	if n.err != nil {
		return collArgs{}, n.err
	}
	size := 0
	if op.send.perRank || op.recv.perRank {
		size = c.nranks()
	}
	count := 0
	switch {
	case !op.send.perRank && !op.send.rootOnly:
		count = viewOf(send).count
	case !op.recv.perRank && !op.recv.rootOnly:
		count = viewOf(recv).count
	case size > 0:
		total := viewOf(send).count
		if total%size != 0 {
			return collArgs{}, newError(StatusInvalid, op.fn, "sendbuf", "holds %d elements, not a multiple of nranks %d", total, size)
		}
		count = total / size
	}
	need := func(p collPart) int {
		if p.perRank {
			return count * size
		}
		return count
	}
	a, err := c.prepare(op.fn, send, recv, need(op.send), need(op.recv), op.send.rootOnly, op.recv.rootOnly, stream)
	a.count = count
	a.root = croot
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
