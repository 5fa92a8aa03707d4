/* core/nccl — waiting for NCCL, and the checks every call on a
 * communicator starts with (wait.h). */
#include "wait.h"

#include <time.h>

#include "../error.h"
#include "../log.h"

int64_t nccl_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void nccl_waiting_start(nccl_waiting_t *w) {
  w->start_ms = nccl_now_ms();
  w->next_info_ms = w->start_ms + 5000;
  core_wait_note_start_at(&w->note, core_error_call(), w->start_ms);
}

void nccl_waiting_note(nccl_waiting_t *w, int64_t timeout_ms,
                       const char *what) {
  int64_t now = nccl_now_ms();
  core_wait_note_check(&w->note, timeout_ms >= 0 ? w->start_ms + timeout_ms : -1,
                       "%s", what);
  if (now < w->next_info_ms) return;
  w->next_info_ms = now + 5000;
  core_log(CORE_LOG_INFO, "still waiting after %lld s for %s",
           (long long)((now - w->start_ms) / 1000), what);
}

void nccl_backoff(int round) {
  if (round < 200) return;
  struct timespec ts = {0, round < 2000 ? 20000 : 200000};
  nanosleep(&ts, NULL);
}

ncore_status_t nccl_wait_ready(ncclComm_t comm, nccl_comm_t *c,
                               int64_t timeout_ms, const char *what) {
  nccl_waiting_t waiting;
  nccl_waiting_start(&waiting);
  for (int round = 0;; round++) {
    ncclResult_t state = ncclSuccess;
    ncore_status_t status = nccl_check(
        nccl_fn.ncclCommGetAsyncError(comm, &state), "ncclCommGetAsyncError",
        comm);
    if (status != NCORE_OK) return status;
    if (state != ncclInProgress) return nccl_check(state, what, comm);
    if (c != NULL && core_comm_state_aborted(c->state))
      return core_error(NCORE_ERR_CLOSED, "comm: aborted while waiting for %s",
                        what);
    if (timeout_ms >= 0 && nccl_now_ms() - waiting.start_ms > timeout_ms) {
      status = core_error(NCORE_ERR_TIMEOUT, "comm: %s did not complete "
                          "within %lld ms", what, (long long)timeout_ms);
      return c != NULL ? nccl_comm_fail(c, status) : status;
    }
    if ((round & 1023) == 0) nccl_waiting_note(&waiting, timeout_ms, what);
    nccl_backoff(round);
  }
}

/* NCCL refuses every call on a non-blocking communicator whose state is
 * still ncclInProgress ("Attempt to use communicator before the previous
 * operation returned ncclSuccess"): the call after one that answered
 * NCORE_IN_PROGRESS waits for it, within the timeout, instead of failing. */
ncore_status_t nccl_comm_settle_in_progress(nccl_comm_t *c) {
  ncore_status_t status =
      nccl_wait_ready(c->nccl, c, c->timeout_ms,
                      "the previous call (in progress)");
  if (status == NCORE_OK) atomic_store(&c->in_progress, 0);
  else if (status != NCORE_ERR_CLOSED) nccl_comm_fail(c, status);
  return status;
}

ncore_status_t nccl_settle(ncclResult_t r, nccl_comm_t *c, const char *what) {
  /* A non-blocking NCCL communicator may answer ncclSuccess while the work
   * it queued still runs on NCCL's group thread (ncclCommWindowRegister
   * does), so its state is always waited for. */
  if (r != ncclSuccess && r != ncclInProgress) return nccl_check(r, what, c->nccl);
  if (r == ncclInProgress || c->nonblocking)
    return nccl_wait_ready(c->nccl, c, c->timeout_ms, what);
  return NCORE_OK;
}

ncore_status_t nccl_comm_fail(nccl_comm_t *c, ncore_status_t status) {
  core_comm_state_fail(c->state, status, ncore_last_error_message());
  return status;
}

ncore_status_t nccl_comm_not_live(nccl_comm_t *c) {
  if (core_comm_state_aborted(c->state))
    return core_error(NCORE_ERR_CLOSED, "comm: the communicator was aborted");
  ncore_status_t failed = core_comm_state_failed(c->state);
  return core_error(failed, "comm: the communicator failed earlier (%s); "
                    "abort it or shrink the failed ranks away",
                    ncore_status_string(failed));
}

ncore_status_t nccl_enqueued_failed(nccl_comm_t *c, ncclResult_t r,
                                    const char *what) {
  if (r != ncclInProgress) return nccl_check(r, what, c->nccl);
  atomic_store(&c->in_progress, 1);
  return core_error(NCORE_IN_PROGRESS, "%s: enqueued; NCCL is still "
                    "preparing it (a non-blocking communicator): the next "
                    "call on this communicator waits for that, or poll "
                    "ncore_comm_async_error until it is not "
                    "NCORE_IN_PROGRESS", what);
}
