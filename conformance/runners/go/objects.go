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
}

// objects is the name -> object table.
var objects = map[string]*object{}

// put adds or replaces the object called name.
func put(name string, k kind) *object {
	o := &object{kind: k}
	objects[name] = o
	return o
}

// handleOf is the handle an argument names: 0 for "null" or an unknown name.
func handleOf(name string) uint64 {
	if o := objects[name]; o != nil {
		return o.handle
	}
	return 0
}
