/* core/nccl — this rank's LSA team: reading it from NCCL, and the
 * communicator over it that windows fall back to (core/nccl/README.md,
 * "The LSA-team communicator"). */
#ifndef NCORE_CORE_NCCL_LSA_TEAM_H
#define NCORE_CORE_NCCL_LSA_TEAM_H

#include "comm.h"

/* Reads this rank's LSA team (ncclTeamLsa) into c->lsa_rank / lsa_size;
 * INTERNAL when NCCL's device runtime gives no valid team. */
ncore_status_t nccl_read_lsa_team(nccl_comm_t *c);
/* Makes c->lsa_nccl (ncclCommSplit by LSA team, blocking) unless made.
 * Collective over c: every rank calls it at the same point (a window
 * registration that NCCL refused on every rank alike). */
ncore_status_t nccl_lsa_comm(nccl_comm_t *c);

#endif
