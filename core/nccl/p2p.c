/* core/nccl — send and recv (p2p.h): direct NCCL calls (ncore's dtype
 * values equal NCCL's), a buffer in a window passed as its alias
 * (window_alias.h: NCCL would count it as registered). */
#include "p2p.h"

#include "../dtype.h"
#include "../wait_watch.h"
#include "wait.h"
#include "window_alias.h"
#include "../hot_path.h"

/* Send, recv and the collectives do not make the communicator's context
 * current (nccl_comm_enter): NCCL switches to the communicator's device
 * itself when it enqueues and launches, as a caller of raw NCCL relies on,
 * and the stream check has already tied the stream to that device. That
 * keeps every driver call off the path; the thread's current
 * device stays what the caller had, as with raw NCCL. */
CORE_HOT ncore_status_t nccl_send(core_backend_comm_t *comm, const void *buf,
                         size_t count, ncore_dtype_t dtype, int peer,
                         ncore_stream_t stream) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_check_live(c);
  if (status != NCORE_OK) return status;
  buf = nccl_p2p_address(c, buf, count * core_dtype_size(dtype));
  core_wait_watch_t *watched =
      core_wait_watch_enter("NCCL's ncclSend", peer, c->rank, c->nranks);
  ncclResult_t r = nccl_fn.p2p_send(buf, count, (ncclDataType_t)dtype, peer,
                                    c->nccl, (cudaStream_t)stream);
  core_wait_watch_leave(watched);
  return nccl_enqueued(c, r, "ncclSend");
}

CORE_HOT ncore_status_t nccl_recv(core_backend_comm_t *comm, void *buf,
                                  size_t count, ncore_dtype_t dtype, int peer,
                                  ncore_stream_t stream) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_check_live(c);
  if (status != NCORE_OK) return status;
  buf = (void *)nccl_p2p_address(c, buf, count * core_dtype_size(dtype));
  core_wait_watch_t *watched =
      core_wait_watch_enter("NCCL's ncclRecv", peer, c->rank, c->nranks);
  ncclResult_t r = nccl_fn.p2p_recv(buf, count, (ncclDataType_t)dtype, peer,
                                    c->nccl, (cudaStream_t)stream);
  core_wait_watch_leave(watched);
  return nccl_enqueued(c, r, "ncclRecv");
}
