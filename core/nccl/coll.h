/* core/nccl — the collectives, as NCCL's calls. */
#ifndef NCORE_CORE_NCCL_COLL_H
#define NCORE_CORE_NCCL_COLL_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_collective(core_backend_comm_t *comm,
                               const core_coll_args_t *args);

#endif
