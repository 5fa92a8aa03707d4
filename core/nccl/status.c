/* core/nccl — turns ncclResult_t and CUresult failures into ncore statuses
 * with a message naming the failing function and NCCL's / CUDA's own text. */
#include "status.h"

#include <stdio.h>

#include "../error.h"

/* ncclTimeout (NCCL 2.30.3+; not in the 2.28.9 header ncore builds
 * against). */
#define NCCL_RESULT_TIMEOUT 8

ncore_status_t nccl_status_of(ncclResult_t result) {
  /* ncclResult_t 1..7 have the same values as the ncore statuses
   * (errors.h says so); anything newer ncore does not know is internal. */
  if (result >= ncclSuccess && result <= ncclInProgress)
    return (ncore_status_t)result;
  if ((int)result == NCCL_RESULT_TIMEOUT) return NCORE_ERR_TIMEOUT;
  return NCORE_ERR_INTERNAL;
}

ncore_status_t nccl_check(ncclResult_t result, const char *function,
                          ncclComm_t comm) {
  if (result == ncclSuccess) return NCORE_OK;
  ncore_status_t status = nccl_status_of(result);
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
