/* core — a call's hold on a communicator: acquired for the call's
 * duration (a live handle, fit for what the call does), released at its
 * end, where a failure that ends the communicator is recorded so later
 * calls answer it at once. */
#ifndef NCORE_CORE_COMM_CALL_H
#define NCORE_CORE_COMM_CALL_H

#include "comm_object_types.h"

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

/* Acquires a communicator for a call: a live handle, fit for what flags do
 * not allow (core_comm_usable). Release with core_comm_release or
 * core_comm_finish. */
ncore_status_t core_comm_acquire(ncore_comm_t comm, unsigned flags,
                                 core_comm_object_t **out);
/* Checks an acquired communicator as core_comm_acquire does: INVALID_USAGE
 * in a fork() child or when finalized; its recorded failure when failed. */
ncore_status_t core_comm_usable(core_comm_object_t *comm, unsigned flags);
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
