/* tests/fake_nccl — a stand-in CUDA driver (libcuda.so.1) on host memory,
 * loaded through NCORE_CUDA_LIBRARY beside the stand-in libnccl, so the
 * NCCL backend's version dispatch runs on a machine without a GPU. One
 * device; streams are host objects and complete at once; copies are
 * memcpy. Kernels: ncore's own (kernels/ncore_kernels.cu) run as host
 * functions of the same effect, found by name (a wait whose signals have
 * not come fails, since a stream cannot wait here); any other kernel
 * answers NOT_SUPPORTED, but ncore's small-message allreduce kernels,
 * whose launches are only counted (fake_cuda_count("launch:<name>")):
 * tests check which path a call takes, not what it computes. CUDA graphs:
 * a stream being captured records what is enqueued on it, and a launch of the graph runs it again; what
 * CUDA forbids on a capturing stream (a query, a synchronisation, of the
 * stream, of an event captured there, or of the context) fails and
 * invalidates the capture, as CUDA does, so a test sees it. */
#include <dlfcn.h>
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

static _Thread_local CUcontext current;
/* FAKE_CUDA_DEVICES (default 1, at most 8) devices, each with one primary
 * context: the address of its entry here. */
#define FAKE_MAX_DEVICES 8
static int fake_contexts[FAKE_MAX_DEVICES];
#define fake_context (fake_contexts[0])
static int device_count(void) {
  const char *n = getenv("FAKE_CUDA_DEVICES");
  int count = n ? atoi(n) : 1;
  return count < 1 ? 1 : count > FAKE_MAX_DEVICES ? FAKE_MAX_DEVICES : count;
}
/* Streams carry this first, so cuStreamGetCtx can refuse other pointers. */
static const unsigned long long stream_magic = 0x6661b3e5747265ull;
/* A destroyed stream keeps its memory with this mark, so that a use of
 * its handle afterwards is counted (fake_cuda_count("destroyed stream"))
 * where the real driver may crash. */
static const unsigned long long destroyed_magic = 0x6465616473747265ull;
static long long destroyed_stream_uses;

/* Context, stream and pointer queries made so far (what a communicating
 * call could make per call): tests assert the hot path makes none. */
static long long lookups;
FAKE_API long long fake_cuda_lookups(void) {
  return __atomic_load_n(&lookups, __ATOMIC_RELAXED);
}
#define LOOKUP() __atomic_add_fetch(&lookups, 1, __ATOMIC_RELAXED)

/* ---- graphs: what a capture recorded, and the streams that capture ---- */

/* One operation of a stream: run at once, or recorded by a capture. */
enum node_kind { NODE_COPY, NODE_SET, NODE_WRITE64, NODE_WAIT64, NODE_KERNEL };
typedef struct fake_node {
  enum node_kind kind;
  const char *kernel;        /* NODE_KERNEL: its name */
  unsigned long long a[6];   /* the operation's arguments, by value */
} fake_node_t;
struct CUgraph_st {
  fake_node_t *nodes;
  size_t count, capacity;
};
struct CUgraphExec_st {
  struct CUgraph_st graph; /* a copy: the graph may be destroyed first */
};
typedef struct fake_stream {
  unsigned long long magic;
  CUcontext ctx;
  CUgraph capture;   /* the graph being captured, or NULL */
  int invalidated;   /* the capture met an operation CUDA forbids */
} fake_stream_t;
/* Streams capturing now: the context cannot be synchronised meanwhile. */
static int capturing_streams;
#define CAPTURE_STREAMS_MAX 64
static fake_stream_t *capture_list[CAPTURE_STREAMS_MAX];

/* The stream s names, if it is one of ours (not a default stream). */
static fake_stream_t *stream_of(CUstream s) {
  if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
    return NULL;
  fake_stream_t *f = (fake_stream_t *)s;
  if (f->magic == destroyed_magic) __atomic_add_fetch(&destroyed_stream_uses, 1, __ATOMIC_RELAXED);
  return f->magic == stream_magic ? f : NULL;
}
/* What CUDA answers an operation it forbids on a capturing stream: the
 * capture is invalidated, its end fails. */
static CUresult forbidden_in_capture(fake_stream_t *f) {
  f->invalidated = 1;
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}
static CUresult run_node(const fake_node_t *n);
/* Runs n now, or appends it to the graph s is capturing. */
static CUresult submit(CUstream s, fake_node_t n) {
  fake_stream_t *f = stream_of(s);
  if (f == NULL || f->capture == NULL) return run_node(&n);
  if (f->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  CUgraph g = f->capture;
  if (g->count == g->capacity) {
    size_t capacity = g->capacity ? 2 * g->capacity : 16;
    fake_node_t *grown = realloc(g->nodes, capacity * sizeof *grown);
    if (grown == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    g->nodes = grown;
    g->capacity = capacity;
  }
  g->nodes[g->count++] = n;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode) {
  (void)mode;
  fake_stream_t *f = stream_of(s);
  if (f == NULL) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* legacy */
  if (f->capture != NULL) return CUDA_ERROR_ILLEGAL_STATE;
  if (capturing_streams == CAPTURE_STREAMS_MAX) return CUDA_ERROR_OUT_OF_MEMORY;
  f->capture = calloc(1, sizeof *f->capture);
  if (f->capture == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  f->invalidated = 0;
  capture_list[capturing_streams++] = f;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuGraphDestroy(CUgraph g) {
  if (g != NULL) free(g->nodes);
  free(g);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamEndCapture(CUstream s, CUgraph *out) {
  fake_stream_t *f = stream_of(s);
  *out = NULL;
  if (f == NULL || f->capture == NULL) return CUDA_ERROR_ILLEGAL_STATE;
  for (int i = 0; i < capturing_streams; i++)
    if (capture_list[i] == f) capture_list[i] = capture_list[--capturing_streams];
  CUgraph g = f->capture;
  f->capture = NULL;
  if (f->invalidated) {
    cuGraphDestroy(g);
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *out = g;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status) {
  LOOKUP();
  fake_stream_t *f = stream_of(s);
  *status = f == NULL || f->capture == NULL ? CU_STREAM_CAPTURE_STATUS_NONE
            : f->invalidated                ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                            : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph g,
                                              unsigned long long flags) {
  (void)flags;
  *out = calloc(1, sizeof **out);
  if (*out == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  (*out)->graph.nodes = malloc((g->count ? g->count : 1) * sizeof *g->nodes);
  if ((*out)->graph.nodes == NULL) {
    free(*out);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  memcpy((*out)->graph.nodes, g->nodes, g->count * sizeof *g->nodes);
  (*out)->graph.count = (*out)->graph.capacity = g->count;
  return CUDA_SUCCESS;
}
/* Runs every operation the graph recorded, in order (a graph captured from
 * one stream is a chain); the first failure ends the launch. */
FAKE_API CUresult cuGraphLaunch(CUgraphExec e, CUstream s) {
  fake_stream_t *f = stream_of(s);
  if (f != NULL && f->capture != NULL) return forbidden_in_capture(f);
  for (size_t i = 0; i < e->graph.count; i++) {
    CUresult r = run_node(&e->graph.nodes[i]);
    if (r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuGraphExecDestroy(CUgraphExec e) {
  if (e != NULL) free(e->graph.nodes);
  free(e);
  return CUDA_SUCCESS;
}
/* How many operations a graph holds (a test sees what a capture took). */
FAKE_API long long fake_cuda_graph_nodes(CUgraph g) {
  return g == NULL ? -1 : (long long)g->count;
}

FAKE_API CUresult cuInit(unsigned int flags) { (void)flags; return CUDA_SUCCESS; }
FAKE_API CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == CUDA_SUCCESS ? "no error" : "fake driver error";
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = r == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceGetCount(int *n) { *n = device_count(); return CUDA_SUCCESS; }
FAKE_API CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  /* Stream memory operations: signals by cuStreamWriteValue64, waits by
   * cuStreamWaitValue64 (no kernel); virtual memory management, as every
   * GPU NCCL's windows run on. */
  *v = a == CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS ||
       a == CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  if (d < 0 || d >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *c = (CUcontext)&fake_contexts[d];
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuCtxSetCurrent(CUcontext c) { LOOKUP(); current = c; return CUDA_SUCCESS; }
FAKE_API CUresult cuCtxGetCurrent(CUcontext *c) { LOOKUP(); *c = current; return CUDA_SUCCESS; }
FAKE_API CUresult cuCtxGetDevice(CUdevice *d) {
  LOOKUP();
  if (current == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  *d = (CUdevice)((int *)current - fake_contexts);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuCtxSynchronize(void) {
  /* CUDA forbids waiting for a context while one of its streams captures. */
  for (int i = 0; i < capturing_streams; i++) capture_list[i]->invalidated = 1;
  return capturing_streams > 0 ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
                               : CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
  (void)flags;
  fake_stream_t *stream = calloc(1, sizeof *stream);
  if (stream == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  stream->magic = stream_magic;
  stream->ctx = current ? current : (CUcontext)&fake_context;
  *s = (CUstream)stream;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamDestroy_v2(CUstream s) {
  fake_stream_t *f = stream_of(s);
  if (f != NULL && f->capture != NULL) return forbidden_in_capture(f);
  if (f == NULL) return CUDA_ERROR_INVALID_HANDLE;
  f->magic = destroyed_magic; /* kept: see destroyed_magic */
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamSynchronize(CUstream s) {
  fake_stream_t *f = stream_of(s);
  return f != NULL && f->capture != NULL ? forbidden_in_capture(f) : CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamQuery(CUstream s) {
  LOOKUP();
  fake_stream_t *f = stream_of(s);
  return f != NULL && f->capture != NULL ? forbidden_in_capture(f) : CUDA_SUCCESS;
}
/* Every stream belongs to the one primary context; a pointer that is not a
 * live stream is an invalid handle (the real driver's answer). */
FAKE_API CUresult cuStreamGetCtx(CUstream s, CUcontext *c) {
  LOOKUP();
  if (*(const unsigned long long *)s != stream_magic)
    return CUDA_ERROR_INVALID_HANDLE;
  *c = ((const fake_stream_t *)s)->ctx;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  return submit(st, (fake_node_t){NODE_COPY, NULL, {d, s, n}});
}
FAKE_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) {
  return submit(st, (fake_node_t){NODE_COPY, NULL, {d, (uintptr_t)s, n}});
}
/* Copies from device memory to the host (fake_cuda_count): a test sees
 * whether ncore read a peer's state from its GPU. */
static long long device_to_host_copies;
FAKE_API CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) {
  __atomic_add_fetch(&device_to_host_copies, 1, __ATOMIC_RELAXED);
  return submit(st, (fake_node_t){NODE_COPY, NULL, {(uintptr_t)d, s, n}});
}
FAKE_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  return submit(st, (fake_node_t){NODE_COPY, NULL, {d, s, n}});
}
FAKE_API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream st) {
  return submit(st, (fake_node_t){NODE_SET, NULL, {d, v, n}});
}
FAKE_API CUresult cuStreamWriteValue64_v2(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned f) {
  (void)f;
  return submit(s, (fake_node_t){NODE_WRITE64, NULL, {a, v}});
}
FAKE_API CUresult cuStreamWaitValue64_v2(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned f) {
  (void)f;
  return submit(s, (fake_node_t){NODE_WAIT64, NULL, {a, v}});
}
FAKE_API CUresult cuPointerGetAttribute(void *out, CUpointer_attribute a, CUdeviceptr p) {
  LOOKUP();
  (void)p;
  if (a == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
    *(CUmemorytype *)out = CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  }
  if (a == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) {
    *(int *)out = 0;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_NOT_SUPPORTED;
}
FAKE_API CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size,
                                          CUdeviceptr p) {
  /* Host memory of unknown extent: the pointer starts an allocation large
   * enough for any test. */
  *base = p;
  *size = (size_t)1 << 40;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuModuleLoadData(CUmodule *m, const void *image) {
  (void)image;
  *m = (CUmodule)&fake_context;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  (void)m;
  *f = (CUfunction)(uintptr_t)name;
  return CUDA_SUCCESS;
}
/* ncore's small-message kernels (kernels/small_coll.cu): launches counted
 * by name, and the last one's argument (its count: elements, or bytes for
 * the allgather). */
static const char *const small_kernels[] = {
    "ncore_allreduce_oneshot", "ncore_allreduce_twoshot",
    "ncore_allreduce_oneshot_ll", "ncore_allgather_ll", "ncore_reduce_scatter_ll"};
#define SMALL_KERNELS (sizeof small_kernels / sizeof small_kernels[0])
static long long small_launches[SMALL_KERNELS];
static long long small_last_count;
/* ncore's kernels (kernels/ncore_kernels.cu) as host functions of the
 * same effect: each row, the kernel's name and the sizes of its
 * parameters (copied by value at the launch, as CUDA does). */
static const struct {
  const char *name;
  int params;
  size_t size[6];
} kernels[] = {
    {"ncore_signal_add", 2, {8, 8}},
    {"ncore_put_signal", 6, {8, 8, 8, 8, 8, 4}},
    {"ncore_wait_geq", 5, {8, 8, 8, 8, 4}},
    {"ncore_window_lsa_pointer", 4, {8, 8, 4, 8}},
    {"ncore_window_peer_pointer", 4, {8, 8, 4, 8}},
};
#define U64(x) ((unsigned long long *)(uintptr_t)(x))
/* A pointer kernel's answer: the stand-in libnccl's window pointer
 * (fake_nccl_window_pointer), as NCCL's device getter would give. */
static CUresult window_pointer(const unsigned long long *a) {
  static void *(*pointer)(void *, size_t, int);
  if (pointer == NULL) {
    void *nccl = dlopen(getenv("NCORE_NCCL_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    if (nccl != NULL) *(void **)&pointer = dlsym(nccl, "fake_nccl_window_pointer");
    if (pointer == NULL) return CUDA_ERROR_NOT_SUPPORTED;
  }
  *(void **)(uintptr_t)a[3] = pointer((void *)(uintptr_t)a[0], (size_t)a[1], (int)a[2]);
  return CUDA_SUCCESS;
}
static CUresult run_kernel(const char *name, const unsigned long long *a) {
  if (strcmp(name, "ncore_signal_add") == 0) {
    __atomic_add_fetch(U64(a[0]), a[1], __ATOMIC_SEQ_CST);
  } else if (strcmp(name, "ncore_put_signal") == 0) {
    memmove((void *)(uintptr_t)a[0], (const void *)(uintptr_t)a[1], (size_t)a[2]);
    if (a[3] != 0 && a[5] != 0) __atomic_store_n(U64(a[3]), a[4], __ATOMIC_SEQ_CST);
    else if (a[3] != 0) __atomic_add_fetch(U64(a[3]), a[4], __ATOMIC_SEQ_CST);
  } else if (strcmp(name, "ncore_wait_geq") == 0) {
    unsigned long long expected =
        a[1] != 0 ? __atomic_add_fetch(U64(a[1]), a[2], __ATOMIC_SEQ_CST) : a[2];
    /* A give_up kernel (hybrid) returns; its stream wait follows. */
    if ((long long)(*U64(a[0]) - expected) < 0 && a[4] == 0)
      return CUDA_ERROR_NOT_READY; /* would wait: the test sees it */
  } else {
    return window_pointer(a);
  }
  return CUDA_SUCCESS;
}
static CUresult run_node(const fake_node_t *n) {
  void *dst = (void *)(uintptr_t)n->a[0];
  switch (n->kind) {
    case NODE_COPY:
      memmove(dst, (const void *)(uintptr_t)n->a[1], (size_t)n->a[2]);
      return CUDA_SUCCESS;
    case NODE_SET:
      memset(dst, (int)n->a[1], (size_t)n->a[2]);
      return CUDA_SUCCESS;
    case NODE_WRITE64:
      __atomic_store_n(U64(n->a[0]), n->a[1], __ATOMIC_SEQ_CST);
      return CUDA_SUCCESS;
    case NODE_WAIT64:
      /* Streams complete at once: a wait that is not yet satisfied would
       * hang a real stream; here it is an error the test sees. */
      return *U64(n->a[0]) >= n->a[1] ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
    case NODE_KERNEL:
      return run_kernel(n->kernel, n->a);
  }
  return CUDA_ERROR_INVALID_VALUE;
}
FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shm,
                                 CUstream s, void **params, void **extra) {
  (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz;
  (void)shm; (void)extra;
  const char *name = (const char *)f; /* cuModuleGetFunction's answer */
  for (size_t k = 0; k < SMALL_KERNELS; k++)
    if (strcmp(name, small_kernels[k]) == 0) {
      __atomic_add_fetch(&small_launches[k], 1, __ATOMIC_RELAXED);
      /* ncore_small_args_t: input, output, then count (kernels/small_coll.h) */
      small_last_count = (long long)((const unsigned long long *)params[0])[2];
      return CUDA_SUCCESS;
    }
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
    if (strcmp(name, kernels[k].name) != 0) continue;
    fake_node_t n = {NODE_KERNEL, kernels[k].name, {0}};
    for (int i = 0; i < kernels[k].params; i++)
      memcpy(&n.a[i], params[i], kernels[k].size[i]);
    return submit(s, n);
  }
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* Events: records what ncore asks so tests can see a join of two streams
 * (fake_cuda_count("cuStreamWaitEvent")); streams complete at once, so an
 * event is complete as soon as it is recorded. */
static long long event_records, stream_event_waits, event_queries;
static CUstream last_event_stream, last_wait_stream;
FAKE_API long long fake_cuda_count(const char *what) {
  if (strcmp(what, "cuEventRecord") == 0) return event_records;
  if (strcmp(what, "cuStreamWaitEvent") == 0) return stream_event_waits;
  if (strcmp(what, "cuEventQuery") == 0) return event_queries;
  if (strcmp(what, "destroyed stream") == 0)
    return __atomic_load_n(&destroyed_stream_uses, __ATOMIC_RELAXED);
  if (strcmp(what, "cuMemcpyDtoHAsync") == 0)
    return __atomic_load_n(&device_to_host_copies, __ATOMIC_RELAXED);
  for (size_t k = 0; k < SMALL_KERNELS; k++)
    if (strncmp(what, "launch:", 7) == 0 && strcmp(what + 7, small_kernels[k]) == 0)
      return __atomic_load_n(&small_launches[k], __ATOMIC_RELAXED);
  if (strcmp(what, "launch.count") == 0) return small_last_count;
  if (strcmp(what, "cuEventRecord.stream") == 0) return (long long)(uintptr_t)last_event_stream;
  if (strcmp(what, "cuStreamWaitEvent.stream") == 0) return (long long)(uintptr_t)last_wait_stream;
  return -1;
}
/* An event: the capturing stream it was last recorded on, if any (CUDA
 * forbids querying such an event). */
FAKE_API CUresult cuEventCreate(CUevent *e, unsigned int flags) {
  (void)flags;
  *e = (CUevent)calloc(1, sizeof(fake_stream_t *));
  return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
FAKE_API CUresult cuEventRecord(CUevent e, CUstream s) {
  event_records++;
  last_event_stream = s;
  fake_stream_t *f = stream_of(s);
  *(fake_stream_t **)e = f != NULL && f->capture != NULL ? f : NULL;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventQuery(CUevent e) {
  event_queries++;
  fake_stream_t *f = *(fake_stream_t **)e;
  return f != NULL && f->capture != NULL ? forbidden_in_capture(f) : CUDA_SUCCESS;
}
FAKE_API CUresult cuEventDestroy_v2(CUevent e) {
  free(e);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
  (void)e;
  (void)flags;
  stream_event_waits++;
  last_wait_stream = s;
  (void)stream_of(s); /* counts a destroyed one */
  return CUDA_SUCCESS;
}
