/* core — a communicator's liveness: was it aborted, and what failure ended
 * it. One per communicator, in the core's object (comm_object.h), and the
 * only place that knows: the core hands it to the backend that creates the
 * communicator (core/backend.h), and the backend asks it and records the
 * failures it sees (a timeout, a dead or aborted peer, NCCL's asynchronous
 * error, a mismatch) in it, rather than keeping its own flags. Reading it
 * is one atomic load, cheap enough for every call.
 *
 * A failure has two messages: the one its recorder gave (the backend's own
 * words, at the moment it saw the failure, which the host backend also
 * publishes to its peers), and the message of the first call that
 * returned it, which the core sets when that call ends
 * (core_comm_state_seal) and shows to every later call: the same text on
 * every run, whatever the backend saw first in between. Each is written
 * once, so a reader never sees one half-written. */
#ifndef NCORE_CORE_COMM_STATE_H
#define NCORE_CORE_COMM_STATE_H

#include <stdatomic.h>
#include <ncore.h>

#define CORE_COMM_STATE_MESSAGE 400

typedef struct core_comm_state {
  /* ncore_comm_abort ran (set before the backend's comm_abort_signal), or
   * the backend tore the communicator down after a failed setup. */
  atomic_int aborted;
  /* The failure that ended the communicator, NCORE_OK while none. Set once
   * (the first failure wins), never cleared: later calls answer it. */
  atomic_int failed;
  /* The recorder's message (core_comm_state_fail) and the first failing
   * call's (core_comm_state_seal): claimed by one writer, ready once
   * written (release; read with acquire). */
  atomic_int recorded_ready;
  atomic_int call_claimed, call_ready;
  char recorded_message[CORE_COMM_STATE_MESSAGE];
  char call_message[CORE_COMM_STATE_MESSAGE];
} core_comm_state_t;

/* A live state: not aborted, not failed. */
void core_comm_state_init(core_comm_state_t *state);

/* 1 once the communicator was aborted. */
static inline int core_comm_state_aborted(const core_comm_state_t *state) {
  return atomic_load_explicit(&state->aborted, memory_order_relaxed);
}
/* Marks the communicator aborted. */
static inline void core_comm_state_abort(core_comm_state_t *state) {
  atomic_store(&state->aborted, 1);
}
/* The failure that ended the communicator, NCORE_OK while none. */
static inline ncore_status_t core_comm_state_failed(
    const core_comm_state_t *state) {
  return (ncore_status_t)atomic_load(&state->failed);
}

/* Records status (not NCORE_OK) as the communicator's failure, with the
 * recorder's message, unless a failure is recorded already: returns 1 when
 * this one is the first. Lock-free: any thread, any time (an abort's
 * teardown lands puts while the owner thread waits). */
int core_comm_state_fail(core_comm_state_t *state, ncore_status_t status,
                         const char *message);
/* The end of a call that returned status, a failure that ends the
 * communicator: records it as core_comm_state_fail does (unless one is
 * recorded) and, unless an earlier call did, makes message (the call's) the
 * one later calls are told. */
void core_comm_state_seal(core_comm_state_t *state, ncore_status_t status,
                          const char *message);
/* 1 once a call's message was set (core_comm_state_seal). */
static inline int core_comm_state_sealed(const core_comm_state_t *state) {
  return atomic_load_explicit(&state->call_claimed, memory_order_relaxed);
}
/* The failure's message as later calls are told it: the first failing
 * call's, else the recorder's, else its status's name ("" while none). */
const char *core_comm_state_message(const core_comm_state_t *state);
/* The recorder's own message (its status's name while none was given or
 * it is being written; "" while there is no failure). */
const char *core_comm_state_recorded_message(const core_comm_state_t *state);

#endif
