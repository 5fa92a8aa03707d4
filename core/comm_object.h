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

#include "backend.h"
#include "handles.h"

typedef struct core_resource core_resource_t;

typedef struct core_comm_object {
  core_object_t header; /* first: the table hands out core_object_t* */
  const core_backend_ops_t *ops;
  void *impl;
  core_comm_info_t info;  /* cached at creation */
  core_config_t config;   /* resolved; children of split inherit it */
  atomic_int finalized;
  atomic_int aborted;
  /* A non-blocking init, split or shrink still in progress: only
   * ncore_comm_async_error, the backend query, destroy and abort work until
   * the backend reports it ready (core_comm_settle_pending). */
  atomic_int pending;
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
  void *impl;               /* the backend's object */
  /* Per-type data, filled by the creating entry point. */
  void *ptr;                /* buffer / window: the user's memory */
  size_t size;              /* buffer / window / symmetric: bytes */
  uint32_t flags;           /* window */
  uintptr_t native;         /* buffer / window: backend's own handle */
  ncore_redop_t redop_value;/* custom operator */
  ncore_dtype_t dtype;      /* custom operator */
};

/* Makes a communicator object around a backend impl and publishes its
 * handle. pending: the backend is still creating it (NCORE_IN_PROGRESS).
 * On failure the backend impl is destroyed and the error recorded. */
ncore_status_t core_comm_publish(const core_backend_ops_t *ops, void *impl,
                                 const core_config_t *config, int pending,
                                 ncore_comm_t *out);

/* Acquires a communicator for a call: live handle, ready (a pending one is
 * settled first: INVALID_USAGE while it is still in progress, its error if
 * its creation failed), and, unless allow_finalized, not finalized
 * (INVALID_USAGE). Release with core_comm_release. */
ncore_status_t core_comm_acquire(ncore_comm_t comm, int allow_finalized,
                                 core_comm_object_t **out);

/* Like core_comm_acquire, but a pending communicator is acquired as it is
 * (for ncore_comm_async_error and the backend query). */
ncore_status_t core_comm_acquire_pending(ncore_comm_t comm,
                                         core_comm_object_t **out);

/* Records that the backend reported comm's asynchronous state `state`
 * (from comm_async_error): when a pending communicator became ready
 * (NCORE_OK), its cached info is read again and it stops being pending. */
void core_comm_note_async_state(core_comm_object_t *comm, ncore_status_t state);
/* Drops the reference core_comm_acquire took; NULL is a no-op. */
void core_comm_release(core_comm_object_t *comm);

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
 * (core_resource_publish); releases c either way. Returns the status. */
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

/* The same for a communicator query: out not NULL, comm acquired with
 * finalized allowed (queries stay valid after finalize) and, when
 * allow_pending, while the backend is still creating it
 * (core_comm_acquire_pending) for the queries that answer then too. */
ncore_status_t core_comm_query_begin(ncore_comm_t comm, int allow_pending,
                                     const void *out, core_comm_object_t **c);

/* Explicit, idempotent close of a resource handle (ncore_*_close). */
ncore_status_t core_resource_close(uint64_t handle, core_handle_type_t type,
                                   const char *argument);

/* 1 if handle is a live resource of type, else 0; records nothing. */
int core_resource_is_valid(uint64_t handle, core_handle_type_t type);

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
