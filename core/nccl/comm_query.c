/* core/nccl — communicator queries (comm_query.h). */
#include "comm_query.h"

#include "comm_setup.h"
#include "liveness.h"
#include "wait.h"

void nccl_comm_info(core_backend_comm_t *comm, core_comm_info_t *out) {
  nccl_comm_t *c = comm;
  out->rank = c->rank;
  out->nranks = c->nranks;
  out->device = c->device;
  out->lsa_rank = c->lsa_rank;
  out->lsa_size = c->lsa_size;
}

ncore_status_t nccl_comm_async_error(core_backend_comm_t *comm,
                                     ncore_status_t *out) {
  nccl_comm_t *c = comm;
  ncore_status_t failed = core_comm_state_failed(c->state);
  if (failed != NCORE_OK) {
    *out = failed;
    return NCORE_OK;
  }
  if (c->stage != NCCL_STAGE_READY) return nccl_comm_advance_setup(c, out);
  ncclResult_t state = ncclSuccess;
  ncore_status_t status = nccl_check(
      nccl_fn.ncclCommGetAsyncError(c->nccl, &state), "ncclCommGetAsyncError",
      c->nccl);
  if (status != NCORE_OK) return status;
  *out = nccl_status_of(state);
  if (state == ncclSuccess && !core_comm_state_aborted(c->state)) {
    /* Pollers of the asynchronous error (NCCL's way to wait) learn of a
     * dead or aborted peer too; the check runs at most every 100 ms. */
    ncore_status_t peers = nccl_liveness_check(c, nccl_now_ms());
    if (peers != NCORE_OK) {
      nccl_comm_fail(c, peers);
      *out = peers;
    }
  }
  if (state != ncclInProgress) atomic_store(&c->in_progress, 0);
  return NCORE_OK;
}
