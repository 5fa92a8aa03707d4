// Package cudagraph gives ncore's tests CUDA graphs without a CUDA
// binding: the few driver calls that capture what ncore enqueues on a
// stream and replay it, from libcuda.so.1 loaded at run time (dlopen), so
// the package builds and its users skip on machines without CUDA. Test
// use only (internal): ncore.dev/ncore's NCCL tests.
package cudagraph

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>

typedef int (*cg_begin_fn)(void *stream, int mode);
typedef int (*cg_end_fn)(void *stream, void **graph);
typedef int (*cg_instantiate_fn)(void **exec, void *graph, unsigned long long flags);
typedef int (*cg_launch_fn)(void *exec, void *stream);
typedef int (*cg_destroy_fn)(void *object);

static cg_begin_fn cg_begin;
static cg_end_fn cg_end;
static cg_instantiate_fn cg_instantiate;
static cg_launch_fn cg_launch;
static cg_destroy_fn cg_exec_destroy, cg_graph_destroy;

// NULL once every call is found; else what is missing.
static const char *cg_load(void) {
  if (cg_graph_destroy != NULL) return NULL;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (lib == NULL) return "libcuda.so.1";
  if ((cg_begin = (cg_begin_fn)dlsym(lib, "cuStreamBeginCapture_v2")) == NULL)
    return "cuStreamBeginCapture_v2";
  if ((cg_end = (cg_end_fn)dlsym(lib, "cuStreamEndCapture")) == NULL)
    return "cuStreamEndCapture";
  if ((cg_instantiate = (cg_instantiate_fn)dlsym(lib, "cuGraphInstantiateWithFlags")) == NULL)
    return "cuGraphInstantiateWithFlags";
  if ((cg_launch = (cg_launch_fn)dlsym(lib, "cuGraphLaunch")) == NULL)
    return "cuGraphLaunch";
  if ((cg_exec_destroy = (cg_destroy_fn)dlsym(lib, "cuGraphExecDestroy")) == NULL)
    return "cuGraphExecDestroy";
  if ((cg_graph_destroy = (cg_destroy_fn)dlsym(lib, "cuGraphDestroy")) == NULL)
    return "cuGraphDestroy";
  return NULL;
}

// CU_STREAM_CAPTURE_MODE_GLOBAL (0), CUDA's default.
static int cg_begin_capture(uintptr_t stream) { return cg_begin((void *)stream, 0); }

// Ends the capture and instantiates its graph into *exec.
static int cg_end_capture(uintptr_t stream, uintptr_t *exec) {
  void *graph = NULL, *e = NULL;
  int r = cg_end((void *)stream, &graph);
  if (r == 0) r = cg_instantiate(&e, graph, 0);
  if (graph != NULL) cg_graph_destroy(graph);
  *exec = (uintptr_t)e;
  return r;
}

static int cg_launch_on(uintptr_t exec, uintptr_t stream) {
  return cg_launch((void *)exec, (void *)stream);
}

static int cg_destroy(uintptr_t exec) { return cg_exec_destroy((void *)exec); }
*/
import "C"

import (
	"fmt"
	"runtime"
)

// Graph is an executable graph: what a capture took.
type Graph struct {
	exec uintptr
}

func driverError(call string, result C.int) error {
	if result == 0 {
		return nil
	}
	return fmt.Errorf("%s failed: CUresult %d", call, int(result))
}

// Capture runs calls with stream (a CUstream, e.g. ncore's Stream.Addr())
// being captured in CUDA's default global mode, on one OS thread (the
// capture must end on the thread that began it), and instantiates what it
// took.
func Capture(stream uintptr, calls func()) (*Graph, error) {
	if missing := C.cg_load(); missing != nil {
		return nil, fmt.Errorf("the CUDA driver lacks %s", C.GoString(missing))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := driverError("cuStreamBeginCapture", C.cg_begin_capture(C.uintptr_t(stream))); err != nil {
		return nil, err
	}
	calls()
	var exec C.uintptr_t
	if err := driverError("cuStreamEndCapture / cuGraphInstantiate",
		C.cg_end_capture(C.uintptr_t(stream), &exec)); err != nil {
		return nil, err
	}
	return &Graph{exec: uintptr(exec)}, nil
}

// Launch runs the graph on stream (the caller waits for it).
func (g *Graph) Launch(stream uintptr) error {
	return driverError("cuGraphLaunch", C.cg_launch_on(C.uintptr_t(g.exec), C.uintptr_t(stream)))
}

// Close destroys the graph; launched work holds no reference to it.
func (g *Graph) Close() error {
	return driverError("cuGraphExecDestroy", C.cg_destroy(C.uintptr_t(g.exec)))
}
