/* core — ncore_library_info (ncore/info.h): the version, the backend AUTO
 * picks and why (core_backend_select_why, the same decision every call
 * makes), and what the backends know of themselves (their describe()). */
#include <stdio.h>

#include "backend.h"
#include "error.h"
#include "error_clear.h"
/* NCORE_NCCL_NEWEST_KNOWN: plain macros, the same whichever backend runs. */
#include "nccl/nccl_layouts.h"
#include "versioned.h"

NCORE_API ncore_status_t ncore_library_info(ncore_library_info_t *out) {
  CORE_ENTER("ncore_library_info");
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  uint32_t size = 0;
  ncore_status_t status = core_versioned_check_out(
      out, CORE_MIN_SIZE_LIBRARY_INFO, sizeof(ncore_library_info_t), "out",
      &size);
  if (status != NCORE_OK) return status;
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  info.abi_version = ncore_abi_version();
  snprintf(info.version, sizeof info.version, "%s", ncore_version_string());
  info.nccl_headers_version = NCORE_NCCL_NEWEST_KNOWN;
  const core_backend_ops_t *ops = NULL;
  if (core_backend_select_why(NCORE_BACKEND_AUTO, &ops, info.backend_reason,
                              sizeof info.backend_reason) == NCORE_OK) {
    info.backend = (int32_t)ops->kind;
    ops->describe(&info);
  } else {
    /* Resolving failed: the reason is the message it recorded. */
    snprintf(info.backend_reason, sizeof info.backend_reason, "%s",
             core_error_detail());
    info.backend = NCORE_BACKEND_AUTO;
  }
  /* A libnccl that loaded is reported whichever backend was picked. */
  if (ops != &core_nccl_backend && core_nccl_backend.probe() == NCORE_OK) {
    uint32_t features = info.features;
    core_nccl_backend.describe(&info);
    info.features = features;
  }
  core_error_clear(); /* whatever was unusable is described, not failed */
  core_versioned_write(out, size, &info, sizeof info);
  return NCORE_OK;
}
