/* core/nccl — NCCL's parameters through its 2.30 parameter API
 * (ncclParamGetParameter, ncclParamGetAllParameterKeys of nccl.h 2.30.7);
 * an older NCCL answers NOT_SUPPORTED, and the core serves the environment. */
#include "params.h"

#include <string.h>

#include "../error.h"
#include "nccl_lib.h"

#define PARAM_API_SINCE NCORE_NCCL_VERSION(2, 30, 0)

ncore_status_t nccl_param_get(const char *key, const char **value, size_t *length) {
  ncore_status_t status = nccl_require((const void *)nccl_fn.ncclParamGetParameter,
                                       PARAM_API_SINCE, "ncclParamGetParameter");
  if (status != NCORE_OK) return status;
  const char *text = NULL;
  int size = -1;
  ncclResult_t result = nccl_fn.ncclParamGetParameter(key, &text, &size);
  if (result == ncclInvalidArgument || (result == ncclSuccess && text == NULL))
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "key: no parameter %s in NCCL %d", key,
                      nccl_runtime_version());
  if (result != ncclSuccess)
    return core_error(NCORE_ERR_INTERNAL, "ncclParamGetParameter(%s): %s", key,
                      nccl_fn.ncclGetErrorString(result));
  *value = text;
  *length = size >= 0 ? (size_t)size : strlen(text);
  return NCORE_OK;
}

ncore_status_t nccl_param_keys(const char *const **keys, int *count) {
  ncore_status_t status = nccl_require((const void *)nccl_fn.ncclParamGetAllParameterKeys,
                                       PARAM_API_SINCE, "ncclParamGetAllParameterKeys");
  if (status != NCORE_OK) return status;
  const char **table = NULL;
  int size = 0;
  ncclResult_t result = nccl_fn.ncclParamGetAllParameterKeys(&table, &size);
  if (result != ncclSuccess)
    return core_error(NCORE_ERR_INTERNAL, "ncclParamGetAllParameterKeys: %s",
                      nccl_fn.ncclGetErrorString(result));
  if (size < 0 || (size > 0 && table == NULL))
    return core_error(NCORE_ERR_INTERNAL, "ncclParamGetAllParameterKeys: %d keys at %p", size,
                      (const void *)table);
  for (int i = 0; i < size; i++)
    if (table[i] == NULL)
      return core_error(NCORE_ERR_INTERNAL, "ncclParamGetAllParameterKeys: key %d is NULL", i);
  *keys = table;
  *count = size;
  return NCORE_OK;
}
