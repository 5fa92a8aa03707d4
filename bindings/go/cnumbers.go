package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"math"
	"strconv"
)

// Go's int is 64 bits wide, C's int 32, and size_t has no negative values:
// C.int(v) and C.size_t(v) silently truncate or wrap (InitRank(1<<32+1, ...)
// made a one-rank communicator, Broadcast with root 1<<40 ran as root 0, a
// size of -1 became 2^64-1). Every Go int this package hands to C goes
// through cNumbers instead, which keeps the first value that does not fit
// as an invalid-argument error naming the function and the argument, in
// the library's message form; the call returns it before calling C. (Values
// of the package's own 32-bit types, DataType, ReduceOp, Backend and the
// flags, always fit.)

// cNumbers converts the Go ints of one call of function to C's types.
type cNumbers struct {
	function string
	err      error // the first value that did not fit
}

// int is v as a C int (0, and the error kept, when it does not fit).
func (n *cNumbers) int(argument string, v int) C.int {
	if v < math.MinInt32 || v > math.MaxInt32 {
		n.outOfRange(argument, v, "int")
		return 0
	}
	return C.int(v)
}

// int32 is v as a C int32_t, for struct fields (as int).
func (n *cNumbers) int32(argument string, v int) C.int32_t {
	if v < math.MinInt32 || v > math.MaxInt32 {
		n.outOfRange(argument, v, "int32_t")
		return 0
	}
	return C.int32_t(v)
}

// int32At is int32 for field `field` of element i of the list `list`
// ("descs[2].peer"), the name made only when the value does not fit.
func (n *cNumbers) int32At(list string, i int, field string, v int) C.int32_t {
	if v < math.MinInt32 || v > math.MaxInt32 {
		n.outOfRange(list+"["+strconv.Itoa(i)+"]."+field, v, "int32_t")
		return 0
	}
	return C.int32_t(v)
}

// intAt is int for element i of the list `list` ("exclude[1]").
func (n *cNumbers) intAt(list string, i int, v int) C.int {
	if v < math.MinInt32 || v > math.MaxInt32 {
		n.outOfRange(list+"["+strconv.Itoa(i)+"]", v, "int")
		return 0
	}
	return C.int(v)
}

// size is v as a C size_t (0, and the error kept, when v is negative).
func (n *cNumbers) size(argument string, v int) C.size_t {
	if v < 0 {
		n.keep(newError(StatusInvalid, n.function, argument, "%d is negative (C takes a size_t)", v))
		return 0
	}
	return C.size_t(v)
}

func (n *cNumbers) outOfRange(argument string, v int, ctype string) {
	n.keep(newError(StatusInvalid, n.function, argument, "%d does not fit C's %s [%d, %d]",
		v, ctype, math.MinInt32, math.MaxInt32))
}

func (n *cNumbers) keep(err error) {
	if n.err == nil {
		n.err = err
	}
}
