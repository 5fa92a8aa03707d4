/* core/nccl — what ncore_mem_alloc handed out, and ncore's own device
 * memory that stream work may still read after its owner went. */
#ifndef NCORE_CORE_NCCL_ALLOCATIONS_H
#define NCORE_CORE_NCCL_ALLOCATIONS_H

#include "nccl_lib.h"

/* Lists ptr (an ncore_mem_alloc allocation); SYSTEM when out of memory. */
ncore_status_t nccl_allocation_add(void *ptr);
/* 1 if ptr was listed (and is now removed), 0 if it never was. */
int nccl_allocation_remove(void *ptr);

/* Memory stream work may still read (a failed communicator's signal
 * slots): freed by nccl_retired_release once ctx was synchronised. */
void nccl_retire(void *ptr, CUcontext ctx);
/* Frees what was retired in ctx; call right after synchronising ctx. */
void nccl_retired_release(CUcontext ctx);

#endif
