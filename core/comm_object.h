/* core — the communicator object and the communicator-owned resources
 * (registered buffers, windows, custom operators, device communicators,
 * symmetric allocations) as they live in the handle table.
 *
 * Lifetimes (docs/architecture.md, "Objects and lifetimes"):
 * - A communicator keeps a list of its open resources; destroy/abort closes
 *   each of them, so their handles answer NCORE_ERR_CLOSED at once.
 * - Each resource holds a reference to its communicator object, so the
 *   backend releases a resource (at its last reference) before the backend
 *   destroys the communicator (at the communicator's last reference).
 * - Every call holds a reference for its duration, so ncore_comm_abort on
 *   one thread never frees state under a call blocked on another. */
#ifndef NCORE_CORE_COMM_OBJECT_H
#define NCORE_CORE_COMM_OBJECT_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "backend.h"
#include "handles.h"

typedef struct core_resource core_resource_t;

typedef struct core_comm_object {
  core_object_t header; /* first: the table hands out core_object_t* */
  const core_backend_ops_t *ops;
  core_backend_comm_t *impl;
  core_comm_info_t info;  /* cached at creation */
  core_config_t config;   /* resolved; children of split inherit it */
  atomic_int finalized;
  /* A non-blocking init, split or shrink still in progress: only
   * ncore_comm_async_error, some queries, destroy and abort work until the
   * backend reports it ready (CORE_COMM_ALLOW_PENDING). */
  atomic_int pending;
  /* ncore_comm_revoke / ncore_comm_suspend (ncore/comm_control.h): refused
   * to communicating calls unless they allow it (CORE_COMM_ALLOW_*). */
  atomic_int revoked;
  atomic_int suspended;
  /* ncore_comm_get_unique_id made an id no grow has consumed yet: one at a
   * time (NCCL documents the rule and does not always enforce it). */
  atomic_int grow_id_outstanding;
  pid_t owner;            /* the process that created it (core/process.h) */
  /* Whether it was aborted, and the failure that ended it (a timeout, a
   * failed or dead peer, an asynchronous error the backend reports):
   * later calls answer that at once instead of waiting for peers that will
   * not come (NCCL's asynchronous error). The one place that knows: the
   * backend got a pointer to it when it made the communicator, and asks
   * and records here too (comm_state.h). */
  core_comm_state_t state;
  pthread_mutex_t lock;   /* guards everything below */
  int tearing_down;       /* set by destroy/abort: no new resources */
  core_resource_t *resources; /* open resources, most recent first */
  int32_t *closed_redops; /* values of custom operators closed explicitly */
  size_t closed_redop_count;
  size_t closed_redop_capacity;
} core_comm_object_t;

/* What a resource is; the handle type says it too, this names the union. */
struct core_resource {
  core_object_t header;
  core_comm_object_t *comm; /* referenced until this object is destroyed */
  core_resource_t *next, *prev;
  int linked;               /* on comm->resources (guarded by comm->lock) */
  union {                   /* the backend's object, by the handle's type */
    core_backend_buffer_t *buffer;
    core_backend_window_t *window;
    core_backend_redop_t *redop;
    core_backend_dev_comm_t *dev_comm;
    core_backend_symmetric_t *symmetric;
  } impl;
  /* Per-type data, filled by the creating entry point. */
  void *ptr;                /* buffer / window: the user's memory;
                               symmetric: this rank's part */
  size_t size;              /* buffer / window / symmetric: bytes */
  uint32_t flags;           /* window */
  uintptr_t native;         /* buffer / window: backend's own handle */
  ncore_redop_t redop_value;/* custom operator */
  ncore_dtype_t dtype;      /* custom operator */
};

/* A communicator object before its backend made the communicator: its
 * state (comm->state) is what the backend's creation gets. NULL (SYSTEM
 * recorded) when out of memory. Either published (core_comm_publish) or
 * freed (core_comm_unpublished_free). */
core_comm_object_t *core_comm_object_new(void);
/* Frees an object that was never published (its backend made nothing). */
void core_comm_unpublished_free(core_comm_object_t *comm);
/* Fills comm (from core_comm_object_new) with the communicator impl the
 * backend ops made on comm->state, and publishes its handle. pending: the
 * backend is still creating it (NCORE_IN_PROGRESS). On failure the
 * backend impl is destroyed, comm freed and the error recorded. */
ncore_status_t core_comm_publish(core_comm_object_t *comm,
                                 const core_backend_ops_t *ops,
                                 core_backend_comm_t *impl,
                                 const core_config_t *config, int pending,
                                 ncore_comm_t *out);

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
void core_comm_release(core_comm_object_t *comm);
/* Ends a call that dispatched to the backend: records status as the
 * communicator's failure when it ends the communicator (TIMEOUT, REMOTE,
 * or any status while the backend reports an asynchronous error), then
 * releases comm. Returns status. */
ncore_status_t core_comm_finish(core_comm_object_t *comm, ncore_status_t status);
/* The communicator's asynchronous error: its recorded failure, else the
 * backend's answer. */
ncore_status_t core_comm_async_error(core_comm_object_t *comm,
                                     ncore_status_t *out);

/* The communicator's properties in *out (a full-size struct): what the
 * core knows (rank, nranks, device; one LSA team) completed by the
 * backend's comm_properties. */
ncore_status_t core_comm_properties(core_comm_object_t *comm,
                                    ncore_comm_properties_t *out);

/* Destroy (aborted = 0) or abort (aborted = 1): idempotent closing of the
 * handle and every resource. Returns as ncore_comm_destroy. */
ncore_status_t core_comm_close(ncore_comm_t comm, int aborted);

/* Publishes a new resource of type for comm (acquired by the caller):
 * allocates the object, copies *fields (impl and the per-type data), takes a
 * reference on comm, links it on comm's list and inserts its handle. If the
 * communicator is closing or the table is full, the backend impl is released
 * and the error recorded. */
ncore_status_t core_resource_publish(core_comm_object_t *comm,
                                     core_handle_type_t type,
                                     const core_resource_t *fields,
                                     uint64_t *out);

/* Acquires a resource of type for a call and checks its communicator is
 * still open (CLOSED otherwise). On success the caller holds a reference to
 * the resource (which itself keeps res->comm alive); drop it with
 * core_resource_release. */
ncore_status_t core_resource_acquire(uint64_t handle, core_handle_type_t type,
                                     const char *argument,
                                     core_resource_t **out);
/* Drops a reference taken by core_resource_acquire or core_comm_resolve_op;
 * NULL is a no-op. */
void core_resource_release(core_resource_t *res);

/* The start of every entry point that creates a resource of comm: out must
 * not be NULL (then *out = NCORE_NULL_HANDLE, so a failure leaves no stale
 * value) and comm must be open and not finalized. On NCORE_OK the caller
 * holds *c; release it with core_comm_release. */
ncore_status_t core_resource_create_begin(uint64_t *out, ncore_comm_t comm,
                                          core_comm_object_t **c);

/* The end of every such entry point: when status (the checks' and the
 * backend's) is NCORE_OK, publishes *fields as a new resource of type
 * (core_resource_publish); ends the call either way (core_comm_finish:
 * a failure that ends the communicator is recorded). Returns the status. */
ncore_status_t core_resource_create_end(core_comm_object_t *c,
                                        ncore_status_t status,
                                        core_handle_type_t type,
                                        const core_resource_t *fields,
                                        uint64_t *out);

/* The start of every query: out must not be NULL ("out: must not be
 * NULL"), then the resource (of type, named argument in messages) is
 * acquired as by core_resource_acquire. */
ncore_status_t core_resource_query_begin(uint64_t handle,
                                         core_handle_type_t type,
                                         const char *argument, const void *out,
                                         core_resource_t **res);

/* The same for a communicator query: out not NULL, comm acquired as
 * CORE_COMM_QUERY (queries stay valid after finalize, after a failure and in
 * a fork() child) and, when allow_pending, while the backend is still
 * creating it (CORE_COMM_ALLOW_PENDING) for the queries that answer then. */
ncore_status_t core_comm_query_begin(ncore_comm_t comm, int allow_pending,
                                     const void *out, core_comm_object_t **c);

/* Explicit, idempotent close of a resource handle (ncore_*_close). */
ncore_status_t core_resource_close(uint64_t handle, core_handle_type_t type,
                                   const char *argument);

/* 1 if handle is a live resource of type, else 0; records nothing. */
int core_resource_is_valid(uint64_t handle, core_handle_type_t type);

/* 1 if a resource of type not yet released has ptr as its `ptr` field (a
 * symmetric allocation's local part), else 0. */
int core_resource_owns_pointer(core_handle_type_t type, const void *ptr);

/* Looks up op for a reduction on comm with dtype: built-ins 0..4 pass with
 * *custom = NULL; a custom operator of comm must be open and made for dtype,
 * and is returned acquired in *custom (release with core_resource_release).
 * Returns NCORE_OK; INVALID_ARGUMENT; CLOSED. */
ncore_status_t core_comm_resolve_op(core_comm_object_t *comm, ncore_redop_t op,
                                    ncore_dtype_t dtype,
                                    core_resource_t **custom);

/* Allocates the next custom-operator value (unique in the process, never
 * reused, so a stale value can never name a newer operator). */
ncore_redop_t core_next_redop_value(void);

#endif
