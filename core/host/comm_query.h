/* core/host — what the core asks of a communicator: its rank, size and
 * LSA team (all of it), and its asynchronous error. */
#ifndef NCORE_CORE_HOST_COMM_QUERY_H
#define NCORE_CORE_HOST_COMM_QUERY_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
void host_comm_info(core_backend_comm_t *comm, core_comm_info_t *out);
ncore_status_t host_comm_async_error(core_backend_comm_t *comm,
                                     ncore_status_t *out);

#endif
