/* core/nccl — groups (group.h). */
#include "group.h"

#include "../wait_watch.h"
#include "status.h"
#include "../thread_state.h"

/* Groups this thread is inside, and the contexts whose legacy streams must
 * wait for their per-thread streams once the group launched
 * (nccl_join_legacy_stream): a group's operations are enqueued only at
 * ncclGroupEnd. Their count is core_thread's nccl_group_join_count. */
#define MAX_GROUP_JOINS 16
static _Thread_local CUcontext group_joins[MAX_GROUP_JOINS];

/* Makes ctx's legacy stream wait for its per-thread default stream. */
static ncore_status_t join_now(CUcontext ctx) {
  CUcontext previous = NULL;
  ncore_status_t status = cu_check(cu_fn.CtxGetCurrent(&previous),
                                   "cuCtxGetCurrent");
  if (status == NCORE_OK && previous != ctx)
    status = cu_check(cu_fn.CtxSetCurrent(ctx), "cuCtxSetCurrent");
  CUevent done = NULL;
  if (status == NCORE_OK)
    status = cu_check(cu_fn.EventCreate(&done, CU_EVENT_DISABLE_TIMING),
                      "cuEventCreate");
  if (status == NCORE_OK)
    status = cu_check(cu_fn.EventRecord(done, CU_STREAM_PER_THREAD),
                      "cuEventRecord");
  if (status == NCORE_OK)
    status = cu_check(cu_fn.StreamWaitEvent(CU_STREAM_LEGACY, done, 0),
                      "cuStreamWaitEvent");
  if (done != NULL) (void)cu_fn.EventDestroy(done); /* freed once complete */
  if (previous != ctx) (void)cu_fn.CtxSetCurrent(previous);
  return status;
}


int nccl_stream_is_legacy(cudaStream_t s) {
  return s == NULL || s == (cudaStream_t)CU_STREAM_LEGACY;
}

ncore_status_t nccl_join_legacy_stream(CUcontext ctx) {
  if (core_thread.nccl_group_depth == 0) return join_now(ctx);
  for (int i = 0; i < core_thread.nccl_group_join_count; i++)
    if (group_joins[i] == ctx) return NCORE_OK;
  /* Past the table the implicit synchronisation of a blocking stream with
   * the legacy stream still orders later legacy work after it. */
  if (core_thread.nccl_group_join_count < MAX_GROUP_JOINS)
    group_joins[core_thread.nccl_group_join_count++] = ctx;
  return NCORE_OK;
}

ncore_status_t nccl_group_start(void) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  status = nccl_check(nccl_fn.ncclGroupStart(), "ncclGroupStart", NULL);
  if (status == NCORE_OK) core_thread.nccl_group_depth++;
  return status;
}

ncore_status_t nccl_group_end(void) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  /* The group's connections are made here (wait_watch.h); the ranks are
   * the group's communicators', unknown here. */
  core_wait_watch_t *watched =
      core_thread.nccl_group_depth == 1
          ? core_wait_watch_enter("NCCL's ncclGroupEnd", -1, -1, -1)
          : NULL;
  ncclResult_t r = nccl_fn.ncclGroupEnd();
  core_wait_watch_leave(watched);
  if (core_thread.nccl_group_depth > 0) core_thread.nccl_group_depth--;
  if (r == ncclInProgress) status = NCORE_IN_PROGRESS;
  else status = nccl_check(r, "ncclGroupEnd", NULL);
  if (core_thread.nccl_group_depth == 0) {
    for (int i = 0; i < core_thread.nccl_group_join_count; i++) {
      ncore_status_t joined = join_now(group_joins[i]);
      if (status == NCORE_OK) status = joined;
    }
    core_thread.nccl_group_join_count = 0;
  }
  return status;
}
