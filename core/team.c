/* core — teams (ncore/team.h): the world, LSA and rail teams of a
 * communicator and the rank conversions, from the rank, size and LSA team
 * ncore already keeps (c->info), with NCCL's formulas
 * (nccl_device/impl/core__funcs.h), so every backend and every NCCL answers
 * them alike. */
#include "ncore/team.h"

#include "comm_call.h"
#include "comm_object.h"
#include "error.h"
#include "validate.h"

static ncore_team_t make_team(int n_ranks, int rank, int stride) {
  ncore_team_t team = {n_ranks, rank, stride};
  return team;
}

/* WHICH: 0 world, 1 LSA, 2 rail. */
static ncore_status_t team_query(ncore_comm_t comm, ncore_team_t *out, int which) {
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_query_begin(comm, 0, out, &c);
  if (status != NCORE_OK) return status;
  const int lsa_size = c->info.lsa_size > 0 ? c->info.lsa_size : 1;
  if (which == 0) *out = make_team(c->info.nranks, c->info.rank, 1);
  if (which == 1) *out = make_team(lsa_size, c->info.lsa_rank, 1);
  /* ncclTeamRail: ncclTeamOuterFactor(world, lsa_size). */
  if (which == 2) *out = make_team(c->info.nranks / lsa_size, c->info.rank / lsa_size, lsa_size);
  core_comm_release(c);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_comm_team_world(ncore_comm_t comm, ncore_team_t *out) {
  CORE_ENTER("ncore_comm_team_world");
  return team_query(comm, out, 0);
}

NCORE_API ncore_status_t ncore_comm_team_lsa(ncore_comm_t comm, ncore_team_t *out) {
  CORE_ENTER("ncore_comm_team_lsa");
  return team_query(comm, out, 1);
}

NCORE_API ncore_status_t ncore_comm_team_rail(ncore_comm_t comm, ncore_team_t *out) {
  CORE_ENTER("ncore_comm_team_rail");
  return team_query(comm, out, 2);
}

/* Checks *team and team_rank, then writes base + (team_rank - rank) * stride
 * into *out when it lies in [0, limit); TO_LSA picks the LSA team's base. */
static ncore_status_t team_rank_to(ncore_comm_t comm, const ncore_team_t *team,
                                   int team_rank, int *out, int to_lsa) {
  ncore_status_t status = core_check_team(team, "team");
  if (status != NCORE_OK) return status;
  status = core_check_range(team_rank, team->n_ranks, "team_rank");
  if (status != NCORE_OK) return status;
  core_comm_object_t *c = NULL;
  status = core_comm_query_begin(comm, 0, out, &c);
  if (status != NCORE_OK) return status;
  const long long base = to_lsa ? c->info.lsa_rank : c->info.rank;
  const int limit = to_lsa ? c->info.lsa_size : c->info.nranks;
  const long long member = base + ((long long)team_rank - team->rank) * team->stride;
  core_comm_release(c);
  if (member < 0 || member >= limit)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "team_rank: member %d of the team (n_ranks %d, rank %d, stride "
                      "%d) is %s %lld, outside [0, %d)%s",
                      team_rank, (int)team->n_ranks, (int)team->rank, (int)team->stride,
                      to_lsa ? "LSA index" : "world rank", member, limit,
                      to_lsa ? ": it is not in this rank's LSA team" : "");
  *out = (int)member;
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_comm_team_rank_to_world(ncore_comm_t comm,
                                                       const ncore_team_t *team,
                                                       int team_rank, int *out) {
  CORE_ENTER("ncore_comm_team_rank_to_world");
  return team_rank_to(comm, team, team_rank, out, 0);
}

NCORE_API ncore_status_t ncore_comm_team_rank_to_lsa(ncore_comm_t comm,
                                                     const ncore_team_t *team,
                                                     int team_rank, int *out) {
  CORE_ENTER("ncore_comm_team_rank_to_lsa");
  return team_rank_to(comm, team, team_rank, out, 1);
}
