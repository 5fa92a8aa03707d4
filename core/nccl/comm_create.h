/* core/nccl — making communicators: unique ids, init (one rank, scalable,
 * all devices of this process), split, shrink, grow. */
#ifndef NCORE_CORE_NCCL_COMM_CREATE_H
#define NCORE_CORE_NCCL_COMM_CREATE_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_get_unique_id(ncore_unique_id_t *out);
ncore_status_t nccl_comm_init_rank(void **out, int nranks,
                                   const ncore_unique_id_t *ids, int nids,
                                   int rank, const core_config_t *config);
ncore_status_t nccl_comm_init_all(void **out, int ndev, const int *devlist,
                                  const core_config_t *config);
ncore_status_t nccl_comm_split(void *comm, int color, int key, void **out,
                               const core_config_t *config);
ncore_status_t nccl_comm_shrink(void *comm, const int *exclude, int count,
                                void **out, const core_config_t *config,
                                uint32_t flags);
ncore_status_t nccl_comm_grow(void *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              void **out, const core_config_t *config);

#endif
