/* core/nccl — a communicator's life after creation: finalize, abort,
 * destroy, a fork() child's forgetting, and waiting for a stream while
 * watching the communicator (ncore_comm_synchronize). */
#ifndef NCORE_CORE_NCCL_COMM_LIFECYCLE_H
#define NCORE_CORE_NCCL_COMM_LIFECYCLE_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_comm_finalize(core_backend_comm_t *comm);
void nccl_comm_abort_signal(core_backend_comm_t *comm);
void nccl_comm_destroy(core_backend_comm_t *comm, int aborted);
void nccl_comm_forget(core_backend_comm_t *comm);
ncore_status_t nccl_comm_synchronize(core_backend_comm_t *comm,
                                     ncore_stream_t stream, int64_t timeout_ms);

#endif
