/* core/nccl — NCCL 2.30's parameter API, for ncore/params.h. */
#ifndef NCORE_CORE_NCCL_PARAMS_H
#define NCORE_CORE_NCCL_PARAMS_H

#include "../backend.h"

/* ---- backend operations (core/backend.h: param_get, param_keys) ---- */
ncore_status_t nccl_param_get(const char *key, const char **value, size_t *length);
ncore_status_t nccl_param_keys(const char *const **keys, int *count);

#endif
