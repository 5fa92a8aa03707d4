/* core/nccl — communicator control (ncore/comm_control.h): properties,
 * revoke, the grow's unique id, suspend and resume, memory statistics.
 * Each call needs the NCCL release that introduced it (nccl_require); the
 * grow itself makes a communicator and lives in comm_create.c. */
#include "comm_control.h"

#include <string.h>

#include "device.h"
#include "properties.h"
#include "wait.h"

ncore_status_t nccl_comm_properties(core_backend_comm_t *comm,
                                    ncore_comm_properties_t *out) {
  nccl_comm_t *c = comm;
  out->n_lsa_teams = c->lsa_size > 0 ? c->nranks / c->lsa_size : 1;
  /* What 2.31's query answers, known before it from the loaded layout. */
  out->dev_comm_runtime_version_size = nccl_layout()->devcomm_size;
  if (nccl_fn.ncclCommQueryProperties != NULL &&
      nccl_layout()->properties_size != 0 && c->stage == NCCL_STAGE_READY) {
    ncore_status_t status = cu_check(cu_fn.CtxSetCurrent(c->ctx),
                                     "cuCtxSetCurrent");
    if (status == NCORE_OK) status = nccl_query_properties(c, out);
    return status;
  }
  /* 2.28 has no query: the device API exists; GIN types are what the
   * latest device communicator reported (NONE before any); multimem only
   * where a device communicator got it; no host RMA beyond the LSA team. */
  out->nvml_device = -1;
  out->device_api_support = 1;
  out->multimem_support = c->multimem_devcomm != NULL;
  out->gin_type = c->gin_type;
  out->railed_gin_type = c->railed_gin_type;
  out->host_rma_support = 0;
  return NCORE_OK;
}

/* The start of every call here: the loaded NCCL has fn (since that
 * version, else NOT_SUPPORTED naming what), and c is live and current. */
static ncore_status_t require_and_enter(nccl_comm_t *c, const void *fn,
                                        int since, const char *what) {
  ncore_status_t status = nccl_require(fn, since, what);
  return status == NCORE_OK ? nccl_comm_enter(c) : status;
}

ncore_status_t nccl_comm_revoke(core_backend_comm_t *comm, uint32_t flags) {
  nccl_comm_t *c = comm;
  ncore_status_t status = require_and_enter(
      c, nccl_fn.ncclCommRevoke, NCORE_NCCL_VERSION(2, 28, 7),
      "ncore_comm_revoke (ncclCommRevoke)");
  if (status != NCORE_OK) return status;
  pthread_mutex_lock(&c->abort_lock);
  ncclResult_t r = nccl_fn.ncclCommRevoke(c->nccl, (int)flags);
  /* An abort after this must not revoke a second time (NCCL refuses it). */
  if (r == ncclSuccess || r == ncclInProgress) c->nccl_aborted = 1;
  pthread_mutex_unlock(&c->abort_lock);
  if (r == ncclInProgress) return NCORE_IN_PROGRESS;
  return nccl_check(r, "ncclCommRevoke", c->nccl);
}

ncore_status_t nccl_comm_get_unique_id(core_backend_comm_t *comm,
                                       ncore_unique_id_t *out) {
  nccl_comm_t *c = comm;
  ncore_status_t status = require_and_enter(
      c, nccl_fn.ncclCommGetUniqueId, NCORE_NCCL_VERSION(2, 29, 2),
      "ncore_comm_get_unique_id (ncclCommGetUniqueId)");
  if (status != NCORE_OK) return status;
  ncclUniqueId id;
  status = nccl_check(nccl_fn.ncclCommGetUniqueId(c->nccl, &id),
                      "ncclCommGetUniqueId", c->nccl);
  if (status == NCORE_OK) memcpy(out, &id, sizeof id);
  return status;
}

ncore_status_t nccl_comm_suspend(core_backend_comm_t *comm, uint32_t flags) {
  nccl_comm_t *c = comm;
  ncore_status_t status = require_and_enter(
      c, nccl_fn.ncclCommSuspend, NCORE_NCCL_VERSION(2, 29, 7),
      "ncore_comm_suspend (ncclCommSuspend)");
  if (status != NCORE_OK) return status;
  return nccl_settle(nccl_fn.ncclCommSuspend(c->nccl, (int)flags), c,
                     "ncclCommSuspend");
}

ncore_status_t nccl_comm_resume(core_backend_comm_t *comm) {
  nccl_comm_t *c = comm;
  ncore_status_t status = require_and_enter(
      c, nccl_fn.ncclCommResume, NCORE_NCCL_VERSION(2, 29, 7),
      "ncore_comm_resume (ncclCommResume)");
  if (status != NCORE_OK) return status;
  return nccl_settle(nccl_fn.ncclCommResume(c->nccl), c, "ncclCommResume");
}

ncore_status_t nccl_comm_mem_stat(core_backend_comm_t *comm,
                                  ncore_comm_mem_stat_t stat, uint64_t *out) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_require(
      nccl_fn.ncclCommMemStats, NCORE_NCCL_VERSION(2, 29, 7),
      "ncore_comm_mem_stat (ncclCommMemStats)");
  if (status != NCORE_OK) return status;
  /* ncore_comm_mem_stat_t's values are ncclCommMemStat_t's. */
  return nccl_check(nccl_fn.ncclCommMemStats(c->nccl, (int)stat, out),
                    "ncclCommMemStats", c->nccl);
}
