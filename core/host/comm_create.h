/* core/host — making communicators: unique ids, init (one rank, or all
 * ranks as threads of this process), split, shrink. The grow, which makes
 * one too, is communicator control (comm_control.c). */
#ifndef NCORE_CORE_HOST_COMM_CREATE_H
#define NCORE_CORE_HOST_COMM_CREATE_H

#include <stdint.h>
#include "../backend.h"
#include "identity.h"

/* The unique id's layout inside its 128 bytes. */
typedef struct host_unique_id {
  char magic[8];
  uint64_t token;
  int64_t creator_pid;
  host_identity_t creator;  /* where the id was made */
} host_unique_id_t;

/* The rendezvous token inside a host unique id; INVALID_ARGUMENT naming
 * argument when id is not a host id (or one of another machine). */
ncore_status_t host_unique_id_token(const ncore_unique_id_t *id,
                                    const char *argument, uint64_t *token);

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_get_unique_id(ncore_unique_id_t *out);
ncore_status_t host_comm_init_rank(core_comm_state_t *state,
                                   core_backend_comm_t **out, int nranks,
                                   const ncore_unique_id_t *ids, int nids,
                                   int rank, const core_config_t *config);
ncore_status_t host_comm_init_all(core_comm_state_t *const *states,
                                  core_backend_comm_t **out, int ndev,
                                  const int *devlist,
                                  const core_config_t *config);
ncore_status_t host_comm_split(core_backend_comm_t *comm, int color, int key,
                               core_comm_state_t *state,
                               core_backend_comm_t **out,
                               const core_config_t *config);
ncore_status_t host_comm_shrink(core_backend_comm_t *comm, const int *exclude,
                                int count, core_comm_state_t *state,
                                core_backend_comm_t **out,
                                const core_config_t *config, uint32_t flags);

#endif
