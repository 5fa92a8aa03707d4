/* core/nccl — CFT: NCCL's host calls of 2.31+, each required by version
 * (nccl_require names NCCL 2.31 on an older library). NCCL answers a team
 * by value, with no status: what it gives is what ncore gives. A window
 * registered on the LSA team only (window.h, "LSA fallback") is addressed
 * relative to that team, so the world ranks and teams of the whole
 * communicator do not name its parts. */
#include "cft.h"

#include "../error.h"
#include "nccl_lib.h"
#include "status.h"
#include "window.h"

ncore_status_t nccl_cft_team(core_backend_comm_t *comm, int multimem, int mode,
                             ncore_team_t *out) {
  nccl_comm_t *c = comm;
  const char *what = multimem ? "ncore_comm_team_cft_multimem (ncclTeamCftMultimem)"
                              : "ncore_comm_team_cft (ncclTeamCft)";
  ncore_status_t status =
      nccl_require(multimem ? (const void *)nccl_fn.ncclTeamCftMultimem
                            : (const void *)nccl_fn.ncclTeamCft,
                   NCCL_CFT_SINCE, what);
  if (status != NCORE_OK) return status;
  struct nccl_team team = multimem ? nccl_fn.ncclTeamCftMultimem(c->nccl)
                                   : nccl_fn.ncclTeamCft(c->nccl, mode);
  out->n_ranks = team.nRanks;
  out->rank = team.rank;
  out->stride = team.stride;
  return NCORE_OK;
}

/* The rank NCCL knows the window's part of world rank peer by; -1 when the
 * window's communicator (its LSA team) does not hold that rank. */
static int owner_rank(const nccl_window_t *w, int peer) {
  if (w->owner == w->comm->nccl) return peer;
  return nccl_peer_in_lsa(w->comm, peer) ? peer - w->first_rank : -1;
}

static ncore_status_t lsa_only(const char *which) {
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "the window is registered on this rank's LSA team only "
                    "(NCCL gave no window over the whole communicator), so %s "
                    "does not address it",
                    which);
}

ncore_status_t nccl_window_le_info(core_backend_comm_t *comm,
                                   core_backend_window_t *window, int what,
                                   int peer, const ncore_team_t *team,
                                   size_t offset, ncore_cft_le_info_t *out) {
  nccl_comm_t *c = comm;
  nccl_window_t *w = window;
  uint32_t le_id = 0;
  size_t le_offset = 0;
  ncclResult_t r = ncclSuccess;
  const char *fn = NULL;
  ncore_status_t status = NCORE_OK;
  if (what == CORE_CFT_LE_MULTIMEM) {
    fn = "ncclGetMultimemDeviceLeInfo";
    status = nccl_require(nccl_fn.ncclGetMultimemDeviceLeInfo, NCCL_CFT_SINCE,
                          "ncore_window_multimem_le_info (ncclGetMultimemDeviceLeInfo)");
    if (status == NCORE_OK)
      r = nccl_fn.ncclGetMultimemDeviceLeInfo(w->win, offset, &le_id, &le_offset);
  } else if (what == CORE_CFT_LE_TEAM_MEMBER) {
    fn = "ncclGetCftDeviceLeInfo";
    status = nccl_require(nccl_fn.ncclGetCftDeviceLeInfo, NCCL_CFT_SINCE,
                          "ncore_window_cft_le_info (ncclGetCftDeviceLeInfo)");
    if (status == NCORE_OK && w->owner != c->nccl)
      status = lsa_only("a CFT team of the communicator");
    struct nccl_team t = {team->n_ranks, team->rank, team->stride};
    if (status == NCORE_OK)
      r = nccl_fn.ncclGetCftDeviceLeInfo(w->win, offset, peer, t, &le_id, &le_offset);
  } else {
    fn = "ncclGetPeerDeviceLeInfo";
    status = nccl_require(nccl_fn.ncclGetPeerDeviceLeInfo, NCCL_CFT_SINCE,
                          "ncore_window_peer_le_info (ncclGetPeerDeviceLeInfo)");
    const int rank = owner_rank(w, peer);
    if (status == NCORE_OK && rank < 0)
      status = lsa_only("a rank outside that team");
    if (status == NCORE_OK)
      r = nccl_fn.ncclGetPeerDeviceLeInfo(w->win, offset, rank, &le_id, &le_offset);
  }
  if (status != NCORE_OK) return status;
  if (r != ncclSuccess) return nccl_check(r, fn, w->owner);
  out->le_id = le_id;
  out->le_offset = le_offset;
  return NCORE_OK;
}
