/* core — a communicator's liveness (comm_state.h). */
#include "comm_state.h"

#include <stdio.h>

void core_comm_state_init(core_comm_state_t *state) {
  atomic_init(&state->aborted, 0);
  atomic_init(&state->failed, NCORE_OK);
  atomic_init(&state->recorded_ready, 0);
  atomic_init(&state->call_claimed, 0);
  atomic_init(&state->call_ready, 0);
  state->recorded_message[0] = '\0';
  state->call_message[0] = '\0';
}

int core_comm_state_fail(core_comm_state_t *state, ncore_status_t status,
                         const char *message) {
  if (status == NCORE_OK) return 0;
  int none = NCORE_OK;
  /* Whoever claims the status writes its message, then says it is there. */
  if (!atomic_compare_exchange_strong(&state->failed, &none, (int)status))
    return 0;
  snprintf(state->recorded_message, sizeof state->recorded_message, "%s",
           message != NULL ? message : "");
  atomic_store_explicit(&state->recorded_ready, 1, memory_order_release);
  return 1;
}

void core_comm_state_seal(core_comm_state_t *state, ncore_status_t status,
                          const char *message) {
  if (status == NCORE_OK) return;
  core_comm_state_fail(state, status, message);
  int unclaimed = 0;
  if (!atomic_compare_exchange_strong(&state->call_claimed, &unclaimed, 1))
    return;
  snprintf(state->call_message, sizeof state->call_message, "%s",
           message != NULL ? message : "");
  atomic_store_explicit(&state->call_ready, 1, memory_order_release);
}

/* The failure's status name, "" while there is none. */
static const char *status_name(const core_comm_state_t *state) {
  ncore_status_t failed = core_comm_state_failed(state);
  return failed == NCORE_OK ? "" : ncore_status_string(failed);
}

const char *core_comm_state_message(const core_comm_state_t *state) {
  if (atomic_load_explicit(&state->call_ready, memory_order_acquire))
    return state->call_message;
  return core_comm_state_recorded_message(state);
}

const char *core_comm_state_recorded_message(const core_comm_state_t *state) {
  if (atomic_load_explicit(&state->recorded_ready, memory_order_acquire))
    return state->recorded_message;
  return status_name(state);
}
