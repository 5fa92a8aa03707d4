/* core/nccl — ncore's own work through peers' mappings (peer_work.h). */
#include "peer_work.h"

#include "../log.h"
#include "wait.h"

/* The default-stream handles name no stream object: an event recorded on
 * the legacy stream also follows every blocking stream's earlier work,
 * the per-thread default streams included. */
static CUstream canonical(CUstream s) {
  return s == NULL || s == CU_STREAM_PER_THREAD ? CU_STREAM_LEGACY : s;
}

void nccl_peer_work_note(nccl_comm_t *c, CUstream stream) {
  CUstream s = canonical(stream);
  int count = atomic_load_explicit(&c->peer_work_count, memory_order_acquire);
  for (int i = 0; i < count; i++)
    if (c->peer_work_streams[i] == s) return;
  pthread_mutex_lock(&c->peer_work_lock);
  count = atomic_load_explicit(&c->peer_work_count, memory_order_relaxed);
  int known = 0;
  for (int i = 0; i < count; i++) known |= c->peer_work_streams[i] == s;
  if (!known && count < NCCL_PEER_WORK_STREAMS) {
    c->peer_work_streams[count] = s;
    atomic_store_explicit(&c->peer_work_count, count + 1, memory_order_release);
  } else if (!known) {
    /* More streams than the table holds: the legacy stream covers the
     * blocking ones among the rest. */
    c->peer_work_streams[NCCL_PEER_WORK_STREAMS - 1] = CU_STREAM_LEGACY;
  }
  pthread_mutex_unlock(&c->peer_work_lock);
}

/* Waits for everything stream held when this was called; 0 once complete,
 * -1 when the stream is gone (skipped) or the wait timed out. */
static int wait_stream(nccl_comm_t *c, CUstream s, int64_t start) {
  CUevent done = NULL;
  if (cu_fn.EventCreate(&done, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return -1;
  int result = -1;
  if (cu_fn.EventRecord(done, s) == CUDA_SUCCESS) {
    for (int round = 0;; round++) {
      CUresult q = cu_fn.EventQuery(done);
      if (q == CUDA_SUCCESS) { result = 0; break; }
      if (q != CUDA_ERROR_NOT_READY) break;
      if (c->timeout_ms >= 0 && nccl_now_ms() - start > c->timeout_ms) {
        core_log(CORE_LOG_WARN, "rank %d: ncore's puts and signals on stream "
                 "%p did not complete within %lld ms; their windows are "
                 "released anyway", c->rank, (void *)s,
                 (long long)c->timeout_ms);
        break;
      }
      nccl_backoff(round);
    }
  }
  (void)cu_fn.EventDestroy(done);
  return result;
}

void nccl_peer_work_drain(nccl_comm_t *c) {
  pthread_mutex_lock(&c->peer_work_lock);
  int count = atomic_load_explicit(&c->peer_work_count, memory_order_relaxed);
  if (count > 0) {
    CUcontext previous = NULL;
    cu_fn.CtxGetCurrent(&previous);
    if (previous != c->ctx) cu_fn.CtxSetCurrent(c->ctx);
    int64_t start = nccl_now_ms();
    for (int i = 0; i < count; i++) (void)wait_stream(c, c->peer_work_streams[i], start);
    atomic_store_explicit(&c->peer_work_count, 0, memory_order_release);
    if (previous != c->ctx) cu_fn.CtxSetCurrent(previous);
  }
  pthread_mutex_unlock(&c->peer_work_lock);
}
