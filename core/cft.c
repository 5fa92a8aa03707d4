/* core — CFT teams and logical endpoint addresses (ncore/cft.h): the
 * argument checks (mode, team, ranks, offset within the part), then the
 * backend, which alone knows whether it has CFT (the NCCL backend asks NCCL
 * 2.31+, the host backend has none). */
#include "ncore/cft.h"

#include "comm_call.h"
#include "comm_object.h"
#include "error.h"
#include "resource_entry.h"
#include "validate.h"

static ncore_status_t cft_team(ncore_comm_t comm, int multimem, int mode,
                               ncore_team_t *out) {
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_query_begin(comm, 0, out, &c);
  if (status != NCORE_OK) return status;
  if (!multimem && mode != NCORE_CFT_TEAM_FLAT &&
      mode != NCORE_CFT_TEAM_HIER_MULTIMEM && mode != NCORE_CFT_TEAM_HIER_LSA)
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "mode: %d is not an ncore_cft_team_mode_t (expected "
                        "NCORE_CFT_TEAM_FLAT 0, NCORE_CFT_TEAM_HIER_MULTIMEM 1 "
                        "or NCORE_CFT_TEAM_HIER_LSA 2)",
                        mode);
  if (status == NCORE_OK) status = c->ops->cft_team(c->impl, multimem, mode, out);
  core_comm_release(c);
  return status;
}

NCORE_API ncore_status_t ncore_comm_team_cft(ncore_comm_t comm, int mode,
                                             ncore_team_t *out) {
  CORE_ENTER("ncore_comm_team_cft");
  return cft_team(comm, 0, mode, out);
}

NCORE_API ncore_status_t ncore_comm_team_cft_multimem(ncore_comm_t comm,
                                                      ncore_team_t *out) {
  CORE_ENTER("ncore_comm_team_cft_multimem");
  return cft_team(comm, 1, NCORE_CFT_TEAM_FLAT, out);
}

/* Acquires window, checks what only the core can (the world rank peer
 * whose part CORE_CFT_LE_PEER addresses, and offset within the part
 * addressed), asks the backend. */
static ncore_status_t le_info(ncore_window_t window, int what, int peer,
                              const ncore_team_t *team, size_t offset,
                              ncore_cft_le_info_t *out) {
  core_resource_t *res = NULL;
  ncore_status_t status = core_resource_query_begin(
      window, CORE_HANDLE_WINDOW, "window", out, &res);
  if (status != NCORE_OK) return status;
  /* A CFT team's members are not world ranks ncore can name (NCCL lays out
   * the CFT groups), so their offset is checked against this rank's part:
   * NCCL's windows are symmetric in size. */
  int rank = res->comm->info.rank;
  if (what == CORE_CFT_LE_PEER) {
    status = core_check_range(peer, res->comm->info.nranks, "peer");
    rank = peer;
  }
  if (status == NCORE_OK)
    status = core_check_window_offset(
        offset, res->comm->ops->window_peer_size(res->impl.window, rank),
        "rank", rank);
  if (status == NCORE_OK)
    status = res->comm->ops->window_le_info(res->comm->impl, res->impl.window,
                                            what, peer, team, offset, out);
  core_resource_release(res);
  return status;
}

NCORE_API ncore_status_t ncore_window_multimem_le_info(
    ncore_window_t window, size_t offset, ncore_cft_le_info_t *out) {
  CORE_ENTER("ncore_window_multimem_le_info");
  return le_info(window, CORE_CFT_LE_MULTIMEM, -1, NULL, offset, out);
}

NCORE_API ncore_status_t ncore_window_cft_le_info(ncore_window_t window,
                                                  size_t offset, int peer_cft,
                                                  const ncore_team_t *team,
                                                  ncore_cft_le_info_t *out) {
  CORE_ENTER("ncore_window_cft_le_info");
  ncore_status_t status = core_check_team(team, "team");
  if (status == NCORE_OK) status = core_check_range(peer_cft, team->n_ranks, "peer_cft");
  if (status != NCORE_OK) return status;
  return le_info(window, CORE_CFT_LE_TEAM_MEMBER, peer_cft, team, offset, out);
}

NCORE_API ncore_status_t ncore_window_peer_le_info(ncore_window_t window,
                                                   size_t offset, int peer,
                                                   ncore_cft_le_info_t *out) {
  CORE_ENTER("ncore_window_peer_le_info");
  return le_info(window, CORE_CFT_LE_PEER, peer, NULL, offset, out);
}
