package ncore

/*
#include "ncgo.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// ABIVersion is the NCORE_ABI_VERSION this package was compiled against
// (major*10000 + minor*100).
const ABIVersion = C.NCORE_ABI_VERSION

// LoadedABIVersion is the ABI version of the libncore.so actually loaded.
func LoadedABIVersion() int { return int(C.ncore_abi_version()) }

// Version is the loaded library's version string, "MAJOR.MINOR.PATCH".
func Version() string { return C.GoString(C.ncore_version_string()) }

// abiMismatch is the rule every binding applies when it loads
// (docs/abi-policy.md): the same major version, and a library minor at least
// the binding's. It returns the message for a loaded library version that
// breaks it against the built one, "" for one that serves.
func abiMismatch(loaded, built int) string {
	if loaded/10000 == built/10000 && loaded >= built {
		return ""
	}
	return fmt.Sprintf("ncore: libncore.so has ABI version %d, this binding was built against %d: "+
		"the major versions must match and the library's minor must be at least the binding's", loaded, built)
}

// CheckABI says whether the loaded library can serve this binding: the same
// major version and at least the compiled minor version. The package's init
// already refused (panicked) otherwise; CheckABI is for reporting.
func CheckABI() error {
	if msg := abiMismatch(LoadedABIVersion(), ABIVersion); msg != "" {
		return &Error{Status: StatusUnavailable, Message: msg}
	}
	return nil
}

// init refuses, when the package loads, a library this binding cannot trust
// (as Python's import and the Rust crate's load-time check do).
func init() {
	if msg := abiMismatch(LoadedABIVersion(), ABIVersion); msg != "" {
		panic(msg)
	}
}

// unsafePointer converts a C pointer for C.free; a helper so files that only
// free C strings need not import unsafe.
func unsafePointer(p *C.char) unsafe.Pointer { return unsafe.Pointer(p) }
