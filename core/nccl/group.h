/* core/nccl — groups (ncclGroupStart / ncclGroupEnd), and the joins of
 * the legacy default stream that collectives moved off it wait for until
 * the group launched. */
#ifndef NCORE_CORE_NCCL_GROUP_H
#define NCORE_CORE_NCCL_GROUP_H

#include "../thread_state.h"
#include "nccl_lib.h"

/* 1 for the legacy default stream (NULL or CU_STREAM_LEGACY). */
int nccl_stream_is_legacy(cudaStream_t s);
/* Makes the legacy default stream of ctx wait for the calling thread's
 * per-thread default stream: at once, or inside a group at its end. */
ncore_status_t nccl_join_legacy_stream(CUcontext ctx);

/* 1 while this thread is inside a group (calls are queued in NCCL's). */
static inline int nccl_in_group(void) {
  return core_thread.nccl_group_depth > 0;
}

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_group_start(void);
ncore_status_t nccl_group_end(void);

#endif
