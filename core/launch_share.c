/* core — how rank 0's unique id reaches the other ranks of a launched job
 * (core_launch_share_id): through the launcher's own service where it has
 * one, so no rank needs code of its own and nothing is left behind. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "error_clear.h"
#include "launch.h"
#include "log.h"

/* How many ids this process has shared: the n-th ncore_comm_init_from_env
 * of every rank uses key n, so successive communicators never mix. */
static _Atomic uint64_t calls_made;

static const char *exchange_name(core_launch_exchange_t exchange) {
  switch (exchange) {
    case CORE_LAUNCH_ID_IN_ENV: return "NCORE_UNIQUE_ID";
    case CORE_LAUNCH_ID_PMIX: return "PMIx";
    case CORE_LAUNCH_ID_PMI1: return "PMI-1 (PMI_FD)";
    case CORE_LAUNCH_ID_TCP: return "MASTER_ADDR:MASTER_PORT";
    default: return "nothing (one rank)";
  }
}

/* MPICH's Hydra offers PMI-1 on PMI_FD; the same PMI_RANK under a PMIx
 * server (Slurm --mpi=pmix, PRRTE) comes with PMIX_NAMESPACE instead. */
static core_launch_exchange_t resolve(const core_launch_t *launch) {
  if (launch->exchange == CORE_LAUNCH_ID_PMI1 && getenv("PMI_FD") == NULL &&
      getenv("PMIX_NAMESPACE") != NULL)
    return CORE_LAUNCH_ID_PMIX;
  return launch->exchange;
}

ncore_status_t core_launch_share_id(const core_launch_t *launch,
                                    const core_backend_ops_t *ops,
                                    int64_t timeout_ms, ncore_unique_id_t *id) {
  uint64_t call = atomic_fetch_add(&calls_made, 1);
  /* ncore-run's id serves the job's first communicator. An id makes one
   * communicator (NCCL's root serves one init; the host rendezvous takes
   * each rank once), so later ones get rank 0's new id through
   * MASTER_ADDR:MASTER_PORT, which ncore-run sets as torchrun does. */
  if (launch->exchange == CORE_LAUNCH_ID_IN_ENV && call == 0) {
    *id = launch->id;
    return NCORE_OK;
  }
  if (launch->rank == 0 || launch->nranks == 1) {
    ncore_status_t s = ops->get_unique_id(id);
    if (s != NCORE_OK || launch->nranks == 1) return s;
  }
  char key[64];
  snprintf(key, sizeof key, "ncore.uid.%llu", (unsigned long long)call);
  core_launch_exchange_t exchange = resolve(launch);
  core_log(CORE_LOG_INFO, "%s id %s through %s (%s)",
           launch->rank == 0 ? "publishing the" : "awaiting rank 0's", key,
           exchange_name(exchange), launch->launcher);
  ncore_status_t s;
  switch (exchange) {
    case CORE_LAUNCH_ID_PMIX:
      s = core_launch_pmix_share(launch, key, timeout_ms, id);
      break;
    case CORE_LAUNCH_ID_PMI1:
      s = core_launch_pmi1_share(launch, key, call, timeout_ms, id);
      break;
    case CORE_LAUNCH_ID_IN_ENV: /* a later communicator of ncore-run's job */
    case CORE_LAUNCH_ID_TCP:
      s = core_launch_tcp_share(launch, call, timeout_ms, id);
      break;
    default:
      s = core_error(NCORE_ERR_INTERNAL, "no way to share the unique id");
  }
  /* What the exchange recovered from (a stranger's bytes, a store that
   * was not there yet) is not this call's error. */
  if (s == NCORE_OK) core_error_clear();
  if (s == NCORE_OK)
    core_log(CORE_LOG_INFO, "id %s %s through %s", key,
             launch->rank == 0 ? "published" : "received",
             exchange_name(exchange));
  return s;
}
