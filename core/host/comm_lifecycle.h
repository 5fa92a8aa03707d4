/* core/host — a communicator's life after creation: finalize, abort,
 * destroy, a fork() child's forgetting, synchronize. */
#ifndef NCORE_CORE_HOST_COMM_LIFECYCLE_H
#define NCORE_CORE_HOST_COMM_LIFECYCLE_H

#include <stdint.h>
#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_comm_finalize(void *comm);
void host_comm_abort_signal(void *comm);
void host_comm_destroy(void *comm, int aborted);
void host_comm_forget(void *comm);
ncore_status_t host_comm_synchronize(void *comm, ncore_stream_t stream,
                                     int64_t timeout_ms);

#endif
