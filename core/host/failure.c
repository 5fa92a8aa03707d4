/* core/host — a communicator's asynchronous error. The first failure a rank
 * sees (a timeout, a mismatched collective or message, a dead or aborted
 * peer, a corrupt put) ends the communicator, as an asynchronous error ends
 * an NCCL communicator: it is recorded here for ncore_comm_async_error and,
 * unless every rank sees it for itself (a dead or aborted peer: each rank
 * then reports what it saw), published in the segment's failure word, so
 * that every rank's later calls fail at once with the same status — a rank
 * that arrives late at a collective others gave up on fails too, instead
 * of completing it alone. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "failure.h"

#include "../error.h"

/* Publishes status unless a failure is there already. (A collective step
 * is given up on in coll_state, by coll.c's coll_abandon; this word leaves
 * steps alone, so that peers still completing a committed step finish it.) */
static void publish(host_comm_t *c, ncore_status_t status) {
  uint64_t none = 0;
  atomic_compare_exchange_strong(&host_header(c)->failure, &none,
                                 host_state_failure(status, c->rank));
}

/* Records status in the communicator's state (first one wins: lock-free,
 * an abort's teardown may land puts while the owner thread waits), and
 * publishes it when asked. */
static void record(host_comm_t *c, ncore_status_t status, int publish_it,
                   const char *fmt, va_list args) {
  if (status == NCORE_OK) return;
  char message[CORE_COMM_STATE_MESSAGE];
  vsnprintf(message, sizeof message, fmt, args);
  int first = core_comm_state_fail(c->state, status, message);
  if (status == NCORE_ERR_CLOSED || atomic_load(&c->forked)) return;
  /* Our slot says what happened, before a failure word (or a given-up
   * collective step, coll.c) points peers at it. */
  if (first) {
    char *slot_message = host_rank_slot(c, c->rank)->failure_message;
    size_t room = sizeof host_rank_slot(c, c->rank)->failure_message;
    snprintf(slot_message, room, "%.*s", (int)room - 1, message);
  }
  if (publish_it) publish(c, status);
}

void host_comm_fail(host_comm_t *c, ncore_status_t status, const char *fmt,
                    ...) {
  va_list args;
  va_start(args, fmt);
  record(c, status, 1, fmt, args);
  va_end(args);
}

void host_comm_note(host_comm_t *c, ncore_status_t status, const char *fmt,
                    ...) {
  va_list args;
  va_start(args, fmt);
  record(c, status, 0, fmt, args);
  va_end(args);
}

void host_comm_fail_current(host_comm_t *c, ncore_status_t status) {
  /* A REMOTE the waits saw is a dead, aborted or failed peer: every rank
   * sees that for itself (what a rank alone sees, a corrupt structure,
   * is published where it is found). */
  if (status == NCORE_ERR_REMOTE)
    host_comm_note(c, status, "%s", ncore_last_error_message());
  else
    host_comm_fail(c, status, "%s", ncore_last_error_message());
}

void host_comm_peer_failure(host_comm_t *c, uint64_t failure, char *out,
                            size_t size) {
  int who = host_state_rank(failure);
  ncore_status_t status = host_state_status(failure);
  if (who < 0 || who >= c->nranks || who == c->rank) {
    snprintf(out, size, "peer %d failed (%s)", who, ncore_status_string(status));
    return;
  }
  /* The peer's own words, copied out of shared memory and terminated. */
  char said[sizeof host_rank_slot(c, who)->failure_message];
  memcpy(said, host_rank_slot(c, who)->failure_message, sizeof said);
  said[sizeof said - 1] = '\0';
  snprintf(out, size, "peer %d failed with %s (%s)", who,
           ncore_status_string(status), said[0] ? said : "no reason given");
}

const char *host_comm_failure_message(host_comm_t *c) {
  return core_comm_state_recorded_message(c->state);
}
