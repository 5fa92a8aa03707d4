/* core/host — communicator control (ncore/comm_control.h): properties,
 * revoke, grow and its unique id, suspend and resume, memory statistics.
 *
 * Host operations complete before their calls return, so a revoke has
 * nothing in flight to stop and a suspend has no device memory to give
 * back: the core keeps those states and refuses calls in them; here they
 * only succeed. A grow is a new rendezvous whose token the root made with
 * ncore_comm_get_unique_id and shares with the other existing ranks over
 * the parent; existing ranks keep their ranks, so old rank 0 creates the
 * new segment. */
#include "comm_control.h"

#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "comm_create.h"
#include "exchange.h"
#include "keyed_hash.h"
#include "segment.h"

ncore_status_t host_comm_properties(core_backend_comm_t *comm,
                                    ncore_comm_properties_t *out) {
  host_comm_t *c = comm;
  /* Every rank maps every other's memory: one LSA team, device
   * communicators describe it, and one-sided calls reach every peer. No
   * GIN and no CFT: their fields keep NCORE_COMM_PROPERTIES_INIT's 0. */
  out->nvml_device = -1;
  out->device_api_support = 1;
  out->multimem_support = 0;
  out->gin_type = NCORE_GIN_TYPE_NONE;
  out->railed_gin_type = NCORE_GIN_TYPE_NONE;
  out->n_lsa_teams = 1;
  out->host_rma_support = 1;
  /* Every rank reads the same segment header: the same hash, and another
   * for every other communicator; keyed, so the secret key stays secret. */
  out->comm_hash =
      host_keyed_hash(host_header(c)->child_key, UINT64_MAX - 1, UINT64_MAX);
  return NCORE_OK;
}

ncore_status_t host_comm_revoke(core_backend_comm_t *comm, uint32_t flags) {
  (void)comm;
  (void)flags;
  return NCORE_OK;
}

ncore_status_t host_comm_get_unique_id(core_backend_comm_t *comm,
                                       ncore_unique_id_t *out) {
  host_comm_t *c = comm;
  /* One at a time is the core's rule; the token is what the grow checks. */
  ncore_status_t s = host_get_unique_id(out);
  if (s == NCORE_OK) s = host_unique_id_token(out, "out", &c->grow_token);
  return s;
}

/* An existing rank: the root's token, shared over the parent. */
static ncore_status_t grow_token_of(host_comm_t *c, const ncore_unique_id_t *id,
                                    uint64_t *token) {
  uint64_t mine = 0;
  if (id != NULL) {
    ncore_status_t s = host_unique_id_token(id, "id", &mine);
    if (s != NCORE_OK) return s;
    if (mine == 0 || mine != c->grow_token)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "id: not the unique id ncore_comm_get_unique_id made "
                        "on this communicator, or already consumed");
  }
  uint64_t *all = calloc((size_t)c->nranks, sizeof *all);
  if (all == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  ncore_status_t s = host_allgather_bytes(c, &mine, all, sizeof mine);
  *token = 0;
  int roots = 0;
  for (int r = 0; r < c->nranks && s == NCORE_OK; r++) {
    if (all[r] == 0) continue;
    roots++;
    *token = all[r];
  }
  free(all);
  if (s != NCORE_OK) return s;
  if (roots != 1)
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "id: %d existing ranks passed an id (expected exactly "
                      "one, the root that made it with "
                      "ncore_comm_get_unique_id; the others pass NULL)",
                      roots);
  return NCORE_OK;
}

ncore_status_t host_comm_grow(host_comm_t *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              core_comm_state_t *state, host_comm_t **out,
                              const core_config_t *config) {
  host_comm_t *c = comm;
  uint64_t token = 0;
  ncore_status_t s = c == NULL ? host_unique_id_token(id, "id", &token)
                               : grow_token_of(c, id, &token);
  if (s != NCORE_OK) return s;
  if (c != NULL) rank = c->rank;
  s = host_segment_join(out, state, token, nranks, rank, config->timeout_ms);
  if (s == NCORE_OK && c != NULL && id != NULL) c->grow_token = 0;
  return s;
}

ncore_status_t host_comm_suspend(core_backend_comm_t *comm, uint32_t flags) {
  (void)comm;
  (void)flags;
  return NCORE_OK;
}

ncore_status_t host_comm_resume(core_backend_comm_t *comm) {
  (void)comm;
  return NCORE_OK;
}

ncore_status_t host_comm_mem_stat(core_backend_comm_t *comm,
                                  ncore_comm_mem_stat_t stat, uint64_t *out) {
  host_comm_t *c = comm;
  /* The shared segment is all a host communicator holds, and the peers map
   * it: nothing can be released while suspended. */
  switch (stat) {
    case NCORE_COMM_MEM_STAT_GPU_MEM_SUSPEND:
    case NCORE_COMM_MEM_STAT_GPU_MEM_SUSPENDED:
      *out = 0;
      break;
    case NCORE_COMM_MEM_STAT_GPU_MEM_PERSIST:
    case NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL:
      *out = c->layout.total;
      break;
  }
  return NCORE_OK;
}
