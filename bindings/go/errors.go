package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Status is an ncore_status_t: the result of a C call.
type Status int32

// The statuses of errors.h; the values equal the C ones.
const (
	StatusOK            Status = C.NCORE_OK
	StatusUnhandledCuda Status = C.NCORE_ERR_UNHANDLED_CUDA
	StatusSystem        Status = C.NCORE_ERR_SYSTEM
	StatusInternal      Status = C.NCORE_ERR_INTERNAL
	StatusInvalid       Status = C.NCORE_ERR_INVALID_ARGUMENT
	StatusInvalidUsage  Status = C.NCORE_ERR_INVALID_USAGE
	StatusRemote        Status = C.NCORE_ERR_REMOTE
	StatusInProgress    Status = C.NCORE_IN_PROGRESS
	StatusNotSupported  Status = C.NCORE_ERR_NOT_SUPPORTED
	StatusUnavailable   Status = C.NCORE_ERR_UNAVAILABLE
	StatusClosed        Status = C.NCORE_ERR_CLOSED
	StatusTimeout       Status = C.NCORE_ERR_TIMEOUT
)

// String is the C name of the status ("NCORE_ERR_CLOSED"), from
// ncore_status_string.
func (s Status) String() string {
	return C.GoString(C.ncore_status_string(C.ncore_status_t(s)))
}

// Error is what every failing call returns: the C status and the library's
// message, which names the function and the argument.
type Error struct {
	Status  Status
	Message string
	// cause is set when the failure came from outside the library, e.g. a
	// cancelled context; Unwrap exposes it.
	cause error
}

// Error formats the status name and the message.
func (e *Error) Error() string {
	if e.Message == "" {
		return "ncore: " + e.Status.String()
	}
	return "ncore: " + e.Status.String() + ": " + e.Message
}

// Is makes errors.Is(err, ErrClosed) true for any *Error of that status. A
// sentinel (an *Error with no message) matches by status alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	if t == e {
		return true
	}
	return t.Message == "" && t.cause == nil && t.Status == e.Status
}

// Unwrap returns the outside cause (a context's error), if any.
func (e *Error) Unwrap() error { return e.cause }

// Sentinels for errors.Is; one per non-OK status.
var (
	ErrUnhandledCuda   = &Error{Status: StatusUnhandledCuda}
	ErrSystem          = &Error{Status: StatusSystem}
	ErrInternal        = &Error{Status: StatusInternal}
	ErrInvalidArgument = &Error{Status: StatusInvalid}
	ErrInvalidUsage    = &Error{Status: StatusInvalidUsage}
	ErrRemote          = &Error{Status: StatusRemote}
	ErrInProgress      = &Error{Status: StatusInProgress}
	ErrNotSupported    = &Error{Status: StatusNotSupported}
	ErrUnavailable     = &Error{Status: StatusUnavailable}
	ErrClosed          = &Error{Status: StatusClosed}
	ErrTimeout         = &Error{Status: StatusTimeout}
)

// ErrInvalid is ErrInvalidArgument under nccl.core's name (NcclInvalid).
var ErrInvalid = ErrInvalidArgument

// fromResult turns a wrapper's result into nil or an *Error, freeing the
// message copy the wrapper made.
//
// NCORE_IN_PROGRESS is a success, as in NCCL and nccl.core: a call on a
// non-blocking communicator was accepted and still runs (poll AsyncError
// until StatusOK, or just make the next call: it waits for it), and a
// communicator that came with it is still initialising.
func fromResult(r C.ncgo_result) error {
	if r.status == C.NCORE_OK || r.status == C.NCORE_IN_PROGRESS {
		if r.message != nil {
			C.free(unsafe.Pointer(r.message))
		}
		return nil
	}
	msg := ""
	if r.message != nil {
		msg = C.GoString(r.message)
		C.free(unsafe.Pointer(r.message))
	}
	return &Error{Status: Status(r.status), Message: msg}
}

// newError makes an error for a check the binding does itself, in the
// library's message form "<function>: <argument>: <what>".
func newError(status Status, function, argument, format string, args ...any) error {
	return &Error{Status: status, Message: function + ": " + argument + ": " + fmt.Sprintf(format, args...)}
}
