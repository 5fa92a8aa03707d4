/* core/nccl — waiting for NCCL and checking a communicator before a call:
 * the clock, the poll loop's backoff and its "still waiting" notes, the
 * wait for a non-blocking communicator to leave ncclInProgress (within the
 * timeout, watching the abort flag), and what an enqueue's result means. */
#ifndef NCORE_CORE_NCCL_WAIT_H
#define NCORE_CORE_NCCL_WAIT_H

#include <stdint.h>

#include "../log.h"
#include "comm.h"

/* Milliseconds of the monotonic clock. */
int64_t nccl_now_ms(void);
/* A wait that says what it waits on: under NCORE_DEBUG=INFO every 5 s, and
 * once, whatever NCORE_DEBUG says, after NCORE_WAIT_WARN_S (core/log.h). */
typedef struct nccl_waiting {
  int64_t start_ms, next_info_ms;
  core_wait_note_t note;
} nccl_waiting_t;
/* Starts w now, for the thread's running public call. */
void nccl_waiting_start(nccl_waiting_t *w);
/* One turn of the wait: the lines that are due. timeout_ms: the wait's
 * bound from its start (-1: none). what: what it waits on. */
void nccl_waiting_note(nccl_waiting_t *w, int64_t timeout_ms,
                       const char *what);
/* Waits a little between polls: spin first (fast completions stay fast),
 * then sleep a little, then longer, so long waits do not eat a core. */
void nccl_backoff(int round);
/* Waits until comm's state leaves ncclInProgress (within timeout_ms, -1
 * forever): its result, named what. c, when not NULL, is the communicator
 * comm belongs to: its abort flag ends the wait (CLOSED) and a timeout is
 * recorded as its failure. */
ncore_status_t nccl_wait_ready(ncclComm_t comm, nccl_comm_t *c,
                               int64_t timeout_ms, const char *what);
/* Like nccl_check, but an ncclInProgress result (non-blocking
 * communicator) is waited out first (its timeout, its abort flag). */
ncore_status_t nccl_settle(ncclResult_t r, nccl_comm_t *c, const char *what);
/* Records status (not NCORE_OK) as c's failure, with the thread's current
 * message, in the core's state (the first failure wins): later calls
 * answer it at once. Returns status. */
ncore_status_t nccl_comm_fail(nccl_comm_t *c, ncore_status_t status);
/* The error of a communicator that was aborted (NCORE_ERR_CLOSED) or
 * failed (its recorded failure), recorded. */
ncore_status_t nccl_comm_not_live(nccl_comm_t *c) __attribute__((cold));
/* After a call on c answered NCORE_IN_PROGRESS: waits, within c's
 * timeout, until NCCL is ready for the next one. */
ncore_status_t nccl_comm_settle_in_progress(nccl_comm_t *c);
/* NCORE_ERR_CLOSED when the communicator was aborted, its recorded failure
 * when it failed; after a call that answered NCORE_IN_PROGRESS, waits
 * until NCCL is ready for the next one. Inline: three loads on every
 * call, of lines the call reads anyway. */
static inline ncore_status_t nccl_comm_check_live(nccl_comm_t *c) {
  if (core_comm_state_aborted(c->state) ||
      core_comm_state_failed(c->state) != NCORE_OK)
    return nccl_comm_not_live(c);
  if (atomic_load_explicit(&c->in_progress, memory_order_relaxed))
    return nccl_comm_settle_in_progress(c);
  return NCORE_OK;
}
/* nccl_enqueued for a result that is not ncclSuccess. */
ncore_status_t nccl_enqueued_failed(nccl_comm_t *c, ncclResult_t r,
                                    const char *what);
/* The result of an enqueue on c: ncclInProgress (a non-blocking
 * communicator) is NCORE_IN_PROGRESS with a message saying what to do, and
 * makes the next call wait; anything else as nccl_check. */
static inline ncore_status_t nccl_enqueued(nccl_comm_t *c, ncclResult_t r,
                                           const char *what) {
  /* Success reads nothing of c: NCCL's enqueue evicted it. */
  return r == ncclSuccess ? NCORE_OK : nccl_enqueued_failed(c, r, what);
}

#endif
