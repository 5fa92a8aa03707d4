/* core — a call's hold on a communicator: acquiring it fit for the call,
 * settling a non-blocking creation, and recording the failure that ends
 * it when the call ends (core/comm_call.h). */
#include "comm_call.h"
#include "error.h"
#include "error_clear.h"
#include "process.h"

ncore_status_t core_comm_refuse(const core_comm_object_t *c,
                                core_comm_unfit_t unfit) {
  switch (unfit) {
    case CORE_COMM_UNFIT_FORKED:
      return core_error(NCORE_ERR_INVALID_USAGE,
                        "comm: the communicator belongs to process %d; this "
                        "process inherited it through fork() and may only "
                        "destroy it", (int)c->owner);
    case CORE_COMM_UNFIT_FINALIZED:
      return core_error(NCORE_ERR_INVALID_USAGE,
                        "comm: the communicator was finalized; only queries "
                        "and ncore_comm_destroy are allowed");
    case CORE_COMM_UNFIT_REVOKED:
      return core_error(NCORE_ERR_INVALID_USAGE,
                        "comm: the communicator was revoked "
                        "(ncore_comm_revoke); only queries, ncore_comm_split, "
                        "ncore_comm_shrink, ncore_comm_synchronize, "
                        "ncore_comm_abort and ncore_comm_destroy remain");
    case CORE_COMM_UNFIT_SUSPENDED:
      return core_error(NCORE_ERR_INVALID_USAGE,
                        "comm: the communicator is suspended "
                        "(ncore_comm_suspend); call ncore_comm_resume first");
    case CORE_COMM_UNFIT_FAILED:
      break;
  }
  return core_error(
      core_comm_state_failed(&c->state),
      "comm: the communicator failed earlier (%s); only queries, "
      "ncore_comm_shrink, ncore_comm_abort and ncore_comm_destroy remain",
      core_comm_state_message(&c->state));
}

/* Records the backend's asynchronous state of a pending communicator:
 * once ready (NCORE_OK), its cached info is read again and it stops being
 * pending. */
static void note_async_state(core_comm_object_t *comm, ncore_status_t state) {
  if (state != NCORE_OK || !atomic_load(&comm->pending)) return;
  pthread_mutex_lock(&comm->lock);
  if (atomic_load(&comm->pending)) {
    comm->ops->comm_info(comm->impl, &comm->info);
    atomic_store(&comm->pending, 0);
  }
  pthread_mutex_unlock(&comm->lock);
}

ncore_status_t core_comm_settle_pending(core_comm_object_t *c) {
  ncore_status_t state = NCORE_IN_PROGRESS;
  ncore_status_t status = c->ops->comm_async_error(c->impl, &state);
  if (status != NCORE_OK) return status;
  note_async_state(c, state);
  if (state == NCORE_OK) return NCORE_OK;
  if (state == NCORE_IN_PROGRESS)
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "comm: the communicator is still initialising "
                      "(non-blocking); poll ncore_comm_async_error until it "
                      "returns NCORE_OK");
  return core_error(state, "comm: the communicator's creation failed (%s)",
                    ncore_status_string(state));
}

/* Records failed as the failure that ended the communicator, with the
 * failing call's message (the thread's current one): the first failing
 * call's message is what later calls are told (comm_state.h). */
static void record_failure(core_comm_object_t *c, ncore_status_t failed) {
  core_comm_state_seal(&c->state, failed, ncore_last_error_message());
}

/* An asynchronous error status: the communicator cannot go on. */
static int is_async_failure(ncore_status_t status) {
  return status != NCORE_OK && status != NCORE_IN_PROGRESS;
}

void core_comm_note_failure(core_comm_object_t *c, ncore_status_t status) {
  if (!core_comm_state_sealed(&c->state)) {
    if (status == NCORE_ERR_TIMEOUT || status == NCORE_ERR_REMOTE) {
      record_failure(c, status);
    } else if (status != NCORE_ERR_INVALID_ARGUMENT &&
               status != NCORE_ERR_CLOSED) {
      /* Anything else ends the communicator only if the backend says so
       * (a mismatched collective); asking must not replace the message. */
      core_error_saved_t saved;
      core_error_save(&saved);
      ncore_status_t async = NCORE_OK;
      if (c->ops->comm_async_error(c->impl, &async) != NCORE_OK) async = NCORE_OK;
      core_error_restore(&saved);
      if (is_async_failure(async)) record_failure(c, async);
    }
  }
}

ncore_status_t core_comm_async_error(core_comm_object_t *c,
                                     ncore_status_t *out) {
  ncore_status_t failed = core_comm_state_failed(&c->state);
  if (failed != NCORE_OK) {
    *out = failed;
    return NCORE_OK;
  }
  /* A forked child's copy must not ask the parent's backend state. */
  if (c->owner != core_process_id()) {
    *out = NCORE_OK;
    return NCORE_OK;
  }
  ncore_status_t status = c->ops->comm_async_error(c->impl, out);
  if (status == NCORE_OK) note_async_state(c, *out);
  return status;
}

ncore_status_t core_comm_query_begin(ncore_comm_t comm, int allow_pending,
                                     const void *out, core_comm_object_t **c) {
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  return core_comm_acquire(
      comm, CORE_COMM_QUERY | (allow_pending ? CORE_COMM_ALLOW_PENDING : 0u), c);
}
