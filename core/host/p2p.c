/* core/host — point-to-point messages through the SPSC byte ring of each
 * ordered pair: an 8-byte header (byte length) then the payload padded to 8
 * bytes, streamed in pieces as space frees up. Data path: memcpy + atomics. */
#include <stdio.h>
#include <string.h>
#include "../error.h"
#include "host.h"

/* A ring's counters that no ncore rank can have written (more bytes in
 * flight than the ring holds): the peer's memory is corrupt. */
static int corrupt_ring(host_op_t *op, uint64_t head, uint64_t tail) {
  char what[64];
  op->status = core_error(NCORE_ERR_REMOTE,
                          "%s: the ring's counters are corrupt (head %llu, "
                          "tail %llu)", host_op_what(op, what, sizeof what),
                          (unsigned long long)head,
                          (unsigned long long)tail);
  /* Only this rank can see it: the others must hear of it. */
  host_comm_fail(op->comm, NCORE_ERR_REMOTE, "%s", ncore_last_error_message());
  host_op_release(op);
  return -1;
}

/* Sender side: header first, then as much payload as fits. */
static int send_progress(host_op_t *op) {
  host_comm_t *c = op->comm;
  host_ring_t *r = host_ring_ctl(c, c->rank, op->peer);
  char *ring = host_ring_bytes(c, c->rank, op->peer);
  uint64_t head = atomic_load_explicit(&r->head.value, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&r->tail.value, memory_order_acquire);
  if (head - tail > HOST_RING_BYTES) return corrupt_ring(op, head, tail);
  size_t space = HOST_RING_BYTES - (size_t)(head - tail);
  int moved = 0;
  /* Messages to one peer go through the ring one after another. */
  if (c->send_owner[op->peer] && c->send_owner[op->peer] != op) return 0;
  c->send_owner[op->peer] = op;
  if (!op->header_done) {
    if (space < 8) return 0;
    uint64_t len = op->bytes;
    host_ring_write(ring, head, &len, 8);
    head += 8;
    space -= 8;
    op->header_done = 1;
    moved = 1;
  }
  size_t total = host_ring_padded(op->bytes);
  size_t n = total - op->done < space ? total - op->done : space;
  if (n > 0) {
    size_t real = op->done < op->bytes ? op->bytes - op->done : 0;
    if (real > n) real = n;
    if (real) host_ring_write(ring, head, op->buf + op->done, real);
    head += n;
    op->done += n;
    moved = 1;
  }
  if (moved) atomic_store_explicit(&r->head.value, head, memory_order_release);
  if (op->done == total) {
    host_op_release(op);
    return 1;
  }
  return moved ? 2 : 0;
}

/* Receiver side: header (size check), then whatever payload has arrived. */
static int recv_progress(host_op_t *op) {
  host_comm_t *c = op->comm;
  host_ring_t *r = host_ring_ctl(c, op->peer, c->rank);
  const char *ring = host_ring_bytes(c, op->peer, c->rank);
  uint64_t tail = atomic_load_explicit(&r->tail.value, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&r->head.value, memory_order_acquire);
  if (head - tail > HOST_RING_BYTES) return corrupt_ring(op, head, tail);
  size_t avail = (size_t)(head - tail);
  int moved = 0;
  if (c->recv_owner[op->peer] && c->recv_owner[op->peer] != op) return 0;
  c->recv_owner[op->peer] = op;
  if (!op->header_done) {
    if (avail < 8) return 0;
    uint64_t len;
    host_ring_read(ring, tail, &len, 8);
    if (len != op->bytes) {
      op->status = core_error(NCORE_ERR_INVALID_USAGE,
                              "count: recv of %zu bytes from peer %d matched a "
                              "send of %llu bytes",
                              op->bytes, op->peer, (unsigned long long)len);
      host_op_release(op);
      return -1;
    }
    tail += 8;
    avail -= 8;
    op->header_done = 1;
    moved = 1;
  }
  size_t total = host_ring_padded(op->bytes);
  size_t n = total - op->done < avail ? total - op->done : avail;
  if (n > 0) {
    size_t real = op->done < op->bytes ? op->bytes - op->done : 0;
    if (real > n) real = n;
    if (real) host_ring_read(ring, tail, op->buf + op->done, real);
    tail += n;
    op->done += n;
    moved = 1;
  }
  if (moved) atomic_store_explicit(&r->tail.value, tail, memory_order_release);
  if (op->done == total) {
    host_op_release(op);
    return 1;
  }
  return moved ? 2 : 0;
}

void host_p2p_init_send(host_op_t *op, host_comm_t *comm, const void *buf,
                        size_t bytes, int peer) {
  memset(op, 0, sizeof *op);
  op->progress = send_progress;
  op->comm = comm;
  op->buf = (char *)buf;
  op->bytes = bytes;
  op->peer = peer;
  op->what = "send to peer %d";
}

void host_p2p_init_recv(host_op_t *op, host_comm_t *comm, void *buf,
                        size_t bytes, int peer) {
  memset(op, 0, sizeof *op);
  op->progress = recv_progress;
  op->comm = comm;
  op->buf = buf;
  op->bytes = bytes;
  op->peer = peer;
  op->what = "recv from peer %d";
}

const char *host_op_what(const host_op_t *op, char *buf, size_t size) {
  snprintf(buf, size, op->what, op->peer);
  return buf;
}

void host_op_release(host_op_t *op) {
  host_comm_t *c = op->comm;
  if (c->coll_owner == op) c->coll_owner = NULL;
  for (int r = 0; r < c->nranks; r++) {
    if (c->send_owner[r] == op) c->send_owner[r] = NULL;
    if (c->recv_owner[r] == op) c->recv_owner[r] = NULL;
  }
}
