/* core — a call's hold on a communicator: acquired for the call's
 * duration (a live handle, fit for what the call does), released at its
 * end, where a failure that ends the communicator is recorded so later
 * calls answer it at once. */
#ifndef NCORE_CORE_COMM_CALL_H
#define NCORE_CORE_COMM_CALL_H

#include "comm_object_types.h"
#include "comm_state.h"
#include "process.h"

/* What a call may do with a communicator that is not fit to communicate
 * (core_comm_acquire's flags; 0 = a communicating call: none of these). */
#define CORE_COMM_ALLOW_FINALIZED 1u /* finalized (INVALID_USAGE otherwise) */
#define CORE_COMM_ALLOW_FAILED 2u    /* failed (its failure otherwise) */
#define CORE_COMM_ALLOW_FORKED 4u    /* a fork() child's copy (INVALID_USAGE) */
/* still being created by a non-blocking call: acquired as it is (otherwise
 * it is settled first: INVALID_USAGE while in progress, its error if its
 * creation failed) */
#define CORE_COMM_ALLOW_PENDING 8u
#define CORE_COMM_ALLOW_REVOKED 16u   /* revoked (INVALID_USAGE otherwise) */
#define CORE_COMM_ALLOW_SUSPENDED 32u /* suspended (INVALID_USAGE otherwise) */
/* Queries read what was cached at creation: always allowed once created. */
#define CORE_COMM_QUERY                                                 \
  (CORE_COMM_ALLOW_FINALIZED | CORE_COMM_ALLOW_FAILED |                 \
   CORE_COMM_ALLOW_FORKED | CORE_COMM_ALLOW_REVOKED |                   \
   CORE_COMM_ALLOW_SUSPENDED)

/* Why a communicator is not fit for a call (core_comm_refuse's argument). */
typedef enum core_comm_unfit {
  CORE_COMM_UNFIT_FORKED,
  CORE_COMM_UNFIT_FINALIZED,
  CORE_COMM_UNFIT_REVOKED,
  CORE_COMM_UNFIT_SUSPENDED,
  CORE_COMM_UNFIT_FAILED
} core_comm_unfit_t;

/* Records why c is not fit (the message names what is still allowed) and
 * returns its status: INVALID_USAGE, or the failure that ended it. */
ncore_status_t core_comm_refuse(const core_comm_object_t *c,
                                core_comm_unfit_t unfit) __attribute__((cold));

/* A pending communicator (c->pending) is usable once the backend says it
 * is ready: NCORE_OK then; INVALID_USAGE while it is being created; its
 * creation's failure. */
ncore_status_t core_comm_settle_pending(core_comm_object_t *c);

/* core_comm_usable, with whether this process owns c (not a fork() child's
 * copy) already known: a call reads the process id once. Inline, so that
 * a call's constant flags leave only the loads it needs. */
static inline ncore_status_t core_comm_usable_as(core_comm_object_t *c,
                                                 unsigned flags, int own) {
  if (!(flags & CORE_COMM_ALLOW_FORKED) && !own)
    return core_comm_refuse(c, CORE_COMM_UNFIT_FORKED);
  if (!(flags & CORE_COMM_ALLOW_FINALIZED) && atomic_load(&c->finalized))
    return core_comm_refuse(c, CORE_COMM_UNFIT_FINALIZED);
  if (!(flags & CORE_COMM_ALLOW_REVOKED) && atomic_load(&c->revoked))
    return core_comm_refuse(c, CORE_COMM_UNFIT_REVOKED);
  if (!(flags & CORE_COMM_ALLOW_SUSPENDED) && atomic_load(&c->suspended))
    return core_comm_refuse(c, CORE_COMM_UNFIT_SUSPENDED);
  if (!(flags & CORE_COMM_ALLOW_FAILED) &&
      core_comm_state_failed(&c->state) != NCORE_OK)
    return core_comm_refuse(c, CORE_COMM_UNFIT_FAILED);
  return NCORE_OK;
}

/* Checks an acquired communicator as core_comm_acquire does: INVALID_USAGE
 * in a fork() child or when finalized; its recorded failure when failed. */
static inline ncore_status_t core_comm_usable(core_comm_object_t *comm,
                                              unsigned flags) {
  return core_comm_usable_as(comm, flags, comm->owner == core_process_id());
}

/* Acquires a communicator for a call: a live handle, fit for what flags do
 * not allow (core_comm_usable). Release with core_comm_release or
 * core_comm_finish. Always inlined: no frame of its own on a call's path. */
static inline __attribute__((always_inline)) ncore_status_t core_comm_acquire(ncore_comm_t comm,
                                               unsigned flags,
                                               core_comm_object_t **out) {
  core_object_t *obj = NULL;
  ncore_status_t status =
      core_handle_acquire(comm, CORE_HANDLE_COMM, "comm", &obj);
  if (status != NCORE_OK) return status;
  core_comm_object_t *c = (core_comm_object_t *)obj;
  int own = c->owner == core_process_id();
  if (!(flags & CORE_COMM_ALLOW_PENDING) && own && atomic_load(&c->pending))
    status = core_comm_settle_pending(c);
  if (status == NCORE_OK) status = core_comm_usable_as(c, flags, own);
  if (status != NCORE_OK) {
    core_handle_release(obj);
    return status;
  }
  *out = c;
  return NCORE_OK;
}
/* Drops the reference core_comm_acquire took; NULL is a no-op. */
static inline void core_comm_release(core_comm_object_t *comm) {
  if (comm != NULL) core_handle_release(&comm->header);
}
/* core_comm_finish's part for a failed call: records the failure where it
 * ends the communicator. */
void core_comm_note_failure(core_comm_object_t *comm, ncore_status_t status);
/* Ends a call that dispatched to the backend: records status as the
 * communicator's failure when it ends the communicator (TIMEOUT, REMOTE,
 * or any status while the backend reports an asynchronous error), then
 * releases comm. Returns status. */
static inline ncore_status_t core_comm_finish(core_comm_object_t *comm,
                                              ncore_status_t status) {
  if (comm == NULL) return status;
  if (status != NCORE_OK && status != NCORE_IN_PROGRESS)
    core_comm_note_failure(comm, status);
  core_comm_release(comm);
  return status;
}
/* The communicator's asynchronous error: its recorded failure, else the
 * backend's answer. */
ncore_status_t core_comm_async_error(core_comm_object_t *comm,
                                     ncore_status_t *out);

/* The start of every communicator query: out not NULL ("out: must not be
 * NULL"), comm acquired as CORE_COMM_QUERY (queries stay valid after
 * finalize, after a failure and in a fork() child) and, when
 * allow_pending, while the backend is still creating it
 * (CORE_COMM_ALLOW_PENDING) for the queries that answer then. */
ncore_status_t core_comm_query_begin(ncore_comm_t comm, int allow_pending,
                                     const void *out, core_comm_object_t **c);

#endif
