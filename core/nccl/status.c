/* core/nccl — turns ncclResult_t and CUresult failures into ncore statuses
 * with a message naming the failing function and NCCL's / CUDA's own text. */
#include <stdio.h>

#include "../error.h"
#include "nccl_lib.h"

ncore_status_t nccl_check(ncclResult_t result, const char *function,
                          ncclComm_t comm) {
  if (result == ncclSuccess) return NCORE_OK;
  /* ncclResult_t 1..7 have the same values as the ncore statuses
   * (errors.h says so); anything newer is reported as internal. */
  ncore_status_t status = (result >= ncclUnhandledCudaError &&
                           result <= ncclInProgress)
                              ? (ncore_status_t)result
                              : NCORE_ERR_INTERNAL;
  if (result == ncclInProgress) return NCORE_IN_PROGRESS;
  const char *text = nccl_fn.ncclGetErrorString(result);
  const char *last = nccl_fn.ncclGetLastError(comm);
  return core_error(status, "%s failed: %s%s%s", function, text ? text : "?",
                    last && *last ? " (" : "", last && *last ? last : "");
}

ncore_status_t cu_check(CUresult result, const char *function) {
  if (result == CUDA_SUCCESS) return NCORE_OK;
  const char *name = "?", *text = "?";
  cu_fn.GetErrorName(result, &name);
  cu_fn.GetErrorString(result, &text);
  return core_error(NCORE_ERR_UNHANDLED_CUDA, "%s failed: %s (%s)", function,
                    name ? name : "?", text ? text : "?");
}
