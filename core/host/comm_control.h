/* core/host — communicator control (ncore/comm_control.h): properties,
 * revoke, grow and its unique id, suspend and resume, memory statistics. */
#ifndef NCORE_CORE_HOST_COMM_CONTROL_H
#define NCORE_CORE_HOST_COMM_CONTROL_H

#include <stdint.h>
#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_comm_properties(void *comm, ncore_comm_properties_t *out);
ncore_status_t host_comm_revoke(void *comm, uint32_t flags);
ncore_status_t host_comm_get_unique_id(void *comm, ncore_unique_id_t *out);
ncore_status_t host_comm_grow(void *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              void **out, const core_config_t *config);
ncore_status_t host_comm_suspend(void *comm, uint32_t flags);
ncore_status_t host_comm_resume(void *comm);
ncore_status_t host_comm_mem_stat(void *comm, ncore_comm_mem_stat_t stat,
                                  uint64_t *out);

#endif
