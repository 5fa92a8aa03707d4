/* core/host — device communicators describe the host team: every rank is in
 * the LSA team, no GIN, no rail team, no multimem. */
#include <stdlib.h>
#include <string.h>
#include "devcomm.h"

#include "../devcomm_requirements.h"
#include "../error.h"
#include "comm.h"

/* The host backend's core_backend_dev_comm_t. */
typedef struct core_backend_dev_comm {
  int rank, nranks;
} host_dev_comm_t;

ncore_status_t host_dev_comm_create(core_backend_comm_t *comm,
                                    const ncore_dev_comm_requirements_t *req,
                                    core_dev_comm_asks_t *asks,
                                    core_backend_dev_comm_t **out) {
  host_comm_t *c = comm;
  /* The host team is all load/store: what needs a network or NVLink
   * multicast cannot be honoured, and pretending would mislead kernels. */
  if (req && (req->gin_connection_type != NCORE_GIN_CONNECTION_NONE ||
              req->gin_force_enable))
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "requirements: gin_connection_type / gin_force_enable: the "
                      "host backend has no GIN (every rank is load/store reachable)");
  if (req && req->lsa_multimem)
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "requirements: lsa_multimem: the host backend has no multimem");
  if (req && ((req->gin_type != NCORE_CONFIG_UNDEF_INT &&
               req->gin_type != NCORE_GIN_TYPE_NONE) ||
              (req->cft_caps != NCORE_CONFIG_UNDEF_INT && req->cft_caps != 0)))
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "requirements: gin_type / cft_caps: the host backend has "
                      "no GIN and no CFT");
  for (int i = 0; i < asks->team_count; i++)
    if (asks->teams[i].multimem)
      return core_error(NCORE_ERR_NOT_SUPPORTED,
                        "requirements: teams: a team asks for multimem: the "
                        "host backend has no multimem");
  /* Its device communicator is a description for the host: there is no
   * device memory behind it for NCCL's barrier or all-to-all buffers, and a
   * handle without them would mislead a kernel. */
  if (asks->resource_count > 0)
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "requirements: resources: the host backend's device "
                      "communicator has no device resources (LSA / GIN "
                      "barriers, LL A2A need NCCL's device API: use the nccl "
                      "backend)");
  host_dev_comm_t *d = malloc(sizeof *d);
  if (!d) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  d->rank = c->rank;
  d->nranks = c->nranks;
  *out = d;
  return NCORE_OK;
}

void host_dev_comm_destroy(core_backend_comm_t *comm,
                           core_backend_dev_comm_t *dev_comm) {
  (void)comm;
  free(dev_comm);
}

void *host_dev_comm_pointer(core_backend_dev_comm_t *dev_comm) { return dev_comm; }

void host_dev_comm_info(core_backend_dev_comm_t *dev_comm,
                        ncore_dev_comm_info_t *out) {
  host_dev_comm_t *d = dev_comm;
  uint32_t size = out->struct_size;
  memset(out, 0, sizeof *out);
  out->struct_size = size;
  out->rank = d->rank;
  out->nranks = d->nranks;
  out->lsa_rank = d->rank;
  out->lsa_size = d->nranks;
  out->gin_type = NCORE_GIN_TYPE_NONE;
  out->railed_gin_type = NCORE_GIN_TYPE_NONE;
}
