/* core — ncore_send / ncore_recv: checks, then dispatch (ncore/p2p.h). */
#include "comm_call.h"
#include "error.h"
#include "group.h"
#include "validate.h"

/* Shared body: direction 0 = send, 1 = recv. Inlined into each entry
 * point, where receive is a constant. */
static inline __attribute__((always_inline)) ncore_status_t point_to_point(
    int receive, ncore_comm_t comm, void *buf, size_t count,
    ncore_dtype_t dtype, int peer, ncore_stream_t stream) {
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  size_t elements = 0;
  if ((status = core_check_dtype((int)dtype, "dtype")) == NCORE_OK &&
      (status = core_check_elements(count, 1, dtype, "count", &elements)) ==
          NCORE_OK &&
      (status = core_check_buffer(buf, count, "buf")) == NCORE_OK &&
      (status = core_check_range(peer, c->info.nranks, "peer")) == NCORE_OK &&
      (status = core_check_comm_stream(c->ops, c->impl, stream)) == NCORE_OK &&
      (status = core_group_join(c->ops, (core_object_t *[]){&c->header}, 1)) ==
          NCORE_OK) {
    status = receive ? c->ops->recv(c->impl, buf, count, dtype, peer, stream)
                     : c->ops->send(c->impl, buf, count, dtype, peer, stream);
  }
  return core_comm_finish(c, status);
}

NCORE_API ncore_status_t ncore_send(ncore_comm_t comm, const void *buf,
                                    size_t count, ncore_dtype_t dtype, int peer,
                                    ncore_stream_t stream) {
  CORE_ENTER("ncore_send");
  return point_to_point(0, comm, (void *)buf, count, dtype, peer, stream);
}

NCORE_API ncore_status_t ncore_recv(ncore_comm_t comm, void *buf, size_t count,
                                    ncore_dtype_t dtype, int peer,
                                    ncore_stream_t stream) {
  CORE_ENTER("ncore_recv");
  return point_to_point(1, comm, buf, count, dtype, peer, stream);
}
