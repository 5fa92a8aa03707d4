/* Conformance runner (C): CUDA graphs (conformance/README.md,
 * "capture_begin / capture_end"). capture_begin starts capturing a stream
 * of the runner's (made once per case with ncore_stream_create) and makes
 * it the stream of every later call that takes one; capture_end ends the
 * capture, waits for the default stream's earlier work, launches the graph
 * `replays` times (default 1) on that stream, waits for it, and goes back
 * to the default stream. The driver's graph calls come from libcuda.so.1
 * through dlopen (the runner links only libncore); where they fail, the
 * runner stops (exit 2, the reason on stderr), as on a malformed plan: a
 * capture step has no ncore status to report. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "ops.h"

/* CU_STREAM_CAPTURE_MODE_GLOBAL, CUDA's default (and torch's). */
#define CAPTURE_MODE_GLOBAL 0

static struct {
  int (*begin)(void *stream, int mode);
  int (*end)(void *stream, void **graph);
  int (*instantiate)(void **exec, void *graph, unsigned long long flags);
  int (*launch)(void *exec, void *stream);
  int (*exec_destroy)(void *exec);
  int (*graph_destroy)(void *graph);
} cu;

static void stop(const char *what, int result) {
  fprintf(stderr, "conformance: %s failed (CUresult %d)\n", what, result);
  exit(2);
}

static void *symbol(void *lib, const char *name) {
  void *f = dlsym(lib, name);
  if (f == NULL) stop(name, -1);
  return f;
}

static void load(void) {
  if (cu.graph_destroy != NULL) return;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (lib == NULL) stop("dlopen(libcuda.so.1)", -1);
  *(void **)&cu.begin = symbol(lib, "cuStreamBeginCapture_v2");
  *(void **)&cu.end = symbol(lib, "cuStreamEndCapture");
  *(void **)&cu.instantiate = symbol(lib, "cuGraphInstantiateWithFlags");
  *(void **)&cu.launch = symbol(lib, "cuGraphLaunch");
  *(void **)&cu.exec_destroy = symbol(lib, "cuGraphExecDestroy");
  *(void **)&cu.graph_destroy = symbol(lib, "cuGraphDestroy");
}

ncore_status_t op_capture_begin(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)step;
  (void)res;
  if (r->stream != NULL) stop("capture_begin inside a capture", -1);
  load();
  if (r->capture_stream == NULL) {
    ncore_status_t st = ncore_stream_create(&r->capture_stream, r->backend);
    if (st != NCORE_OK) return st;
  }
  int result = cu.begin(r->capture_stream, CAPTURE_MODE_GLOBAL);
  if (result != 0) stop("cuStreamBeginCapture", result);
  r->stream = r->capture_stream;
  return NCORE_OK;
}

ncore_status_t op_capture_end(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  if (r->stream == NULL) stop("capture_end without capture_begin", -1);
  r->stream = NULL;
  void *graph = NULL, *exec = NULL;
  int result = cu.end(r->capture_stream, &graph);
  if (result != 0) stop("cuStreamEndCapture", result);
  result = cu.instantiate(&exec, graph, 0);
  if (result != 0) stop("cuGraphInstantiate", result);
  cu.graph_destroy(graph);
  ncore_status_t st = ncore_stream_synchronize(NULL, r->backend);
  for (long long i = 0; st == NCORE_OK && i < plan_arg_int(step, "replays", 1); i++) {
    result = cu.launch(exec, r->capture_stream);
    if (result != 0) stop("cuGraphLaunch", result);
  }
  if (st == NCORE_OK) st = ncore_stream_synchronize(r->capture_stream, r->backend);
  cu.exec_destroy(exec);
  return st;
}

void capture_release(runner_t *r) {
  if (r->stream != NULL) {
    void *graph = NULL;
    if (cu.end(r->capture_stream, &graph) == 0 && graph != NULL)
      cu.graph_destroy(graph);
    r->stream = NULL;
  }
  if (r->capture_stream != NULL)
    (void)ncore_stream_destroy(r->capture_stream, r->backend);
  r->capture_stream = NULL;
}
