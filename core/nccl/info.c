/* core/nccl — the NCCL backend's part of ncore_library_info: the loaded
 * libnccl (path, version), the devices, and which version-dependent calls
 * that libnccl serves, asked with nccl_require exactly as the calls ask. */
#include "info.h"

#include <stdio.h>

#include "../error_clear.h"
#include "nccl_lib.h"

/* The feature bits and what each needs (as comm_control.c and comm.c
 * require them when called). */
static uint32_t nccl_features(void) {
  const struct {
    uint32_t bit;
    const void *fn;
    int since;
  } needs[] = {
      /* ncore's own put/signal path needs windows; the native calls of
       * 2.29.2+ are taken where present (ncore/onesided.h). */
      {NCORE_FEATURE_ONE_SIDED, (const void *)nccl_fn.ncclCommWindowRegister,
       NCORE_NCCL_VERSION(2, 27, 0)},
      {NCORE_FEATURE_REVOKE, (const void *)nccl_fn.ncclCommRevoke,
       NCORE_NCCL_VERSION(2, 28, 7)},
      {NCORE_FEATURE_GROW, (const void *)nccl_fn.ncclCommGrow,
       NCORE_NCCL_VERSION(2, 29, 2)},
      {NCORE_FEATURE_GROW, (const void *)nccl_fn.ncclCommGetUniqueId,
       NCORE_NCCL_VERSION(2, 29, 2)},
      {NCORE_FEATURE_SUSPEND, (const void *)nccl_fn.ncclCommSuspend,
       NCORE_NCCL_VERSION(2, 29, 7)},
      {NCORE_FEATURE_SUSPEND, (const void *)nccl_fn.ncclCommResume,
       NCORE_NCCL_VERSION(2, 29, 7)},
      {NCORE_FEATURE_MEM_STAT, (const void *)nccl_fn.ncclCommMemStats,
       NCORE_NCCL_VERSION(2, 29, 7)},
      {NCORE_FEATURE_SCALABLE_INIT,
       (const void *)nccl_fn.ncclCommInitRankScalable,
       NCORE_NCCL_VERSION(2, 23, 0)},
  };
  uint32_t have = 0, missing = 0;
  for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++) {
    if (nccl_require(needs[i].fn, needs[i].since, "feature") == NCORE_OK)
      have |= needs[i].bit;
    else
      missing |= needs[i].bit;
  }
  core_error_clear(); /* a missing feature is a fact, not an error */
  return have & ~missing;
}

void nccl_describe(ncore_library_info_t *out) {
  out->features = nccl_features();
  out->nccl_version = nccl_runtime_version();
  snprintf(out->nccl_path, sizeof out->nccl_path, "%s", nccl_loaded_path());
  int count = 0;
  if (cu_fn.DeviceGetCount != NULL && cu_fn.DeviceGetCount(&count) == CUDA_SUCCESS)
    out->cuda_device_count = count;
}
