/* core — the two objects the handle table holds for a communicator: the
 * communicator object and a communicator-owned resource (registered
 * buffer, window, custom operator, device communicator, symmetric
 * allocation). Their layouts only; what is done with them is in
 * comm_object.h (a communicator's life), comm_call.h (a call's hold on
 * one), resource_object.h (a resource's life) and redop_lookup.h (custom
 * operators by value).
 *
 * Lifetimes (docs/architecture.md, "Objects and lifetimes"):
 * - A communicator keeps a list of its open resources; destroy/abort closes
 *   each of them, so their handles answer NCORE_ERR_CLOSED at once.
 * - Each resource holds a reference to its communicator object, so the
 *   backend releases a resource (at its last reference) before the backend
 *   destroys the communicator (at the communicator's last reference).
 * - Every call holds a reference for its duration, so ncore_comm_abort on
 *   one thread never frees state under a call blocked on another. */
#ifndef NCORE_CORE_COMM_OBJECT_TYPES_H
#define NCORE_CORE_COMM_OBJECT_TYPES_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "backend.h"
#include "handles.h"

typedef struct core_resource core_resource_t;

typedef struct core_comm_object {
  /* Every communicating call reads what is here up to and including the
   * state's flags (comm_call.c, coll.c): they fill the object's first two
   * cache lines, which is all of it such a call touches (the object is
   * allocated 64-byte aligned). Keep the order. */
  _Alignas(64) core_object_t header; /* first: the table hands out core_object_t* */
  const core_backend_ops_t *ops;
  core_backend_comm_t *impl;
  core_comm_info_t info;  /* cached at creation */
  pid_t owner;            /* the process that created it (core/process.h) */
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
  /* Whether it was aborted, and the failure that ended it (a timeout, a
   * failed or dead peer, an asynchronous error the backend reports):
   * later calls answer that at once instead of waiting for peers that will
   * not come (NCCL's asynchronous error). The one place that knows: the
   * backend got a pointer to it when it made the communicator, and asks
   * and records here too (comm_state.h). Its flags come first. */
  core_comm_state_t state;
  core_config_t config;   /* resolved; children of split inherit it */
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
  /* device communicator: its team / resource requirements and the handles
   * NCCL returned for them (devcomm_requirements.h); owned, freed with the
   * backend object. */
  struct core_dev_comm_asks *dev_comm_asks;
};

#endif
