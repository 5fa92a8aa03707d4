package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"context"
	"runtime"
)

// SignalOptions are the reserved arguments of Signal and PutSignal
// (nccl.core's signal_index, context, flags). They must be zero today; a
// nil *SignalOptions means zero.
type SignalOptions struct {
	SignalIndex int
	Context     int
	Flags       uint32
}

// orZero is o, or the zero options.
func (o *SignalOptions) orZero() SignalOptions {
	if o == nil {
		return SignalOptions{}
	}
	return *o
}

// WaitSignalDesc is one wait request (nccl.core WaitSignalDesc): wait for
// OpCount signals from Peer. OpCount must be >= 1; SignalsFrom fills it.
type WaitSignalDesc struct {
	Peer        int
	OpCount     uint32
	SignalIndex int
	Context     int
}

// WaitSignalOptions tune WaitSignalWith. The zero value is WaitSignal's
// behaviour.
type WaitSignalOptions struct {
	// StructSize overrides the descriptors' struct_size (and so their stride
	// in memory); 0 means this binding's sizeof(ncore_wait_signal_desc_t).
	// For exercising the ABI's versioning; the library rejects sizes it
	// cannot read.
	StructSize uint32
}

// SignalsFrom is the descriptor for count signals from peer.
func SignalsFrom(peer int, count uint32) WaitSignalDesc {
	return WaitSignalDesc{Peer: peer, OpCount: count}
}

// Signal sends one signal to peer, ordered on stream after earlier work
// (ncore_signal). opts nil: the defaults.
func (c *Communicator) Signal(peer int, opts *SignalOptions, stream *Stream) error {
	if err := stream.check("ncore_signal"); err != nil {
		return err
	}
	o := opts.orZero()
	n := cNumbers{function: "ncore_signal"}
	cpeer, cindex, ccontext := n.int("peer", peer), n.int("signal_index", o.SignalIndex), n.int("context", o.Context)
	if n.err != nil {
		return n.err
	}
	return done(fromResult(C.ncgo_signal(c.ch(), cpeer, cindex, ccontext, C.uint32_t(o.Flags), stream.arg())), c)
}

// WaitSignal waits until every descriptor's signals arrived, ordered on
// stream (ncore_wait_signal). Host backend: blocks the caller; NCCL: later
// work on stream waits. Each signal is consumed by the wait that counts it.
// An empty descs is passed on, and the library refuses it.
func (c *Communicator) WaitSignal(descs []WaitSignalDesc, stream *Stream) error {
	return c.WaitSignalWith(descs, nil, stream)
}

// WaitSignalWith is WaitSignal with options (opts nil: the defaults).
func (c *Communicator) WaitSignalWith(descs []WaitSignalDesc, opts *WaitSignalOptions, stream *Stream) error {
	const fn = "ncore_wait_signal"
	if err := stream.check(fn); err != nil {
		return err
	}
	stride := C.uint32_t(C.sizeof_ncore_wait_signal_desc_t)
	if opts != nil && opts.StructSize != 0 {
		stride = C.uint32_t(opts.StructSize)
	}
	cdescs := make([]C.ncore_wait_signal_desc_t, len(descs)+1) // +1: never empty, for &cdescs[0]
	n := cNumbers{function: fn}
	for i, d := range descs {
		if err := fromResult(C.ncgo_wait_signal_desc_init(&cdescs[i], C.sizeof_ncore_wait_signal_desc_t)); err != nil {
			return err
		}
		cdescs[i].peer = n.int32At("descs", i, "peer", d.Peer)
		cdescs[i].op_count = C.uint32_t(d.OpCount)
		cdescs[i].signal_index = n.int32At("descs", i, "signal_index", d.SignalIndex)
		cdescs[i].context = n.int32At("descs", i, "context", d.Context)
	}
	if n.err != nil {
		return n.err
	}
	return done(fromResult(C.ncgo_wait_signal_strided(c.ch(), &cdescs[0], C.size_t(len(descs)), stride,
		stream.arg())), c, cdescs)
}

// WaitSignalContext is WaitSignal that gives up when ctx is done, by
// ABORTING the communicator (the ABI's only way to unblock a wait; see the
// package doc). The error then matches ErrClosed and ctx.Err().
func (c *Communicator) WaitSignalContext(ctx context.Context, descs []WaitSignalDesc, stream *Stream) error {
	return c.withContext(ctx, func() error { return c.WaitSignal(descs, stream) })
}

// PutSignal copies all of src into peer's part of window at element offset
// (in src's elements), then signals peer, ordered on stream
// (ncore_put_signal). window is this rank's handle of the collectively
// registered window. opts nil: the defaults.
func (c *Communicator) PutSignal(src Buffer, peer int, window *Window, offset int, opts *SignalOptions, stream *Stream) error {
	const fn = "ncore_put_signal"
	if err := stream.check(fn); err != nil {
		return err
	}
	o := opts.orZero()
	n := cNumbers{function: fn}
	cpeer, coffset := n.int("peer", peer), n.size("peer_window_offset", offset)
	cindex, ccontext := n.int("signal_index", o.SignalIndex), n.int("context", o.Context)
	if n.err != nil {
		return n.err
	}
	v := viewOf(src)
	a, err := bufferArgs(c, fn, "local_buf", v, false)
	if err != nil {
		return err
	}
	var w C.ncore_window_t
	if window != nil {
		w = window.wh()
	}
	err = fromResult(C.ncgo_put_signal(c.ch(), a.hp, a.dp, C.size_t(v.count), C.int(v.dtype), cpeer,
		w, coffset, cindex, ccontext, C.uint32_t(o.Flags), stream.arg()))
	return done(err, c, src, window)
}

// RecvContext is Recv that gives up when ctx is done, by ABORTING the
// communicator (see WaitSignalContext).
func (c *Communicator) RecvContext(ctx context.Context, buf Buffer, peer int, stream *Stream) error {
	return c.withContext(ctx, func() error { return c.Recv(buf, peer, stream) })
}

// withContext runs call on this goroutine while a watcher aborts the
// communicator if ctx is done first. The abort unblocks the call (the C ABI
// lets ncore_comm_abort run on another thread). Whenever the watcher aborted,
// the result is an ErrClosed error with ctx.Err() as its cause, because the
// communicator is gone even if the call itself got through.
func (c *Communicator) withContext(ctx context.Context, call func() error) error {
	if err := ctx.Err(); err != nil {
		return err // the call was never made; the communicator is untouched
	}
	finished := make(chan struct{})
	aborted := make(chan bool, 1)
	go func() {
		select {
		case <-ctx.Done():
			c.Abort()
			aborted <- true
		case <-finished:
			aborted <- false
		}
	}()
	err := call()
	close(finished)
	if !<-aborted {
		runtime.KeepAlive(c)
		return err
	}
	msg := "communicator aborted because the context ended"
	if e, ok := err.(*Error); ok && e.Message != "" {
		msg = e.Message + " (" + msg + ")"
	}
	return &Error{Status: StatusClosed, Message: msg, cause: ctx.Err()}
}
