/* core — a communicator-owned resource's life in the handle table
 * (registered buffer, window, custom operator, device communicator,
 * symmetric allocation): published on its communicator's list, acquired
 * for a call, closed (idempotent), its backend object handed back at its
 * last reference, before its communicator's. The start and end every
 * resource entry point shares. The object's layout: comm_object_types.h. */
#ifndef NCORE_CORE_RESOURCE_OBJECT_H
#define NCORE_CORE_RESOURCE_OBJECT_H

#include "comm_object_types.h"

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
static inline void core_resource_release(core_resource_t *res) {
  if (res != NULL) core_handle_release(&res->header);
}

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

/* The start of every resource query: out must not be NULL ("out: must not
 * be NULL"), then the resource (of type, named argument in messages) is
 * acquired as by core_resource_acquire. */
ncore_status_t core_resource_query_begin(uint64_t handle,
                                         core_handle_type_t type,
                                         const char *argument, const void *out,
                                         core_resource_t **res);

/* Explicit, idempotent close of a resource handle (ncore_*_close). */
ncore_status_t core_resource_close(uint64_t handle, core_handle_type_t type,
                                   const char *argument);

/* 1 if handle is a live resource of type, else 0; records nothing. */
int core_resource_is_valid(uint64_t handle, core_handle_type_t type);

/* 1 if a resource of type not yet released has ptr as its `ptr` field (a
 * symmetric allocation's local part), else 0. */
int core_resource_owns_pointer(core_handle_type_t type, const void *ptr);

#endif
