/* core — a communicator object's life in the handle table: made before its
 * backend makes the communicator, published with the backend's object,
 * closed (destroy or abort, idempotent, closing every resource with it)
 * and destroyed at its last reference, the backend's state handed back in
 * the right order. The object's layout: comm_object_types.h. */
#ifndef NCORE_CORE_COMM_OBJECT_H
#define NCORE_CORE_COMM_OBJECT_H

#include "comm_object_types.h"

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

/* The communicator's properties in *out (a full-size struct): what the
 * core knows (rank, nranks, device; one LSA team) completed by the
 * backend's comm_properties. */
ncore_status_t core_comm_properties(core_comm_object_t *comm,
                                    ncore_comm_properties_t *out);

/* Destroy (aborted = 0) or abort (aborted = 1): idempotent closing of the
 * handle and every resource. Returns as ncore_comm_destroy. */
ncore_status_t core_comm_close(ncore_comm_t comm, int aborted);

#endif
