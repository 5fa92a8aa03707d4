package ncore

/*
#include "ncgo.h"
*/
import "C"

import "unsafe"

// ABIVersion is the NCORE_ABI_VERSION this package was compiled against
// (major*10000 + minor*100).
const ABIVersion = C.NCORE_ABI_VERSION

// LoadedABIVersion is the ABI version of the libncore.so actually loaded.
func LoadedABIVersion() int { return int(C.ncore_abi_version()) }

// Version is the loaded library's version string, "MAJOR.MINOR.PATCH".
func Version() string { return C.GoString(C.ncore_version_string()) }

// CheckABI says whether the loaded library can serve this binding: the same
// major version and at least the compiled minor version.
func CheckABI() error {
	loaded := LoadedABIVersion()
	if loaded/10000 != ABIVersion/10000 || loaded < ABIVersion {
		return newError(StatusUnavailable, "ncore.CheckABI", "libncore.so",
			"ABI version %d loaded, %d or a later minor needed", loaded, ABIVersion)
	}
	return nil
}

// unsafePointer converts a C pointer for C.free; a helper so files that only
// free C strings need not import unsafe.
func unsafePointer(p *C.char) unsafe.Pointer { return unsafe.Pointer(p) }
