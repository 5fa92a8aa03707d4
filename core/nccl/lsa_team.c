/* core/nccl — the LSA team (lsa_team.h). */
#include "lsa_team.h"

#include "../error.h"
#include "config.h"
#include "wait.h"

ncore_status_t nccl_read_lsa_team(nccl_comm_t *c) {
  /* ncclTeamLsa initialises NCCL's device-runtime state on first use (a
   * window registration already did) and returns an empty team if that
   * failed. */
  struct nccl_team lsa = nccl_fn.ncclTeamLsa(c->nccl);
  if (lsa.nRanks <= 0 || lsa.rank < 0 || lsa.rank >= lsa.nRanks ||
      lsa.nRanks > c->nranks)
    return core_error(NCORE_ERR_INTERNAL,
                      "ncclTeamLsa returned an invalid team (rank %d of %d): "
                      "NCCL's device runtime did not initialise", lsa.rank,
                      lsa.nRanks);
  c->lsa_rank = lsa.rank;
  c->lsa_size = lsa.nRanks;
  c->lsa_known = 1;
  return NCORE_OK;
}

ncore_status_t nccl_lsa_comm(nccl_comm_t *c) {
  if (c->lsa_nccl != NULL) return NCORE_OK;
  ncore_status_t status = nccl_config_map(NULL, &c->lsa_config);
  if (status != NCORE_OK) return status;
  /* Like its parent: a non-blocking parent's child is non-blocking too,
   * and is waited for here. NCCL writes the handle (and may read the
   * config) after returning, so both live in c, not on this stack. */
  c->lsa_config.blocking = c->nonblocking ? 0 : 1;
  /* Color: the team's first world rank (teams are contiguous blocks). */
  ncclResult_t r = nccl_fn.ncclCommSplit(c->nccl, c->rank - c->lsa_rank,
                                         c->lsa_rank, &c->lsa_nccl,
                                         &c->lsa_config);
  if (r != ncclSuccess && r != ncclInProgress)
    status = nccl_check(r, "ncclCommSplit(LSA team)", c->nccl);
  else if (c->nonblocking) /* the handle comes when NCCL's job ends */
    status = nccl_wait_ready(c->nccl, NULL, c->timeout_ms,
                             "ncclCommSplit(LSA team)");
  if (status == NCORE_OK &&
      __atomic_load_n(&c->lsa_nccl, __ATOMIC_ACQUIRE) == NULL)
    status = core_error(NCORE_ERR_INTERNAL,
                        "ncclCommSplit(LSA team) returned no communicator");
  else if (status == NCORE_OK)
    status = nccl_wait_ready(c->lsa_nccl, NULL, c->timeout_ms,
                             "ncclCommSplit(LSA team)");
  if (status != NCORE_OK && c->lsa_nccl != NULL) {
    nccl_fn.ncclCommAbort(c->lsa_nccl);
    c->lsa_nccl = NULL;
  }
  return status;
}
