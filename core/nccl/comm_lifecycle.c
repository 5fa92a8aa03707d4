/* core/nccl — finalize, abort, destroy, forget, synchronize
 * (comm_lifecycle.h).
 *
 * Abort protocol (thread safety). comm_abort_signal may run on any thread
 * while another thread is inside a call on the same communicator, so it must
 * free nothing: the core has set its state aborted (every later ncore call
 * on the comm answers NCORE_ERR_CLOSED, and ncore's own wait loops poll
 * it), and the backend, once, under abort_lock, calls ncclCommRevoke,
 * which stops NCCL's in-flight work and leaves the ncclComm_t valid. Only comm_destroy (no call running, by the
 * core's contract) calls ncclCommAbort (aborted) or ncclCommDestroy, which
 * free the ncclComm_t. So no NCCL object is ever freed under a running call. */
#include "comm_lifecycle.h"

#include <stdio.h>
#include <stdlib.h>

#include "../error.h"
#include "comm_registry.h"
#include "comm_setup.h"
#include "device.h"
#include "env.h"
#include "liveness.h"
#include "signals.h"
#include "stream.h"
#include "wait.h"
#include "window_alias.h"

ncore_status_t nccl_comm_finalize(core_backend_comm_t *comm) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  ncclResult_t r = nccl_fn.ncclCommFinalize(c->nccl);
  if (r == ncclInProgress || (r == ncclSuccess && c->nonblocking))
    return nccl_wait_ready(c->nccl, c, c->timeout_ms, "ncclCommFinalize");
  return nccl_check(r, "ncclCommFinalize", c->nccl);
}

void nccl_comm_abort_signal(core_backend_comm_t *comm) {
  nccl_comm_t *c = comm;
  /* The core marked c->state aborted: every later call, and ncore's own
   * wait loops, see it. */
  pthread_mutex_lock(&c->abort_lock);
  if (!c->nccl_aborted) {
    CUcontext previous = NULL;
    cu_fn.CtxGetCurrent(&previous);
    if (previous != c->ctx) cu_fn.CtxSetCurrent(c->ctx);
    /* Release stream waits on this rank's signal slots (cuStreamWaitValue64
     * or the spin kernel), which no revoke reaches, and tell the LSA peers
     * (liveness.c). Memory is freed only later, in comm_destroy. */
    nccl_signals_abandon(c);
    if (nccl_fn.ncclCommRevoke != NULL && c->stage == NCCL_STAGE_READY &&
        nccl_env_long("NCORE_NCCL_REVOKE_ON_ABORT", 1) != 0) {
      /* Stops in-flight NCCL operations; the ncclComm_t stays valid until
       * comm_destroy aborts it. Its result does not matter: we abort. */
      (void)nccl_fn.ncclCommRevoke(c->nccl, 0);
    }
    c->nccl_aborted = 1; /* from now on only ncclCommAbort may follow */
    if (previous != c->ctx) cu_fn.CtxSetCurrent(previous);
  }
  pthread_mutex_unlock(&c->abort_lock);
}

/* 1 when the communicator cannot be torn down politely: aborted, failed
 * (ncore's own timeout), NCCL reports an error (a dead peer: ncclCommDestroy
 * would wait for kernels that never end), or its setup never finished. */
static int needs_abort(nccl_comm_t *c, int aborted) {
  if (aborted || core_comm_state_aborted(c->state) || c->nccl_aborted ||
      core_comm_state_failed(c->state) != NCORE_OK ||
      c->stage != NCCL_STAGE_READY)
    return 1;
  ncclResult_t state = ncclSuccess;
  if (nccl_fn.ncclCommGetAsyncError(c->nccl, &state) != ncclSuccess) return 1;
  return state != ncclSuccess;
}

void nccl_comm_destroy(core_backend_comm_t *comm, int aborted) {
  nccl_comm_t *c = comm;
  if (c == NULL) return;
  cu_fn.CtxSetCurrent(c->ctx);
  aborted = needs_abort(c, aborted);
  pthread_mutex_lock(&c->abort_lock);
  /* A communicator that failed (a dead peer, a timeout) may leave a wait
   * for a signal that never comes on a stream: release it as abort does,
   * or the next synchronisation of the device hangs; peers read "aborted".
   * A polite destroy tells the peers this rank left, not died. */
  if (aborted && !c->nccl_aborted) nccl_signals_abandon(c);
  else if (!aborted) nccl_liveness_mark_left(c);
  pthread_mutex_unlock(&c->abort_lock);
  /* Pending helper work (the slots' memset, the state) must finish before
   * the memory it touches is freed. */
  if (c->helper_stream) (void)cu_fn.StreamSynchronize(c->helper_stream);
  if (aborted) {
    nccl_comm_discard(c);
    return;
  }
  /* Polite teardown: the signal window deregistration is local. */
  nccl_signals_release(c, 0);
  if (c->scratch) nccl_fn.ncclMemFree(c->scratch);
  if (c->lsa_nccl) (void)nccl_fn.ncclCommDestroy(c->lsa_nccl);
  /* Blocking; its result has nowhere to go (destroy cannot fail), and the
   * handle must not be touched after it, even if "in progress". */
  (void)nccl_fn.ncclCommDestroy(c->nccl);
  nccl_comm_free(c);
}

void nccl_comm_forget(core_backend_comm_t *comm) {
  nccl_comm_t *c = comm;
  /* Host memory only: the NCCL communicator, its streams and device memory
   * are the parent's, and CUDA does not work in a fork() child. */
  nccl_liveness_forget(c);
  nccl_comm_registry_remove(c);
  pthread_mutex_destroy(&c->abort_lock);
  pthread_mutex_destroy(&c->peer_work_lock);
  free(c->peer_work_streams);
  free(c->signals_sent);
  free(c->signals_consumed);
  nccl_window_alias_free(c);
  free(c);
}

/* Whether the communicator's work on a stream can still be trusted: NCCL's
 * kernels leave early once the communicator is aborted or has failed, and
 * the stream then completes as if they had finished (an allreduce with a
 * killed peer answered NCORE_OK on 4 GPUs). Asked while waiting
 * for the stream and once more after it completed. */
static ncore_status_t work_status(nccl_comm_t *c) {
  if (core_comm_state_aborted(c->state))
    return core_error(NCORE_ERR_CLOSED, "comm: aborted while waiting for "
                      "the stream");
  ncclResult_t state = ncclSuccess;
  ncore_status_t status = nccl_check(
      nccl_fn.ncclCommGetAsyncError(c->nccl, &state), "ncclCommGetAsyncError",
      c->nccl);
  if (status != NCORE_OK) return status;
  if (state == ncclSuccess || state == ncclInProgress) return NCORE_OK;
  return nccl_comm_fail(c, nccl_check(state, "an operation on the stream",
                                      c->nccl));
}

/* How long a synchronisation waits before it looks at its peers. */
#define LIVENESS_AFTER_MS 20

ncore_status_t nccl_comm_synchronize(core_backend_comm_t *comm,
                                     ncore_stream_t stream,
                                     int64_t timeout_ms) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status == NCORE_OK) status = nccl_stream_check_waitable(stream);
  if (status != NCORE_OK) return status;
  nccl_waiting_t waiting;
  nccl_waiting_start(&waiting);
  int64_t start = waiting.start_ms;
  char what[160];
  snprintf(what, sizeof what, "the work on stream %p of rank %d of %d (NCCL "
           "kernels wait for every peer of their collective or send/recv)",
           (void *)stream, c->rank, c->nranks);
  for (int round = 0;; round++) {
    CUresult q = cu_fn.StreamQuery((CUstream)stream);
    if (q == CUDA_SUCCESS) break;
    if (q != CUDA_ERROR_NOT_READY) return cu_check(q, "cuStreamQuery");
    status = work_status(c);
    if (status != NCORE_OK) return status;
    /* A wait that lasts may be for a peer that died or aborted, which
     * nothing else reports between GPUs of one machine. */
    int64_t now = nccl_now_ms();
    if (now - start >= LIVENESS_AFTER_MS) {
      status = nccl_liveness_check(c, now);
      if (status != NCORE_OK) return nccl_comm_fail(c, status);
    }
    if (timeout_ms >= 0 && now - start > timeout_ms) {
      return nccl_comm_fail(
          c, core_error(NCORE_ERR_TIMEOUT,
                        "comm: timed out: the work on the stream did not "
                        "complete within %lld ms (a peer that does not take "
                        "part, or a lost one); abort the communicator",
                        (long long)timeout_ms));
    }
    if ((round & 1023) == 0) nccl_waiting_note(&waiting, timeout_ms, what);
    nccl_backoff(round);
  }
  status = work_status(c);
  /* A peer's abort ends its kernels early, and they may complete this
   * rank's with what they held: a completed stream proves nothing then. */
  if (status == NCORE_OK) status = nccl_liveness_check_completed(c);
  if (status == NCORE_ERR_REMOTE) nccl_comm_fail(c, status);
  return status;
}
