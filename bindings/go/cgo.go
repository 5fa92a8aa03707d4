package ncore

// The cgo flags for the whole package come from pkg-config (ncore.pc): an
// installed ncore (make install PREFIX=...; PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
// unless PREFIX is /usr or /usr/local), or, inside the repository, the
// ncore.pc that `make lib` writes in build/lib/pkgconfig (test.sh puts it
// first on PKG_CONFIG_PATH). ncore.pc's run path lets programs start
// without LD_LIBRARY_PATH; no path of this checkout is baked into a user's
// binary.

/*
#cgo pkg-config: ncore
#include "ncgo.h"
*/
import "C"
