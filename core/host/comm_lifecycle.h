/* core/host — a communicator's life after creation: finalize, abort,
 * destroy, a fork() child's forgetting, synchronize. */
#ifndef NCORE_CORE_HOST_COMM_LIFECYCLE_H
#define NCORE_CORE_HOST_COMM_LIFECYCLE_H

#include <stdint.h>
#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_comm_finalize(core_backend_comm_t *comm);
void host_comm_abort_signal(core_backend_comm_t *comm);
void host_comm_destroy(core_backend_comm_t *comm, int aborted);
void host_comm_forget(core_backend_comm_t *comm);
ncore_status_t host_comm_synchronize(core_backend_comm_t *comm,
                                     ncore_stream_t stream, int64_t timeout_ms);

#endif
