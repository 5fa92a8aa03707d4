/* core/host — communicator queries (comm_query.h). */
#include "comm_query.h"

#include "comm.h"
#include "failure.h"
#include "liveness.h"

void host_comm_info(core_backend_comm_t *comm, core_comm_info_t *out) {
  host_comm_t *c = comm;
  out->rank = c->rank;
  out->nranks = c->nranks;
  out->device = -1;
  out->lsa_rank = c->rank;
  out->lsa_size = c->nranks;
}

ncore_status_t host_comm_async_error(core_backend_comm_t *comm,
                                     ncore_status_t *out) {
  host_comm_t *c = comm;
  /* Looks without recording an error: the query itself succeeds. */
  uint64_t state = atomic_load(&host_header(c)->failure);
  if (core_comm_state_failed(c->state) == NCORE_OK &&
      (state & HOST_STATE_FAILED)) {
    char why[400];
    host_comm_peer_failure(c, state, why, sizeof why);
    host_comm_note(c, host_state_status(state), "%s", why);
  }
  for (int r = 0;
       r < c->nranks && core_comm_state_failed(c->state) == NCORE_OK; r++) {
    if (r == c->rank) continue;
    if (atomic_load(&host_rank_slot(c, r)->aborted))
      host_comm_note(c, NCORE_ERR_REMOTE, "peer %d aborted", r);
    else if (host_peer_died(c, r))
      host_comm_note(c, NCORE_ERR_REMOTE, "peer %d died", r);
  }
  *out = core_comm_state_failed(c->state);
  return NCORE_OK;
}
