package ncore

// The cgo flags for the whole package: the public headers of abi/include and
// the libncore.so that `make lib` puts in build/lib (found at run time through
// the rpath, so tests and examples run without LD_LIBRARY_PATH).

/*
#cgo CFLAGS: -I${SRCDIR}/../../abi/include
#cgo LDFLAGS: -L${SRCDIR}/../../build/lib -lncore -Wl,-rpath,${SRCDIR}/../../build/lib
#include "ncgo.h"
*/
import "C"
