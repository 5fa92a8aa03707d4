/* core/nccl — ncore's own work through peers' mappings (peer_work.h). */
#include "peer_work.h"

#include <stdlib.h>

#include "../log.h"
#include "stream.h"
#include "wait.h"

/* The default-stream handles name no stream object: an event recorded on
 * the legacy stream also follows every blocking stream's earlier work,
 * the per-thread default streams included. */
static CUstream canonical(CUstream s) {
  return s == NULL || s == CU_STREAM_PER_THREAD ? CU_STREAM_LEGACY : s;
}

/* Adds s to the list (under the lock); 0, or -1 out of memory. */
static int list_add(nccl_comm_t *c, CUstream s) {
  for (int i = 0; i < c->peer_work_count; i++)
    if (c->peer_work_streams[i].stream == s) return 0;
  if (c->peer_work_count == c->peer_work_capacity) {
    int capacity = c->peer_work_capacity ? 2 * c->peer_work_capacity : 4;
    nccl_peer_work_t *grown =
        realloc(c->peer_work_streams, (size_t)capacity * sizeof *grown);
    if (grown == NULL) return -1;
    c->peer_work_streams = grown;
    c->peer_work_capacity = capacity;
  }
  c->peer_work_streams[c->peer_work_count++] = (nccl_peer_work_t){s, NULL};
  return 0;
}

void nccl_peer_work_note(nccl_comm_t *c, CUstream stream) {
  CUstream s = canonical(stream);
  /* Programs pass the same stream call after call: no lock then. */
  if (atomic_load_explicit(&c->peer_work_last, memory_order_acquire) == s)
    return;
  pthread_mutex_lock(&c->peer_work_lock);
  if (list_add(c, s) != 0) c->peer_work_lost = 1;
  atomic_store_explicit(&c->peer_work_last, s, memory_order_release);
  pthread_mutex_unlock(&c->peer_work_lock);
}

/* Waits until event `done` has happened, until the communicator's timeout
 * counted from start, saying so if it did not; destroys the event. */
static void wait_event(nccl_comm_t *c, CUevent done, CUstream s, int64_t start) {
  for (int round = 0;; round++) {
    CUresult q = cu_fn.EventQuery(done);
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
  (void)cu_fn.EventDestroy(done);
}

/* Waits for everything stream s held when this was called, until the
 * communicator's timeout counted from start; a stream being captured into a
 * CUDA graph, since an event recorded there marks nothing that runs now
 * and querying it would end the capture with an error: what a graph
 * launch puts through the window is the program's to wait for (README.md,
 * "CUDA graphs"). */
static void wait_stream(nccl_comm_t *c, CUstream s, int64_t start) {
  if (nccl_stream_capturing((ncore_stream_t)s)) {
    core_log(CORE_LOG_WARN, "rank %d: stream %p is being captured into a "
             "CUDA graph: ncore's puts and signals enqueued on it before "
             "are not waited for before their window goes", c->rank,
             (void *)s);
    return;
  }
  CUevent done = NULL;
  if (cu_fn.EventCreate(&done, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return;
  if (cu_fn.EventRecord(done, s) != CUDA_SUCCESS) {
    (void)cu_fn.EventDestroy(done);
    return;
  }
  wait_event(c, done, s, start);
}

void nccl_peer_work_drain(nccl_comm_t *c) {
  pthread_mutex_lock(&c->peer_work_lock);
  if (c->peer_work_count > 0 || c->peer_work_lost) {
    CUcontext previous = NULL;
    cu_fn.CtxGetCurrent(&previous);
    if (previous != c->ctx) cu_fn.CtxSetCurrent(c->ctx);
    int64_t start = nccl_now_ms();
    for (int i = 0; i < c->peer_work_count; i++) {
      nccl_peer_work_t *w = &c->peer_work_streams[i];
      if (w->gone != NULL) wait_event(c, w->gone, w->stream, start);
      else wait_stream(c, w->stream, start);
    }
    /* A stream that could not be listed: as ncore_mem_free, the context. */
    if (c->peer_work_lost) (void)cu_fn.CtxSynchronize();
    c->peer_work_count = 0;
    c->peer_work_lost = 0;
    atomic_store_explicit(&c->peer_work_last, NULL, memory_order_release);
    if (previous != c->ctx) cu_fn.CtxSetCurrent(previous);
  }
  pthread_mutex_unlock(&c->peer_work_lock);
}

void nccl_peer_work_stream_gone(nccl_comm_t *c, CUstream stream) {
  pthread_mutex_lock(&c->peer_work_lock);
  for (int i = 0; i < c->peer_work_count; i++) {
    nccl_peer_work_t *w = &c->peer_work_streams[i];
    if (w->stream != stream || w->gone != NULL) continue;
    /* The work stays queued after the stream goes (CUDA finishes it): an
     * event at its end is what the drain waits for instead. Where none can
     * be made, the context is (peer_work_lost). */
    if (cu_fn.EventCreate(&w->gone, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
      w->gone = NULL;
      c->peer_work_lost = 1;
    } else if (cu_fn.EventRecord(w->gone, stream) != CUDA_SUCCESS) {
      (void)cu_fn.EventDestroy(w->gone);
      w->gone = NULL;
      c->peer_work_lost = 1;
    }
    /* Nothing may name the handle from now on: a new stream may get it. */
    w->stream = NULL;
  }
  /* Drop entries left with neither (the context covers them). */
  int kept = 0;
  for (int i = 0; i < c->peer_work_count; i++)
    if (c->peer_work_streams[i].stream != NULL || c->peer_work_streams[i].gone != NULL)
      c->peer_work_streams[kept++] = c->peer_work_streams[i];
  c->peer_work_count = kept;
  if (atomic_load_explicit(&c->peer_work_last, memory_order_acquire) == stream)
    atomic_store_explicit(&c->peer_work_last, NULL, memory_order_release);
  pthread_mutex_unlock(&c->peer_work_lock);
}

void nccl_peer_work_free(nccl_comm_t *c) {
  for (int i = 0; i < c->peer_work_count; i++)
    if (c->peer_work_streams[i].gone != NULL)
      (void)cu_fn.EventDestroy(c->peer_work_streams[i].gone);
  free(c->peer_work_streams);
  c->peer_work_streams = NULL;
  c->peer_work_count = 0;
}
