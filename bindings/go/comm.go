package ncore

/*
#include "ncgo.h"
*/
import "C"

import "runtime"

// Communicator is a group of ranks that communicate (ncore_comm_t).
// Close (or Destroy) releases it and every resource it owns; a finalizer
// does so if it is garbage collected while open.
type Communicator struct {
	resource
	// backend is read once at creation: it decides whether Go slices are
	// accepted, and it never changes for a communicator.
	backend Backend
}

// ch is the handle as the C calls take it.
func (c *Communicator) ch() C.ncore_comm_t { return C.ncore_comm_t(c.handle) }

// newCommunicator wraps a fresh handle and sets its finalizer.
func newCommunicator(h C.ncore_comm_t) (*Communicator, error) {
	var b C.int
	if err := fromResult(C.ncgo_comm_backend(h, &b)); err != nil {
		C.ncgo_comm_destroy(h)
		return nil, err
	}
	return owned(&Communicator{resource: resource{uint64(h), &commKind}, backend: Backend(b)}), nil
}

// InitRank creates this rank's communicator (ncore_comm_init_rank).
// Collective: every rank calls it with the same nranks and id, and it returns
// once all joined or the timeout expired. cfg nil means defaults. With
// cfg.Blocking false (NCCL) it may return a communicator that is still
// initialising: poll AsyncError until StatusOK before using it.
func InitRank(nranks int, id UniqueID, rank int, cfg *Config) (*Communicator, error) {
	cc, err := cfg.toC()
	if err != nil {
		return nil, err
	}
	defer cc.free()
	n := cNumbers{function: "ncore_comm_init_rank"}
	cnranks, crank := n.int("nranks", nranks), n.int("rank", rank)
	if n.err != nil {
		return nil, n.err
	}
	cid := id.toC()
	var h C.ncore_comm_t
	if err := fromResult(C.ncgo_comm_init_rank(&h, cnranks, &cid, crank, cc.ptr())); err != nil {
		return nil, err
	}
	return newCommunicator(h)
}

// InitAll creates ndev communicators in this process, one per rank
// (ncore_comm_init_all); drive them from one goroutine with Group.
// devlist: the CUDA device of each rank on NCCL (nil = 0..ndev-1); on the
// host backend nil or all -1.
func InitAll(ndev int, devlist []int, cfg *Config) ([]*Communicator, error) {
	n := cNumbers{function: "ncore_comm_init_all"}
	cndev := n.int("ndev", ndev)
	if n.err != nil {
		return nil, n.err
	}
	if ndev < 1 {
		// The library names the problem; it writes nothing for ndev < 1.
		var none C.ncore_comm_t
		return nil, fromResult(C.ncgo_comm_init_all(&none, cndev, nil, nil))
	}
	if devlist != nil && len(devlist) != ndev {
		return nil, newError(StatusInvalid, "ncore_comm_init_all", "devlist",
			"has %d entries, ndev is %d", len(devlist), ndev)
	}
	cc, err := cfg.toC()
	if err != nil {
		return nil, err
	}
	defer cc.free()
	handles := make([]C.ncore_comm_t, ndev)
	var devs *C.int
	if devlist != nil {
		cdevs := make([]C.int, ndev)
		for i, d := range devlist {
			cdevs[i] = n.intAt("devlist", i, d)
		}
		if n.err != nil {
			return nil, n.err
		}
		devs = &cdevs[0]
	}
	if err := fromResult(C.ncgo_comm_init_all(&handles[0], cndev, devs, cc.ptr())); err != nil {
		return nil, err
	}
	comms := make([]*Communicator, ndev)
	for i, h := range handles {
		c, err := newCommunicator(h)
		if err != nil {
			for _, made := range comms[:i] {
				made.Close()
			}
			for _, rest := range handles[i+1:] {
				C.ncgo_comm_destroy(rest)
			}
			return nil, err
		}
		comms[i] = c
	}
	return comms, nil
}

// Split makes a new communicator of the ranks that pass the same color,
// ordered by key then old rank (ncore_comm_split). Collective. With color
// SplitNoColor this rank joins none and gets (nil, nil). cfg nil inherits
// the parent's configuration.
func (c *Communicator) Split(color, key int, cfg *Config) (*Communicator, error) {
	defer runtime.KeepAlive(c)
	n := cNumbers{function: "ncore_comm_split"}
	ccolor, ckey := n.int("color", color), n.int("key", key)
	if n.err != nil {
		return nil, n.err
	}
	cc, err := cfg.toC()
	if err != nil {
		return nil, err
	}
	defer cc.free()
	var h C.ncore_comm_t
	if err := fromResult(C.ncgo_comm_split(c.ch(), ccolor, ckey, &h, cc.ptr())); err != nil {
		return nil, err
	}
	if h == 0 {
		return nil, nil
	}
	return newCommunicator(h)
}

// Shrink makes a communicator of this one's ranks minus exclude
// (ncore_comm_shrink). Collective over the ranks that remain.
func (c *Communicator) Shrink(exclude []int, cfg *Config, flags ShrinkFlags) (*Communicator, error) {
	defer runtime.KeepAlive(c)
	cc, err := cfg.toC()
	if err != nil {
		return nil, err
	}
	defer cc.free()
	n := cNumbers{function: "ncore_comm_shrink"}
	var ex *C.int
	if len(exclude) > 0 {
		cex := make([]C.int, len(exclude))
		for i, r := range exclude {
			cex[i] = n.intAt("exclude_ranks", i, r)
		}
		ex = &cex[0]
	}
	count := n.int("exclude_count", len(exclude))
	if n.err != nil {
		return nil, n.err
	}
	var h C.ncore_comm_t
	if err := fromResult(C.ncgo_comm_shrink(c.ch(), ex, count, &h, cc.ptr(), C.uint32_t(flags))); err != nil {
		return nil, err
	}
	return newCommunicator(h)
}

// Finalize flushes this rank's operations and synchronises with the other
// ranks so that Close leaves no peer waiting (ncore_comm_finalize).
// Collective; afterwards only queries and Close are valid.
func (c *Communicator) Finalize() error {
	defer runtime.KeepAlive(c)
	return fromResult(C.ncgo_comm_finalize(c.ch()))
}

// Synchronize waits until every operation enqueued on stream so far
// completed, failing instead of hanging when the communicator cannot
// complete them (ncore_comm_synchronize): ErrRemote for a dead or aborted
// peer, ErrTimeout past the configured timeout. On the host backend
// operations complete before they return, so only the asynchronous error is
// reported. A nil stream is the default stream.
func (c *Communicator) Synchronize(stream *Stream) error {
	defer runtime.KeepAlive(c)
	return fromResult(C.ncgo_comm_synchronize(c.ch(), stream.arg()))
}

// Destroy is Close: it releases the communicator and every resource it
// owns (ncore_comm_destroy). Local; idempotent.
func (c *Communicator) Destroy() error { return c.Close() }

// Abort aborts the communicator (ncore_comm_abort): a call blocked on it in
// another goroutine returns ErrClosed, peers waiting on this rank get
// ErrRemote, and everything is released as by Destroy. Idempotent; safe
// from any goroutine.
func (c *Communicator) Abort() error {
	defer runtime.KeepAlive(c)
	return fromResult(C.ncgo_comm_abort(c.ch()))
}
