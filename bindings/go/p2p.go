package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// Send sends all of buf to rank peer, ordered on stream (ncore_send). The
// peer's Recv must have the same byte size. Outside a group it may block
// until the peer takes part; a rank that both sends and receives puts the
// calls in a Group.
func (c *Communicator) Send(buf Buffer, peer int, stream *Stream) error {
	return c.pointToPoint("ncore_send", buf, peer, stream, false,
		func(a cArgs, count C.size_t, dtype, cpeer C.int) C.ncgo_result {
			return C.ncgo_send(c.ch(), a.hp, a.dp, count, dtype, cpeer, stream.arg())
		})
}

// Recv receives into all of buf from rank peer, ordered on stream
// (ncore_recv). See Send.
func (c *Communicator) Recv(buf Buffer, peer int, stream *Stream) error {
	return c.pointToPoint("ncore_recv", buf, peer, stream, true,
		func(a cArgs, count C.size_t, dtype, cpeer C.int) C.ncgo_result {
			return C.ncgo_recv(c.ch(), a.hp, a.dp, count, dtype, cpeer, stream.arg())
		})
}

// pointToPoint checks a send's or receive's arguments as function (buf
// written where writes) and makes the C call.
func (c *Communicator) pointToPoint(fn string, buf Buffer, peer int, stream *Stream, writes bool,
	call func(a cArgs, count C.size_t, dtype, cpeer C.int) C.ncgo_result) error {
	if err := stream.check(fn); err != nil {
		return err
	}
	n := cNumbers{function: fn}
	cpeer := n.int("peer", peer)
	if n.err != nil {
		return n.err
	}
	v := viewOf(buf)
	a, err := bufferArgs(c, fn, "buf", v, writes)
	if err != nil {
		return err
	}
	err = fromResult(call(a, C.size_t(v.count), C.int(v.dtype), cpeer))
	runtime.KeepAlive(buf)
	runtime.KeepAlive(c)
	return err
}
