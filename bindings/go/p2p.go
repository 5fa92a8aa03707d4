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
	const fn = "ncore_send"
	if err := stream.check(fn); err != nil {
		return err
	}
	n := cNumbers{function: fn}
	cpeer := n.int("peer", peer)
	if n.err != nil {
		return n.err
	}
	v := viewOf(buf)
	a, err := bufferArgs(c, fn, "buf", v, false)
	if err != nil {
		return err
	}
	err = fromResult(C.ncgo_send(c.ch(), a.hp, a.dp, C.size_t(v.count), C.int(v.dtype), cpeer, stream.arg()))
	runtime.KeepAlive(buf)
	runtime.KeepAlive(c)
	return err
}

// Recv receives into all of buf from rank peer, ordered on stream
// (ncore_recv). See Send.
func (c *Communicator) Recv(buf Buffer, peer int, stream *Stream) error {
	const fn = "ncore_recv"
	if err := stream.check(fn); err != nil {
		return err
	}
	n := cNumbers{function: fn}
	cpeer := n.int("peer", peer)
	if n.err != nil {
		return n.err
	}
	v := viewOf(buf)
	a, err := bufferArgs(c, fn, "buf", v, true)
	if err != nil {
		return err
	}
	err = fromResult(C.ncgo_recv(c.ch(), a.hp, a.dp, C.size_t(v.count), C.int(v.dtype), cpeer, stream.arg()))
	runtime.KeepAlive(buf)
	runtime.KeepAlive(c)
	return err
}
