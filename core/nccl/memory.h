/* core/nccl — ncore_mem_alloc / ncore_mem_free: ncclMemAlloc memory,
 * which windows and NVLS accept. */
#ifndef NCORE_CORE_NCCL_MEMORY_H
#define NCORE_CORE_NCCL_MEMORY_H

#include <stddef.h>

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_mem_alloc(void **out, size_t size);
ncore_status_t nccl_mem_free(void *ptr);

#endif
