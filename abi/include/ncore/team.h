/* ncore — teams: strided subsets of a communicator's ranks, as NCCL's
 * device API names them (struct ncclTeam of nccl_device/core.h; nccl4py
 * 0.4.1's NCCLTeam). A team is a value: (n_ranks, rank, stride) seen from
 * the calling rank, whose own index in it is `rank`; member i is world rank
 * my_rank + (i - rank) * stride. ncore answers these queries from what it
 * knows of the communicator (its rank, size and LSA team), on every backend
 * and every NCCL, with NCCL's own formulas (nccl_device/impl/core__funcs.h:
 * ncclTeamWorld, ncclTeamLsa, ncclTeamRail, ncclTeamRankToWorld,
 * ncclTeamRankToLsa); the host backend's LSA team is all of its ranks. */
#ifndef NCORE_TEAM_H
#define NCORE_TEAM_H

#include <stdint.h>
#include "errors.h"
#include "export.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* A team: n_ranks members, the caller is member `rank`, neighbours are
 * `stride` world ranks apart. Same layout as NCCL's struct ncclTeam. */
typedef struct ncore_team {
  int32_t n_ranks;
  int32_t rank;
  int32_t stride;
} ncore_team_t;

/* Writes the world team into *out: {nranks, rank, 1}.
 * Returns NCORE_OK, NCORE_ERR_INVALID_ARGUMENT (out NULL, comm not a
 * communicator handle) or NCORE_ERR_CLOSED (comm destroyed or aborted). */
NCORE_API ncore_status_t ncore_comm_team_world(ncore_comm_t comm,
                                               ncore_team_t *out);
/* Writes this rank's load/store-accessible team into *out:
 * {lsa_size, lsa_rank, 1} (ncore_comm_lsa_size / ncore_comm_lsa_rank).
 * Returns as ncore_comm_team_world. */
NCORE_API ncore_status_t ncore_comm_team_lsa(ncore_comm_t comm,
                                             ncore_team_t *out);
/* Writes this rank's rail team into *out: the ranks with this rank's index
 * in every LSA team, {nranks / lsa_size, rank / lsa_size, lsa_size}.
 * Returns as ncore_comm_team_world. */
NCORE_API ncore_status_t ncore_comm_team_rail(ncore_comm_t comm,
                                              ncore_team_t *out);
/* Writes into *out the world rank of member team_rank of *team, a team as
 * the calling rank sees it (from the three calls above, or built by the
 * caller): rank + (team_rank - team->rank) * team->stride.
 * Returns NCORE_OK, or NCORE_ERR_INVALID_ARGUMENT when team or out is NULL,
 * the team is malformed (n_ranks < 1, rank outside [0, n_ranks), stride
 * < 1), team_rank is outside [0, team->n_ranks), or the member is not a
 * rank of the communicator; NCORE_ERR_CLOSED as ncore_comm_team_world.
 * Nothing is kept: *team is read during the call only. */
NCORE_API ncore_status_t ncore_comm_team_rank_to_world(ncore_comm_t comm,
                                                       const ncore_team_t *team,
                                                       int team_rank, int *out);
/* Writes into *out the index in this rank's LSA team of member team_rank
 * of *team: lsa_rank + (team_rank - team->rank) * team->stride.
 * Returns as ncore_comm_team_rank_to_world, and NCORE_ERR_INVALID_ARGUMENT
 * when the member is not in this rank's LSA team (NCCL's device function
 * answers an out-of-range index there; ncore says so instead). */
NCORE_API ncore_status_t ncore_comm_team_rank_to_lsa(ncore_comm_t comm,
                                                     const ncore_team_t *team,
                                                     int team_rank, int *out);

NCORE_END_DECLS

#endif /* NCORE_TEAM_H */
