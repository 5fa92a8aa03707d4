/* core/host — an operation (a send, a receive, a collective) as a
 * non-blocking state machine: p2p.c and coll.c make them, group.c runs
 * them (alone, or every op a thread queued in a group). */
#ifndef NCORE_CORE_HOST_OP_H
#define NCORE_CORE_HOST_OP_H

#include <stddef.h>
#include <stdint.h>
#include "comm.h"
#include "local_offers.h"

typedef struct host_op host_op_t;
/* Advances op; returns 1 when done, 0 when it must wait, or a negative
 * value after recording an error with core_error (status in op->status). */
typedef int (*host_progress_fn)(host_op_t *op);
struct host_op {
  host_progress_fn progress;
  /* What giving the op up does, when it is more than letting go of what it
   * holds: a send's open one-copy offer is taken back (p2p_direct.c); a
   * collective step is abandoned unless it must be finished (coll.c:
   * returns 0 then, 1 when it may be given up). NULL when nothing. */
  void (*withdraw)(host_op_t *op);
  int (*abandon)(host_op_t *op, ncore_status_t status);
  host_comm_t *comm;
  ncore_status_t status;
  /* What the op is, for messages: a format with at most one %d, the peer
   * (host_op_what formats it only when a message needs it). */
  const char *what;
  /* p2p */
  int peer;
  char *buf;
  size_t bytes, done;
  int header_done;
  /* one-copy path (p2p_direct.c): a send that offers its buffer, and
   * whether its offer is out and not yet finished or refused */
  int direct, direct_pending;
  host_direct_desc_t direct_desc;
  host_local_offer_t local_offer;  /* listed while a same-process offer is out */
  /* collectives */
  core_coll_args_t coll;
  size_t esize, chunk_elems, chunk_off; /* in elements */
  int phase;
  uint64_t step;
  host_op_t *next;
};

/* op->what with its peer filled in, into buf. */
const char *host_op_what(const host_op_t *op, char *buf, size_t size);
/* Lets go of whatever ring or staging op holds (done or failed), after
 * taking back an open one-copy offer (op->withdraw). */
void host_op_release(host_op_t *op);

#endif
