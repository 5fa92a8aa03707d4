/* core/host — finalize, abort, destroy, forget, synchronize
 * (comm_lifecycle.h). */
#include "comm_lifecycle.h"

#include "comm.h"
#include "exchange.h"
#include "segment.h"

ncore_status_t host_comm_finalize(core_backend_comm_t *comm) {
  host_comm_t *c = comm;
  ncore_status_t s = host_barrier(c);
  c->finalized = 1;
  return s;
}

void host_comm_abort_signal(core_backend_comm_t *comm) {
  host_comm_t *c = comm;
  /* The core marked c->state aborted (every wait sees it); the peers learn
   * it from this rank's slot. A forked child's copy speaks for nobody: its
   * parent is still the rank. */
  if (!atomic_load(&c->forked))
    atomic_store(&host_rank_slot(c, c->rank)->aborted, 1);
}

void host_comm_destroy(core_backend_comm_t *comm, int aborted) {
  host_comm_t *c = comm;
  /* An aborted rank already says so through its slot; a destroyed one
   * says it left, so that peers still finishing do not think it died. */
  if (!aborted && !atomic_load(&c->forked))
    atomic_store(&host_rank_slot(c, c->rank)->left, 1);
  host_segment_leave(c);
}

void host_comm_forget(core_backend_comm_t *comm) {
  host_comm_t *c = comm;
  /* The copy is marked forked (liveness.c's fork handler): leaving tells
   * the peers nothing and only unmaps this process's view. */
  atomic_store(&c->forked, 1);
  host_segment_leave(c);
}

ncore_status_t host_comm_synchronize(core_backend_comm_t *comm,
                                     ncore_stream_t stream,
                                     int64_t timeout_ms) {
  (void)stream;     /* host operations complete before they return */
  (void)timeout_ms;
  /* What an operation recorded as the communicator's failure answers in
   * the core (core_comm_usable) before this runs; a peer that died after
   * the last operation completed has cost this rank nothing yet. */
  (void)comm;
  return NCORE_OK;
}
