/* core/nccl — a communicator's setup once NCCL made it: ncore's own state
 * (helper stream, scratch, the signal window, peer liveness), at once for a
 * blocking config, step by step for a non-blocking one. */
#ifndef NCORE_CORE_NCCL_COMM_SETUP_H
#define NCORE_CORE_NCCL_COMM_SETUP_H

#include "comm.h"

/* Wraps a fresh ncclComm_t made in ctx, on the core's state (its liveness:
 * core/comm_state.h). Blocking: sets it up completely (NCORE_OK).
 * Non-blocking: leaves the setup to nccl_comm_advance_setup
 * (NCORE_IN_PROGRESS). On failure the ncclComm_t is aborted and freed. */
ncore_status_t nccl_comm_wrap(core_comm_state_t *state, ncclComm_t nc,
                              CUcontext ctx, const core_config_t *config,
                              nccl_comm_t **out);
/* Aborts c's NCCL communicators and frees c, with ncore's memory, once
 * NCCL stopped using it: a communicator whose setup failed, or one
 * destroyed after an abort or a failure. */
void nccl_comm_discard(nccl_comm_t *c);
/* Frees c's host state (helper stream, locks, c) once nothing uses it. */
void nccl_comm_free(nccl_comm_t *c);
/* One step of a non-blocking communicator's setup; never blocks. *out:
 * NCORE_IN_PROGRESS, NCORE_OK (ready) or the error that ended it. */
ncore_status_t nccl_comm_advance_setup(nccl_comm_t *c, ncore_status_t *out);

#endif
