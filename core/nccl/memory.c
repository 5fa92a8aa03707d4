/* core/nccl — memory for ncore_mem_alloc (memory.h). */
#include "memory.h"

#include "../error.h"
#include "allocations.h"
#include "device.h"

ncore_status_t nccl_mem_alloc(void **out, size_t size) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  /* ncclMemAlloc gives cuMem-backed memory that windows and NVLS accept. */
  status = nccl_check(nccl_fn.ncclMemAlloc(out, size), "ncclMemAlloc", NULL);
  if (status != NCORE_OK) return status;
  status = nccl_allocation_add(*out);
  if (status != NCORE_OK) {
    nccl_fn.ncclMemFree(*out);
    *out = NULL;
  }
  return status;
}

ncore_status_t nccl_mem_free(void *ptr) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  if (!nccl_allocation_remove(ptr))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "ptr: not allocated by ncore_mem_alloc (or already "
                      "freed)");
  /* Like cudaFree, wait for the device first: ncclMemFree unmaps at once
   * (cuMemUnmap does not wait), and a send or kernel still reading the
   * memory would then fault ("illegal memory access") in NCCL's stream. */
  status = nccl_context_ensure();
  if (status == NCORE_OK)
    status = cu_check(cu_fn.CtxSynchronize(), "cuCtxSynchronize");
  CUcontext ctx = NULL;
  if (status == NCORE_OK && cu_fn.CtxGetCurrent(&ctx) == CUDA_SUCCESS)
    nccl_retired_release(ctx); /* no stream work is left to read it */
  ncore_status_t freed = nccl_check(nccl_fn.ncclMemFree(ptr), "ncclMemFree",
                                    NULL);
  return status != NCORE_OK ? status : freed;
}
