/* core — a communicator-owned resource's life: published on its
 * communicator's list, acquired for a call, closed (idempotent), and its
 * backend object handed back at its last reference
 * (core/resource_object.h). */
#include <stdlib.h>

#include "comm_call.h"
#include "devcomm_requirements.h"
#include "error.h"
#include "error_clear.h"
#include "process.h"
#include "redop_lookup.h"
#include "resource_object.h"

/* Hands a resource's backend object back to the backend. In a fork()
 * child nothing is handed back: the object belongs to the parent's state
 * (comm_forget lets go of the communicator's memory; a resource's is left
 * to the child's exit). */
static void release_backend_object(core_comm_object_t *comm,
                                   core_handle_type_t type,
                                   const core_resource_t *res) {
  const core_backend_ops_t *ops = comm->ops;
  core_dev_comm_asks_free(res->dev_comm_asks);
  free(res->dev_comm_asks);
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
      core_comm_remember_closed_redop(comm, res->redop_value);
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
