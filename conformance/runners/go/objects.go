package main

// The named objects a plan's steps make and use. Each holds the raw handle
// or address (what the plan passes between steps, wrong kinds included) and
// the Go object that owns it, so that no finalizer closes it early.

import "ncore.dev/ncore"

// kind is what made an object; close and is_valid dispatch on it.
type kind int

const (
	kindComm kind = iota
	kindBuffer
	kindRegisteredBuffer
	kindWindow
	kindCustomRedOp
	kindDevComm
	kindSymmetric
	kindMemory
)

// object is one named thing.
type object struct {
	kind   kind
	handle uint64         // handles
	addr   uintptr        // buffers and memory
	bytes  int            // buffers
	dtype  ncore.DataType // buffers
	plain  []byte         // a plain (Go) buffer's memory, kept alive here
	redop  ncore.ReduceOp // a custom operator's value, remembered after close
	owner  any            // the Go object that owns handle, kept alive here
	freed  bool           // memory a mem_free step released
}

// objects is the name -> object table of the case that runs; made holds
// every object the case made, hidden names included, for clearObjects.
var (
	objects = map[string]*object{}
	made    []*object
)

// put adds the object called name (hiding an earlier one of that name,
// which clearObjects still releases).
func put(name string, k kind) *object {
	o := &object{kind: k}
	objects[name] = o
	made = append(made, o)
	return o
}

// handleOf is the handle an argument names: 0 for "null" or an unknown name.
func handleOf(name string) uint64 {
	if o := objects[name]; o != nil {
		return o.handle
	}
	return 0
}

// clearObjects ends a case, as the C runner's objects_clear: destroys every
// communicator it made (their resources go with them), newest first, then
// frees its MemAlloc memory. Errors are ignored: the steps already reported
// what the case checks.
func clearObjects(backend ncore.Backend) {
	for i := len(made) - 1; i >= 0; i-- {
		if o := made[i]; o.kind == kindComm && o.handle != 0 {
			ncore.CommunicatorFromHandle(o.handle).Destroy()
		}
	}
	for _, o := range made {
		if (o.kind == kindBuffer || o.kind == kindMemory) && !o.freed && o.plain == nil && o.addr != 0 {
			ncore.MemFree(backend, o.addr)
		}
	}
	objects = map[string]*object{}
	made = nil
}
