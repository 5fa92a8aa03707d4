/* core/nccl — making communicators: unique ids, init (one rank, scalable,
 * all devices of this process), split, shrink, grow. Each is made on the
 * core's state for it (its liveness, core/comm_state.h). */
#ifndef NCORE_CORE_NCCL_COMM_CREATE_H
#define NCORE_CORE_NCCL_COMM_CREATE_H

#include "comm.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_get_unique_id(ncore_unique_id_t *out);
ncore_status_t nccl_comm_init_rank(core_comm_state_t *state, nccl_comm_t **out,
                                   int nranks, const ncore_unique_id_t *ids,
                                   int nids, int rank,
                                   const core_config_t *config);
ncore_status_t nccl_comm_init_all(core_comm_state_t *const *states,
                                  nccl_comm_t **out, int ndev,
                                  const int *devlist,
                                  const core_config_t *config);
ncore_status_t nccl_comm_split(nccl_comm_t *comm, int color, int key,
                               core_comm_state_t *state, nccl_comm_t **out,
                               const core_config_t *config);
ncore_status_t nccl_comm_shrink(nccl_comm_t *comm, const int *exclude,
                                int count, core_comm_state_t *state,
                                nccl_comm_t **out, const core_config_t *config,
                                uint32_t flags);
ncore_status_t nccl_comm_grow(nccl_comm_t *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              core_comm_state_t *state, nccl_comm_t **out,
                              const core_config_t *config);

#endif
