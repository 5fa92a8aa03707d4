/* core/host — the collectives over per-rank staging slots in the
 * segment (coll.c). */
#ifndef NCORE_CORE_HOST_COLL_H
#define NCORE_CORE_HOST_COLL_H

#include "comm.h"
#include "op.h"

void host_coll_init(host_op_t *op, host_comm_t *comm,
                    const core_coll_args_t *args);

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_collective(core_backend_comm_t *comm,
                               const core_coll_args_t *args);

#endif
