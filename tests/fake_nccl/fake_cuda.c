/* tests/fake_nccl — a stand-in CUDA driver (libcuda.so.1) on host memory,
 * loaded through NCORE_CUDA_LIBRARY beside the stand-in libnccl, so the
 * NCCL backend's version dispatch runs on a machine without a GPU. One
 * device; streams are host objects and complete at once; copies are
 * memcpy; kernels cannot run (cuLaunchKernel answers NOT_SUPPORTED, so a
 * path that needs one shows up as an error, not as a silent success),
 * except ncore's small-message allreduce kernels, whose launches are only
 * counted (fake_cuda_count("launch:<name>")): tests check which path a call
 * takes, not what it computes. */
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

/* Context, stream and pointer queries made so far (what a communicating
 * call could make per call): tests assert the hot path makes none. */
static long long lookups;
FAKE_API long long fake_cuda_lookups(void) {
  return __atomic_load_n(&lookups, __ATOMIC_RELAXED);
}
#define LOOKUP() __atomic_add_fetch(&lookups, 1, __ATOMIC_RELAXED)

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
FAKE_API CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
FAKE_API CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
  (void)flags;
  unsigned long long *stream = malloc(16);
  if (stream == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  stream[0] = stream_magic;
  stream[1] = (unsigned long long)(uintptr_t)(current ? current : (CUcontext)&fake_context);
  *s = (CUstream)stream;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamDestroy_v2(CUstream s) {
  if (s != NULL) *(unsigned long long *)s = 0;
  free(s);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamSynchronize(CUstream s) { (void)s; return CUDA_SUCCESS; }
FAKE_API CUresult cuStreamQuery(CUstream s) { LOOKUP(); (void)s; return CUDA_SUCCESS; }
/* Every stream belongs to the one primary context; a pointer that is not a
 * live stream is an invalid handle (the real driver's answer). */
FAKE_API CUresult cuStreamGetCtx(CUstream s, CUcontext *c) {
  LOOKUP();
  if (*(const unsigned long long *)s != stream_magic)
    return CUDA_ERROR_INVALID_HANDLE;
  *c = (CUcontext)(uintptr_t)((const unsigned long long *)s)[1];
  return CUDA_SUCCESS;
}
static CUresult copy(CUdeviceptr dst, const void *src, size_t n) {
  memmove((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  (void)st;
  return copy(d, (const void *)(uintptr_t)s, n);
}
FAKE_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) {
  (void)st;
  return copy(d, s, n);
}
/* Copies from device memory to the host (fake_cuda_count): a test sees
 * whether ncore read a peer's state from its GPU. */
static long long device_to_host_copies;
FAKE_API CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) {
  (void)st;
  __atomic_add_fetch(&device_to_host_copies, 1, __ATOMIC_RELAXED);
  return copy((CUdeviceptr)(uintptr_t)d, (const void *)(uintptr_t)s, n);
}
FAKE_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  (void)st;
  return copy(d, (const void *)(uintptr_t)s, n);
}
FAKE_API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream st) {
  (void)st;
  memset((void *)(uintptr_t)d, v, n);
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamWriteValue64_v2(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned f) {
  (void)s;
  (void)f;
  *(cuuint64_t *)(uintptr_t)a = v;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuStreamWaitValue64_v2(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned f) {
  (void)s;
  (void)f;
  /* Streams complete at once: a wait that is not yet satisfied would hang
   * a real stream; here it is an error the test sees. */
  return *(cuuint64_t *)(uintptr_t)a >= v ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
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
static long long oneshot_launches, twoshot_launches;
FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shm,
                                 CUstream s, void **params, void **extra) {
  (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz;
  (void)shm; (void)s; (void)params; (void)extra;
  const char *name = (const char *)(uintptr_t)f;
  if (strcmp(name, "ncore_allreduce_oneshot") == 0) {
    __atomic_add_fetch(&oneshot_launches, 1, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
  }
  if (strcmp(name, "ncore_allreduce_twoshot") == 0) {
    __atomic_add_fetch(&twoshot_launches, 1, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
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
  if (strcmp(what, "cuMemcpyDtoHAsync") == 0)
    return __atomic_load_n(&device_to_host_copies, __ATOMIC_RELAXED);
  if (strcmp(what, "launch:ncore_allreduce_oneshot") == 0) return oneshot_launches;
  if (strcmp(what, "launch:ncore_allreduce_twoshot") == 0) return twoshot_launches;
  if (strcmp(what, "cuEventRecord.stream") == 0) return (long long)(uintptr_t)last_event_stream;
  if (strcmp(what, "cuStreamWaitEvent.stream") == 0) return (long long)(uintptr_t)last_wait_stream;
  return -1;
}
FAKE_API CUresult cuEventCreate(CUevent *e, unsigned int flags) {
  (void)flags;
  *e = (CUevent)malloc(8);
  return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
FAKE_API CUresult cuEventRecord(CUevent e, CUstream s) {
  (void)e;
  event_records++;
  last_event_stream = s;
  return CUDA_SUCCESS;
}
FAKE_API CUresult cuEventQuery(CUevent e) {
  (void)e;
  event_queries++;
  return CUDA_SUCCESS;
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
  return CUDA_SUCCESS;
}
