// CUDA graphs (conformance/README.md, "capture_begin / capture_end"), as
// the C runner's capture.c: capture_begin starts capturing a stream of the
// runner's (made once per case) and makes it the stream of every later
// call that takes one; capture_end ends the capture, waits for the default
// stream's earlier work, launches the graph `replays` times (default 1) on
// that stream, waits for it, and goes back to the default stream. The
// driver's graph calls come from libcuda.so.1 through dlopen (the runner
// links only libncore); where they fail, the runner stops (exit 2, the
// reason on stderr): a capture step has no ncore status to report. The
// runner's calls all run on the main OS thread (main.go), as a capture
// in CUDA's global mode needs.

package main

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>

typedef int (*cf_begin_fn)(void *stream, int mode);
typedef int (*cf_end_fn)(void *stream, void **graph);
typedef int (*cf_instantiate_fn)(void **exec, void *graph, unsigned long long flags);
typedef int (*cf_launch_fn)(void *exec, void *stream);
typedef int (*cf_destroy_fn)(void *object);

static cf_begin_fn cf_begin;
static cf_end_fn cf_end;
static cf_instantiate_fn cf_instantiate;
static cf_launch_fn cf_launch;
static cf_destroy_fn cf_exec_destroy, cf_graph_destroy;

// NULL once every call is found; else what is missing.
static const char *cf_load(void) {
  if (cf_graph_destroy != NULL) return NULL;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (lib == NULL) return "dlopen(libcuda.so.1)";
  if ((cf_begin = (cf_begin_fn)dlsym(lib, "cuStreamBeginCapture_v2")) == NULL)
    return "cuStreamBeginCapture_v2";
  if ((cf_end = (cf_end_fn)dlsym(lib, "cuStreamEndCapture")) == NULL)
    return "cuStreamEndCapture";
  if ((cf_instantiate = (cf_instantiate_fn)dlsym(lib, "cuGraphInstantiateWithFlags")) == NULL)
    return "cuGraphInstantiateWithFlags";
  if ((cf_launch = (cf_launch_fn)dlsym(lib, "cuGraphLaunch")) == NULL)
    return "cuGraphLaunch";
  if ((cf_exec_destroy = (cf_destroy_fn)dlsym(lib, "cuGraphExecDestroy")) == NULL)
    return "cuGraphExecDestroy";
  if ((cf_graph_destroy = (cf_destroy_fn)dlsym(lib, "cuGraphDestroy")) == NULL)
    return "cuGraphDestroy";
  return NULL;
}

// CU_STREAM_CAPTURE_MODE_GLOBAL (0), CUDA's default (and torch's).
static int cf_begin_capture(uintptr_t s) { return cf_begin((void *)s, 0); }
static int cf_end_capture(uintptr_t s, uintptr_t *graph) {
  void *g = NULL;
  int r = cf_end((void *)s, &g);
  *graph = (uintptr_t)g;
  return r;
}
static int cf_instantiate_graph(uintptr_t graph, uintptr_t *exec) {
  void *e = NULL;
  int r = cf_instantiate(&e, (void *)graph, 0);
  *exec = (uintptr_t)e;
  return r;
}
static int cf_launch_graph(uintptr_t exec, uintptr_t s) {
  return cf_launch((void *)exec, (void *)s);
}
static void cf_destroy_graph(uintptr_t graph) { cf_graph_destroy((void *)graph); }
static void cf_destroy_exec(uintptr_t exec) { cf_exec_destroy((void *)exec); }
*/
import "C"

import (
	"fmt"
	"os"

	"ncore.dev/ncore"
)

// stopCapture ends the runner: a capture step has no status to report.
func stopCapture(what string, result C.int) {
	fmt.Fprintf(os.Stderr, "conformance: %s failed (CUresult %d)\n", what, int(result))
	out.Flush()
	os.Exit(2)
}

func driverOK(what string, result C.int) {
	if result != 0 {
		stopCapture(what, result)
	}
}

func opCaptureBegin(r *runner, s step) (result, error) {
	if r.stream != nil {
		stopCapture("capture_begin inside a capture", -1)
	}
	if missing := C.cf_load(); missing != nil {
		stopCapture(C.GoString(missing), -1)
	}
	if r.captureStream == nil {
		stream, err := ncore.NewStream(r.backend)
		if err != nil {
			return result{}, err
		}
		r.captureStream = stream
	}
	driverOK("cuStreamBeginCapture", C.cf_begin_capture(C.uintptr_t(r.captureStream.Addr())))
	r.stream = r.captureStream
	return result{}, nil
}

func opCaptureEnd(r *runner, s step) (result, error) {
	if r.stream == nil {
		stopCapture("capture_end without capture_begin", -1)
	}
	r.stream = nil
	addr := C.uintptr_t(r.captureStream.Addr())
	var graph, exec C.uintptr_t
	driverOK("cuStreamEndCapture", C.cf_end_capture(addr, &graph))
	driverOK("cuGraphInstantiate", C.cf_instantiate_graph(graph, &exec))
	C.cf_destroy_graph(graph)
	defer C.cf_destroy_exec(exec)
	if err := ncore.SynchronizeDefault(r.backend); err != nil {
		return result{}, err
	}
	for i := int64(0); i < s.int("replays", 1); i++ {
		driverOK("cuGraphLaunch", C.cf_launch_graph(exec, addr))
	}
	return result{}, r.captureStream.Synchronize()
}

// releaseCapture, at the end of a case: a capture still open is ended and
// dropped, the capture stream destroyed.
func releaseCapture(r *runner) {
	if r.stream != nil {
		var graph C.uintptr_t
		if C.cf_end_capture(C.uintptr_t(r.captureStream.Addr()), &graph) == 0 && graph != 0 {
			C.cf_destroy_graph(graph)
		}
		r.stream = nil
	}
	if r.captureStream != nil {
		r.captureStream.Close()
		r.captureStream = nil
	}
}
