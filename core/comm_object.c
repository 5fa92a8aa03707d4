/* core — communicator and resource objects: publishing, acquiring for a
 * call, closing (idempotent), and the destructors that hand the backend
 * state back in the right order (core/comm_object.h). */
#include <stdlib.h>
#include <string.h>

#include "comm_object.h"
#include "dtype.h"
#include "error.h"
#include "error_clear.h"
#include "log.h"
#include "process.h"

/* ---- communicators ---- */

/* Runs at the communicator's last reference: every resource is gone (each
 * held a reference), and no call is running. */
static void comm_object_destroy(core_object_t *obj) {
  core_comm_object_t *comm = (core_comm_object_t *)obj;
  /* A fork() child's copy is not the rank: tearing the backend state down
   * would act on the parent's (NCCL's and CUDA's do not survive fork), so
   * the child only lets go of its own memory. */
  if (comm->owner != core_process_id())
    comm->ops->comm_forget(comm->impl);
  else
    comm->ops->comm_destroy(comm->impl,
                            core_comm_state_aborted(&comm->state));
  core_comm_unpublished_free(comm);
}

core_comm_object_t *core_comm_object_new(void) {
  core_comm_object_t *comm = calloc(1, sizeof *comm);
  if (comm == NULL) {
    core_error(NCORE_ERR_SYSTEM, "out of memory for a communicator");
    return NULL;
  }
  core_comm_state_init(&comm->state);
  pthread_mutex_init(&comm->lock, NULL);
  return comm;
}

void core_comm_unpublished_free(core_comm_object_t *comm) {
  if (comm == NULL) return;
  pthread_mutex_destroy(&comm->lock);
  free(comm->closed_redops);
  free(comm);
}

ncore_status_t core_comm_publish(core_comm_object_t *comm,
                                 const core_backend_ops_t *ops,
                                 core_backend_comm_t *impl,
                                 const core_config_t *config, int pending,
                                 ncore_comm_t *out) {
  comm->ops = ops;
  comm->impl = impl;
  comm->config = *config;
  /* net_name and comm_name are borrowed for the init call only: never keep
   * them, or a split inheriting this config would pass dangling pointers. */
  comm->config.user.net_name = NULL;
  comm->config.user.comm_name = NULL;
  atomic_init(&comm->finalized, 0);
  atomic_init(&comm->pending, pending != 0);
  atomic_init(&comm->revoked, 0);
  atomic_init(&comm->suspended, 0);
  atomic_init(&comm->grow_id_outstanding, 0);
  comm->owner = core_process_id();
  ops->comm_info(impl, &comm->info);
  uint64_t handle = core_handle_insert(&comm->header, CORE_HANDLE_COMM,
                                       comm_object_destroy);
  if (handle == NCORE_NULL_HANDLE) {
    comm_object_destroy(&comm->header);
    return core_error_current();
  }
  *out = handle;
  core_log(CORE_LOG_INFO,
           "comm %#llx: rank %d of %d, %s backend, device %d, timeout %lld ms%s",
           (unsigned long long)handle, comm->info.rank, comm->info.nranks,
           ops->name, comm->info.device, (long long)config->timeout_ms,
           pending ? " (still initialising)" : "");
  return NCORE_OK;
}

ncore_status_t core_comm_usable(core_comm_object_t *c, unsigned flags) {
  if (!(flags & CORE_COMM_ALLOW_FORKED) && c->owner != core_process_id())
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "comm: the communicator belongs to process %d; this "
                      "process inherited it through fork() and may only "
                      "destroy it", (int)c->owner);
  if (!(flags & CORE_COMM_ALLOW_FINALIZED) && atomic_load(&c->finalized))
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "comm: the communicator was finalized; only queries and "
                      "ncore_comm_destroy are allowed");
  if (!(flags & CORE_COMM_ALLOW_REVOKED) && atomic_load(&c->revoked))
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "comm: the communicator was revoked (ncore_comm_revoke); "
                      "only queries, ncore_comm_split, ncore_comm_shrink, "
                      "ncore_comm_synchronize, ncore_comm_abort and "
                      "ncore_comm_destroy remain");
  if (!(flags & CORE_COMM_ALLOW_SUSPENDED) && atomic_load(&c->suspended))
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "comm: the communicator is suspended "
                      "(ncore_comm_suspend); call ncore_comm_resume first");
  ncore_status_t failed = core_comm_state_failed(&c->state);
  if (!(flags & CORE_COMM_ALLOW_FAILED) && failed != NCORE_OK)
    return core_error(
        failed, "comm: the communicator failed earlier (%s); only queries, "
        "ncore_comm_shrink, ncore_comm_abort and ncore_comm_destroy remain",
        core_comm_state_message(&c->state));
  return NCORE_OK;
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

/* A pending communicator is usable once the backend says it is ready. */
static ncore_status_t settle_pending(core_comm_object_t *c) {
  if (!atomic_load(&c->pending)) return NCORE_OK;
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

ncore_status_t core_comm_acquire(ncore_comm_t comm, unsigned flags,
                                 core_comm_object_t **out) {
  core_object_t *obj = NULL;
  ncore_status_t status =
      core_handle_acquire(comm, CORE_HANDLE_COMM, "comm", &obj);
  if (status != NCORE_OK) return status;
  core_comm_object_t *c = (core_comm_object_t *)obj;
  if (!(flags & CORE_COMM_ALLOW_PENDING) && c->owner == core_process_id())
    status = settle_pending(c);
  if (status == NCORE_OK) status = core_comm_usable(c, flags);
  if (status != NCORE_OK) {
    core_handle_release(obj);
    return status;
  }
  *out = c;
  return NCORE_OK;
}

ncore_status_t core_comm_properties(core_comm_object_t *comm,
                                    ncore_comm_properties_t *out) {
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  props.rank = comm->info.rank;
  props.nranks = comm->info.nranks;
  props.cuda_device = comm->info.device;
  props.n_lsa_teams = 1;
  ncore_status_t status = comm->ops->comm_properties(comm->impl, &props);
  if (status == NCORE_OK) *out = props;
  return status;
}

void core_comm_release(core_comm_object_t *comm) {
  if (comm != NULL) core_handle_release(&comm->header);
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

ncore_status_t core_comm_finish(core_comm_object_t *c, ncore_status_t status) {
  if (c == NULL) return status;
  if (status != NCORE_OK && status != NCORE_IN_PROGRESS &&
      !core_comm_state_sealed(&c->state)) {
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
  core_comm_release(c);
  return status;
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

ncore_status_t core_comm_close(ncore_comm_t handle, int aborted) {
  core_object_t *obj = NULL;
  ncore_status_t status =
      core_handle_acquire(handle, CORE_HANDLE_COMM, "comm", &obj);
  if (status == NCORE_ERR_CLOSED) {
    core_error_clear(); /* idempotent: already destroyed or aborted */
    return NCORE_OK;
  }
  if (status != NCORE_OK) return status;
  core_comm_object_t *comm = (core_comm_object_t *)obj;
  if (core_handle_close(obj)) {
    if (aborted) {
      core_log(CORE_LOG_WARN, "comm %#llx: rank %d of %d aborted",
               (unsigned long long)handle, comm->info.rank, comm->info.nranks);
      core_comm_state_abort(&comm->state);
      /* Wakes a call blocked on this communicator in another thread; it
       * still holds its reference, so the impl stays valid meanwhile. A
       * fork() child has no such call, and must not tell the peers its
       * parent aborted. */
      if (comm->owner == core_process_id())
        comm->ops->comm_abort_signal(comm->impl);
    }
    pthread_mutex_lock(&comm->lock);
    comm->tearing_down = 1;
    core_resource_t *list = comm->resources;
    comm->resources = NULL;
    for (core_resource_t *r = list; r != NULL; r = r->next) r->linked = 0;
    pthread_mutex_unlock(&comm->lock);
    /* Closing drops the table's reference; each resource's backend release
     * runs now or when a call still using it finishes. */
    core_resource_t *next = NULL;
    for (core_resource_t *r = list; r != NULL; r = next) {
      next = r->next;
      core_handle_close(&r->header);
    }
  }
  core_handle_release(obj);
  return NCORE_OK;
}

/* ---- resources ---- */

/* Hands a resource's backend object back to the backend. In a fork()
 * child nothing is handed back: the object belongs to the parent's state
 * (comm_forget lets go of the communicator's memory; a resource's is left
 * to the child's exit). */
static void release_backend_object(core_comm_object_t *comm,
                                   core_handle_type_t type,
                                   const core_resource_t *res) {
  const core_backend_ops_t *ops = comm->ops;
  if (comm->owner != core_process_id()) return;
  switch (type) {
    case CORE_HANDLE_REGISTERED_BUFFER:
      ops->buffer_deregister(comm->impl, res->impl.buffer);
      break;
    case CORE_HANDLE_WINDOW:
      ops->window_deregister(comm->impl, res->impl.window);
      break;
    case CORE_HANDLE_CUSTOM_REDOP:
      ops->redop_destroy(comm->impl, res->impl.redop);
      break;
    case CORE_HANDLE_DEV_COMM:
      ops->dev_comm_destroy(comm->impl, res->impl.dev_comm);
      break;
    case CORE_HANDLE_SYMMETRIC:
      ops->symmetric_free(comm->impl, res->impl.symmetric);
      break;
    case CORE_HANDLE_COMM: break;
  }
}

/* Runs at a resource's last reference, before its communicator can go. */
static void resource_object_destroy(core_object_t *obj) {
  core_resource_t *res = (core_resource_t *)obj;
  core_comm_object_t *comm = res->comm;
  release_backend_object(comm, obj->type, res);
  free(res);
  core_handle_release(&comm->header);
}

ncore_status_t core_resource_publish(core_comm_object_t *comm,
                                     core_handle_type_t type,
                                     const core_resource_t *fields,
                                     uint64_t *out) {
  core_resource_t *res = malloc(sizeof *res);
  if (res == NULL) {
    release_backend_object(comm, type, fields);
    return core_error(NCORE_ERR_SYSTEM, "out of memory for a resource handle");
  }
  *res = *fields;
  res->comm = comm;
  res->next = res->prev = NULL;
  res->linked = 0;
  /* The resource's own reference on its communicator. */
  core_object_t *comm_ref = NULL;
  if (core_handle_acquire(comm->header.handle, CORE_HANDLE_COMM, "comm",
                          &comm_ref) != NCORE_OK) {
    release_backend_object(comm, type, res);
    free(res);
    return core_error_current();
  }
  pthread_mutex_lock(&comm->lock);
  uint64_t handle = NCORE_NULL_HANDLE;
  if (!comm->tearing_down)
    handle = core_handle_insert(&res->header, type, resource_object_destroy);
  if (handle != NCORE_NULL_HANDLE) {
    res->next = comm->resources;
    if (comm->resources != NULL) comm->resources->prev = res;
    comm->resources = res;
    res->linked = 1;
  }
  int tearing_down = comm->tearing_down;
  pthread_mutex_unlock(&comm->lock);
  if (handle == NCORE_NULL_HANDLE) {
    release_backend_object(comm, type, res);
    free(res);
    core_handle_release(comm_ref);
    if (tearing_down)
      return core_error(NCORE_ERR_CLOSED,
                        "comm: the communicator was closed during the call");
    return core_error_current();
  }
  *out = handle;
  return NCORE_OK;
}

ncore_status_t core_resource_acquire(uint64_t handle, core_handle_type_t type,
                                     const char *argument,
                                     core_resource_t **out) {
  core_object_t *obj = NULL;
  ncore_status_t status = core_handle_acquire(handle, type, argument, &obj);
  if (status != NCORE_OK) return status;
  core_resource_t *res = (core_resource_t *)obj;
  /* The communicator closes its resources, but a call can slip between the
   * two closes: check it too. */
  core_object_t *comm_obj = NULL;
  if (core_handle_acquire(res->comm->header.handle, CORE_HANDLE_COMM, argument,
                          &comm_obj) != NCORE_OK) {
    core_handle_release(obj);
    return core_error(NCORE_ERR_CLOSED, "%s: its communicator was closed",
                      argument);
  }
  core_handle_release(comm_obj);
  *out = res;
  return NCORE_OK;
}

ncore_status_t core_resource_create_begin(uint64_t *out, ncore_comm_t comm,
                                          core_comm_object_t **c) {
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  *out = NCORE_NULL_HANDLE;
  return core_comm_acquire(comm, 0, c);
}

ncore_status_t core_resource_create_end(core_comm_object_t *c,
                                        ncore_status_t status,
                                        core_handle_type_t type,
                                        const core_resource_t *fields,
                                        uint64_t *out) {
  if (status == NCORE_OK) status = core_resource_publish(c, type, fields, out);
  return core_comm_finish(c, status);
}

ncore_status_t core_resource_query_begin(uint64_t handle,
                                         core_handle_type_t type,
                                         const char *argument, const void *out,
                                         core_resource_t **res) {
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  return core_resource_acquire(handle, type, argument, res);
}

ncore_status_t core_comm_query_begin(ncore_comm_t comm, int allow_pending,
                                     const void *out, core_comm_object_t **c) {
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  return core_comm_acquire(
      comm, CORE_COMM_QUERY | (allow_pending ? CORE_COMM_ALLOW_PENDING : 0u), c);
}

void core_resource_release(core_resource_t *res) {
  if (res != NULL) core_handle_release(&res->header);
}

/* Remembers an explicitly closed custom operator's value (comm->lock held),
 * so a later use says "was closed" rather than "unknown". */
static void remember_closed_redop(core_comm_object_t *comm,
                                  ncore_redop_t value) {
  if (comm->closed_redop_count == comm->closed_redop_capacity) {
    size_t capacity =
        comm->closed_redop_capacity ? comm->closed_redop_capacity * 2 : 16;
    int32_t *grown = realloc(comm->closed_redops, capacity * sizeof *grown);
    if (grown == NULL) return; /* only the message gets less precise */
    comm->closed_redops = grown;
    comm->closed_redop_capacity = capacity;
  }
  comm->closed_redops[comm->closed_redop_count++] = value;
}

ncore_status_t core_resource_close(uint64_t handle, core_handle_type_t type,
                                   const char *argument) {
  core_object_t *obj = NULL;
  ncore_status_t status = core_handle_acquire(handle, type, argument, &obj);
  if (status == NCORE_ERR_CLOSED) {
    core_error_clear(); /* idempotent */
    return NCORE_OK;
  }
  if (status != NCORE_OK) return status;
  core_resource_t *res = (core_resource_t *)obj;
  core_comm_object_t *comm = res->comm;
  pthread_mutex_lock(&comm->lock);
  if (res->linked) {
    if (res->prev != NULL) res->prev->next = res->next;
    else comm->resources = res->next;
    if (res->next != NULL) res->next->prev = res->prev;
    res->linked = 0;
    if (type == CORE_HANDLE_CUSTOM_REDOP)
      remember_closed_redop(comm, res->redop_value);
  }
  pthread_mutex_unlock(&comm->lock);
  core_handle_close(obj);
  core_handle_release(obj);
  return NCORE_OK;
}

/* core_handle_any's test for core_resource_owns_pointer. */
static int has_pointer(const core_object_t *obj, const void *ptr) {
  return ((const core_resource_t *)obj)->ptr == ptr;
}

int core_resource_owns_pointer(core_handle_type_t type, const void *ptr) {
  return ptr != NULL && core_handle_any(type, has_pointer, ptr);
}

int core_resource_is_valid(uint64_t handle, core_handle_type_t type) {
  core_resource_t *res = NULL;
  int valid = core_resource_acquire(handle, type, "handle", &res) == NCORE_OK;
  if (valid) core_resource_release(res);
  core_error_clear();
  return valid;
}

/* ---- reduction operators ---- */

ncore_redop_t core_next_redop_value(void) {
  /* 1000 leaves room above NCCL's built-ins and its own custom range, and
   * keeps values readable in messages. */
  static atomic_int next = 1000;
  return (ncore_redop_t)atomic_fetch_add(&next, 1);
}

ncore_status_t core_comm_resolve_op(core_comm_object_t *comm, ncore_redop_t op,
                                    ncore_dtype_t dtype,
                                    core_resource_t **custom) {
  *custom = NULL;
  if (op >= NCORE_SUM && op <= NCORE_AVG) return NCORE_OK;
  core_resource_t *found = NULL;
  int was_closed = 0;
  pthread_mutex_lock(&comm->lock);
  for (core_resource_t *r = comm->resources; r != NULL; r = r->next) {
    if (r->header.type == CORE_HANDLE_CUSTOM_REDOP && r->redop_value == op) {
      core_object_t *obj = NULL;
      if (core_handle_acquire(r->header.handle, CORE_HANDLE_CUSTOM_REDOP, "op",
                              &obj) == NCORE_OK)
        found = r;
      break;
    }
  }
  if (found == NULL)
    for (size_t i = 0; i < comm->closed_redop_count; i++)
      if (comm->closed_redops[i] == op) was_closed = 1;
  pthread_mutex_unlock(&comm->lock);
  if (found == NULL) {
    core_error_clear();
    if (was_closed)
      return core_error(NCORE_ERR_CLOSED, "op: custom operator %d was closed",
                        (int)op);
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "op: %d is neither a built-in operator (SUM 0, PROD 1, "
                      "MAX 2, MIN 3, AVG 4) nor a custom operator of this "
                      "communicator", (int)op);
  }
  if (found->dtype != dtype) {
    ncore_dtype_t made_for = found->dtype;
    core_resource_release(found);
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "op: custom operator %d was made for %s, not %s",
                      (int)op, core_dtype_name(made_for),
                      core_dtype_name(dtype));
  }
  *custom = found;
  return NCORE_OK;
}
