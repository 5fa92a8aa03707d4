/* core/host — communicator control (ncore/comm_control.h): properties,
 * revoke, grow and its unique id, suspend and resume, memory statistics. */
#ifndef NCORE_CORE_HOST_COMM_CONTROL_H
#define NCORE_CORE_HOST_COMM_CONTROL_H

#include <stdint.h>
#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_comm_properties(core_backend_comm_t *comm,
                                    ncore_comm_properties_t *out);
ncore_status_t host_comm_revoke(core_backend_comm_t *comm, uint32_t flags);
ncore_status_t host_comm_get_unique_id(core_backend_comm_t *comm,
                                       ncore_unique_id_t *out);
ncore_status_t host_comm_grow(core_backend_comm_t *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              core_comm_state_t *state,
                              core_backend_comm_t **out,
                              const core_config_t *config);
ncore_status_t host_comm_suspend(core_backend_comm_t *comm, uint32_t flags);
ncore_status_t host_comm_resume(core_backend_comm_t *comm);
ncore_status_t host_comm_mem_stat(core_backend_comm_t *comm,
                                  ncore_comm_mem_stat_t stat, uint64_t *out);

#endif
