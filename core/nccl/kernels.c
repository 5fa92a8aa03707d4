/* core/nccl — loads the embedded fatbin (kernels/, every .cu) once per
 * context with cuModuleLoadData and launches its kernels by name. */
#include "kernels.h"

#include <pthread.h>

#include "../error.h"
#include "env.h"
#include "status.h"

/* Written by the build (BUILD: genrule kernels_fatbin, tools/embed_binary):
 * the nvcc fatbin of every kernels/ .cu file, 8-byte aligned as
 * cuModuleLoadData wants. */
extern const unsigned char core_kernels_fatbin[];
extern const size_t core_kernels_fatbin_size;

/* The name each kernel is defined by (kernel_names_gen.h). */
#define KERNEL_NAME(ENUM, name) [NCCL_KERNEL_##ENUM] = name,
static const char *const kernel_names[NCCL_KERNEL_COUNT] = {
    NCCL_KERNELS(KERNEL_NAME)};
#undef KERNEL_NAME

/* The kernels written for programmatic dependent launch (PDL): each waits
 * for the grid before it (griddepcontrol.wait) before it touches memory
 * that grid may write or ends, and lets the grid after it launch early.
 * The pointer queries are not: their results are read by the host. */
static const int kernel_takes_pdl[NCCL_KERNEL_COUNT] = {
    [NCCL_KERNEL_SIGNAL_ADD] = 1, [NCCL_KERNEL_PUT_SIGNAL] = 1,
    [NCCL_KERNEL_WAIT_GEQ] = 1,  [NCCL_KERNEL_ALLREDUCE_ONESHOT] = 1,
    [NCCL_KERNEL_ALLREDUCE_TWOSHOT] = 1, [NCCL_KERNEL_ALLREDUCE_ONESHOT_LL] = 1,
    [NCCL_KERNEL_ALLGATHER_LL] = 1,      [NCCL_KERNEL_REDUCE_SCATTER_LL] = 1,
};

/* Primary contexts are few (one per device); a small table suffices. */
#define MAX_CONTEXTS 64
typedef struct loaded_module {
  CUcontext ctx;
  CUmodule module;
  CUfunction fn[NCCL_KERNEL_COUNT];
} loaded_module_t;
static loaded_module_t modules[MAX_CONTEXTS];
static int module_count;
static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;

/* Finds or loads the module of the current context. */
static ncore_status_t current_module(loaded_module_t **out) {
  CUcontext ctx = NULL;
  ncore_status_t status = cu_check(cu_fn.CtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (status != NCORE_OK) return status;
  pthread_mutex_lock(&module_lock);
  for (int i = 0; i < module_count; i++) {
    if (modules[i].ctx == ctx) {
      *out = &modules[i];
      pthread_mutex_unlock(&module_lock);
      return NCORE_OK;
    }
  }
  if (module_count == MAX_CONTEXTS) {
    pthread_mutex_unlock(&module_lock);
    return core_error(NCORE_ERR_INTERNAL, "nccl backend: more than %d CUDA "
                      "contexts used", MAX_CONTEXTS);
  }
  loaded_module_t m = {ctx, NULL, {NULL}};
  status = cu_check(cu_fn.ModuleLoadData(&m.module, core_kernels_fatbin),
                    "cuModuleLoadData(ncore kernels)");
  for (int k = 0; status == NCORE_OK && k < NCCL_KERNEL_COUNT; k++)
    status = cu_check(cu_fn.ModuleGetFunction(&m.fn[k], m.module,
                                              kernel_names[k]),
                      "cuModuleGetFunction");
  if (status == NCORE_OK) {
    modules[module_count] = m;
    *out = &modules[module_count++];
  }
  pthread_mutex_unlock(&module_lock);
  return status;
}

ncore_status_t nccl_kernels_load(void) {
  loaded_module_t *m = NULL;
  return current_module(&m);
}

/* NCORE_NCCL_PDL (default 1): launch the one-sided kernels with
 * programmatic stream serialization, so a wait kernel's successor (the
 * put of a ping-pong) is resident when the wait ends instead of being
 * launched then: about a kernel launch less per hop (core/nccl/README.md). */
static int pdl_wanted(void) {
  static int wanted = -1;
  if (wanted < 0) wanted = nccl_env_long("NCORE_NCCL_PDL", 1) != 0;
  return wanted;
}

ncore_status_t nccl_kernel_launch(nccl_kernel_t kernel, unsigned grid,
                                  unsigned block, CUstream stream,
                                  void **params) {
  loaded_module_t *m = NULL;
  ncore_status_t status = current_module(&m);
  if (status != NCORE_OK) return status;
  if (kernel_takes_pdl[kernel] && cu_fn.LaunchKernelEx != NULL &&
      pdl_wanted()) {
    CUlaunchAttribute attr = {0};
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {0};
    config.gridDimX = grid;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = block;
    config.blockDimY = config.blockDimZ = 1;
    config.hStream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    CUresult r = cu_fn.LaunchKernelEx(&config, m->fn[kernel], params, NULL);
    /* A driver or device without PDL: the plain launch below. */
    if (r != CUDA_ERROR_NOT_SUPPORTED && r != CUDA_ERROR_INVALID_VALUE)
      return cu_check(r, kernel_names[kernel]);
  }
  return cu_check(cu_fn.LaunchKernel(m->fn[kernel], grid, 1, 1, block, 1, 1, 0,
                                     stream, params, NULL),
                  kernel_names[kernel]);
}
