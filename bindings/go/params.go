package ncore

/*
#include <stdlib.h>
#include "ncgo.h"
*/
import "C"

import (
	"errors"
	"strings"
	"unsafe"
)

// NCCL's parameters, read-only (ncore/params.h; nccl.core's params and
// dump_params): from NCCL's parameter API where the backend AUTO picks is
// NCCL 2.30 or newer, else from the environment (the NCCL_* and NCORE_*
// variables that are set). Every call asks anew.

// readText reads a text under the size protocol: the length, then the text,
// asked again (a few times) if it grew in between.
func readText(call func(buf *C.char, capacity C.size_t, length *C.size_t) C.ncgo_result) (string, error) {
	var length C.size_t
	if err := fromResult(call(nil, 0, &length)); err != nil {
		return "", err
	}
	for i := 0; i < 8; i++ {
		buf := (*C.char)(C.malloc(length + 1))
		err := fromResult(call(buf, length+1, &length))
		text := ""
		if err == nil {
			text = C.GoStringN(buf, C.int(length))
		}
		C.free(unsafe.Pointer(buf))
		var e *Error
		if err != nil && errors.As(err, &e) && e.Status == StatusInvalid && strings.Contains(e.Message, "capacity") {
			continue
		}
		return text, err
	}
	return "", &Error{Status: StatusInternal, Message: "ncore_param_get: the parameters kept changing while being read"}
}

// Param is the value of parameter key (e.g. "NCCL_DEBUG"); ErrInvalid with
// "no parameter" when there is none of that name.
func Param(key string) (string, error) {
	if strings.IndexByte(key, 0) >= 0 {
		return "", &Error{Status: StatusInvalid, Message: "ncore_param_get: key: contains a NUL byte"}
	}
	ckey := C.CString(key)
	defer C.free(unsafe.Pointer(ckey))
	return readText(func(buf *C.char, capacity C.size_t, length *C.size_t) C.ncgo_result {
		return C.ncgo_param_get(ckey, buf, capacity, length)
	})
}

// ParamKeys is the names of all parameters, in the source's order.
func ParamKeys() ([]string, error) {
	text, err := readText(func(buf *C.char, capacity C.size_t, length *C.size_t) C.ncgo_result {
		return C.ncgo_param_keys(buf, capacity, length)
	})
	if err != nil || text == "" {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), nil
}

// DumpParams prints every parameter to standard output as NAME=value lines.
func DumpParams() error {
	return fromResult(C.ncgo_param_dump())
}
