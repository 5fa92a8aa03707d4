/* core/host — a communicator's asynchronous error. The first failure a rank
 * sees (a timeout, a mismatched collective or message, a dead or aborted
 * peer, a corrupt put) ends the communicator, as an asynchronous error ends
 * an NCCL communicator: it is recorded here for ncore_comm_async_error and
 * published in the segment's failure word, so that every rank's later calls
 * fail at once with the same status — a rank that arrives late at a
 * collective others gave up on fails too, instead of completing it alone. */
#include <stdarg.h>
#include <stdio.h>
#include "../error.h"
#include "host.h"

/* Publishes status unless a failure is there already. (A collective step
 * is given up on in coll_state, by host_coll_abandon; this word leaves
 * steps alone, so that peers still completing a committed step finish it.) */
static void publish(host_comm_t *c, ncore_status_t status) {
  uint64_t none = 0;
  atomic_compare_exchange_strong(&host_header(c)->failure, &none,
                                 host_state_failure(status, c->rank));
}

void host_comm_fail(host_comm_t *c, ncore_status_t status, const char *fmt,
                    ...) {
  if (status == NCORE_OK) return;
  int none = NCORE_OK;
  /* Whoever claims the status writes the message, then says it is there
   * (an abort's teardown may land puts while the owner thread waits). */
  if (atomic_compare_exchange_strong(&c->async_status, &none, (int)status)) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(c->async_message, sizeof c->async_message, fmt, args);
    va_end(args);
    atomic_store_explicit(&c->async_message_ready, 1, memory_order_release);
  }
  if (status != NCORE_ERR_CLOSED && !atomic_load(&c->forked)) publish(c, status);
}

void host_comm_fail_current(host_comm_t *c, ncore_status_t status) {
  host_comm_fail(c, status, "%s", ncore_last_error_message());
}

const char *host_comm_failure_message(host_comm_t *c) {
  if (atomic_load_explicit(&c->async_message_ready, memory_order_acquire))
    return c->async_message;
  return ncore_status_string((ncore_status_t)atomic_load(&c->async_status));
}
