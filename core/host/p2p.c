/* core/host — point-to-point messages through the SPSC byte ring of each
 * ordered pair: an 8-byte header (byte length) then the payload padded to 8
 * bytes, streamed in pieces as space frees up; or, for a large message whose
 * buffer the receiver can read, the header flagged HOST_DIRECT_FLAG and a
 * one-copy offer (p2p_direct.c). Data path: memcpy + atomics. */
#include <stdio.h>
#include <string.h>
#include "p2p.h"

#include "../dtype.h"
#include "../error.h"
#include "failure.h"
#include "group.h"
#include "p2p_direct.h"
#include "ring.h"
#include "wait.h"

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

/* Bytes of a message's header in the ring: its length word (with the
 * flags) and its tag, written last. */
#define MSG_HEADER 16u
#define LENGTH_FLAGS (HOST_DIRECT_FLAG | HOST_WHOLE_FLAG)

/* The tag of a header at stream position pos. The receiver of a small
 * message polls the tag where the next header will be, not the ring's
 * head: the message's own cache line, which the sender writes last, is the
 * only one that moves (the head's line does not bounce per message). The
 * key (secret to the communicator) makes sure no payload left in the ring
 * from an earlier lap can pass for a tag. */
static uint64_t header_tag(const host_comm_t *c, uint64_t pos) {
  return (pos + 1) ^ c->ring_key;
}

static _Atomic uint64_t *tag_word(const char *ring, uint64_t pos) {
  /* pos is 8-aligned: the word never wraps. */
  return (_Atomic uint64_t *)(uintptr_t)(ring + ((pos + 8) & (HOST_RING_BYTES - 1)));
}

/* Free bytes of the sender's ring, from the tail it saw last; the tail is
 * read again (a cache miss: the receiver writes it) only when `want` does
 * not fit (or the view is impossible). *tail_out gets the tail used; the
 * caller checks it. */
static size_t send_space(host_op_t *op, host_ring_t *r, uint64_t head,
                         size_t want, uint64_t *tail_out) {
  host_comm_t *c = op->comm;
  uint64_t tail = c->tails_seen[op->peer];
  if (head - tail > HOST_RING_BYTES || HOST_RING_BYTES - (head - tail) < want) {
    tail = atomic_load_explicit(&r->tail.value, memory_order_acquire);
    if (head - tail <= HOST_RING_BYTES) c->tails_seen[op->peer] = tail;
  }
  *tail_out = tail;
  return head - tail > HOST_RING_BYTES ? 0 : HOST_RING_BYTES - (size_t)(head - tail);
}

/* Sender side: header first (with a one-copy offer, then wait until the
 * receiver copied or refused it; or with the whole payload when it fits
 * at once), then as much payload as fits. */
static int send_progress(host_op_t *op) {
  host_comm_t *c = op->comm;
  /* Messages to one peer go through the ring one after another. */
  if (c->send_owner[op->peer] && c->send_owner[op->peer] != op) return 0;
  c->send_owner[op->peer] = op;
  if (op->direct_pending) {
    int sent = host_direct_sent(op);
    if (sent == 0) return 0;
    if (sent > 0) {
      host_op_release(op);
      return 1;
    }
    /* Refused: the payload follows the header in the ring after all. */
  }
  host_ring_t *r = host_ring_ctl(c, c->rank, op->peer);
  char *ring = host_ring_bytes(c, c->rank, op->peer);
  uint64_t head = atomic_load_explicit(&r->head.value, memory_order_relaxed);
  size_t total = host_ring_padded(op->bytes);
  size_t want = (op->header_done ? 0 : MSG_HEADER) +
                (op->direct && !op->header_done ? sizeof op->direct_desc
                                                : total - op->done);
  uint64_t tail;
  size_t space = send_space(op, r, head, want, &tail);
  if (head - tail > HOST_RING_BYTES) return corrupt_ring(op, head, tail);
  int moved = 0;
  if (!op->header_done) {
    size_t need = MSG_HEADER + (op->direct ? sizeof op->direct_desc : 0);
    if (space < need) return 0;
    int whole = !op->direct && space >= MSG_HEADER + total;
    uint64_t len = op->bytes | (op->direct ? HOST_DIRECT_FLAG : 0) |
                   (whole ? HOST_WHOLE_FLAG : 0);
    if (op->direct)
      host_ring_write(ring, head + MSG_HEADER, &op->direct_desc,
                      sizeof op->direct_desc);
    else if (whole && op->bytes)
      host_ring_write(ring, head + MSG_HEADER, op->buf, op->bytes);
    host_ring_write(ring, head, &len, 8);
    op->header_done = 1;
    if (op->direct) host_direct_publish(op);
    /* The head before the tag: a receiver that took a whole message by its
     * tag never sees a head behind its tail. */
    uint64_t end = head + (op->direct ? need : whole ? MSG_HEADER + total : MSG_HEADER);
    atomic_store_explicit(&r->head.value, end, memory_order_release);
    atomic_store_explicit(tag_word(ring, head), header_tag(c, head),
                          memory_order_release);
    if (op->direct) return 2;
    if (whole) {
      host_op_release(op);
      return 1;
    }
    head = end;
    space -= MSG_HEADER;
    moved = 1;
  }
  size_t n = total - op->done < space ? total - op->done : space;
  if (n > 0) {
    size_t real = op->done < op->bytes ? op->bytes - op->done : 0;
    if (real > n) real = n;
    if (real) host_ring_write(ring, head, op->buf + op->done, real);
    head += n;
    op->done += n;
    moved = 1;
    atomic_store_explicit(&r->head.value, head, memory_order_release);
  }
  if (op->done == total) {
    host_op_release(op);
    return 1;
  }
  return moved ? 2 : 0;
}

/* Receiver side: a whole small message found by its tag alone; else the
 * header (size check) once the head shows it, then whatever payload has
 * arrived. */
static int recv_progress(host_op_t *op) {
  host_comm_t *c = op->comm;
  if (c->recv_owner[op->peer] && c->recv_owner[op->peer] != op) return 0;
  c->recv_owner[op->peer] = op;
  host_ring_t *r = host_ring_ctl(c, op->peer, c->rank);
  const char *ring = host_ring_bytes(c, op->peer, c->rank);
  uint64_t tail = atomic_load_explicit(&r->tail.value, memory_order_relaxed);
  uint64_t len = 0;
  int whole_by_tag = 0;
  if (!op->header_done &&
      atomic_load_explicit(tag_word(ring, tail), memory_order_acquire) ==
          header_tag(c, tail)) {
    host_ring_read(ring, tail, &len, 8);
    whole_by_tag = (len & HOST_WHOLE_FLAG) != 0;
  }
  uint64_t head = tail;
  size_t avail = 0;
  if (!whole_by_tag) {
    head = atomic_load_explicit(&r->head.value, memory_order_acquire);
    if (head - tail > HOST_RING_BYTES) return corrupt_ring(op, head, tail);
    avail = (size_t)(head - tail);
  }
  int moved = 0;
  if (!op->header_done) {
    if (!whole_by_tag && avail < MSG_HEADER) return 0;
    if (!whole_by_tag) host_ring_read(ring, tail, &len, 8);
    int direct = (len & HOST_DIRECT_FLAG) != 0, whole = (len & HOST_WHOLE_FLAG) != 0;
    len &= ~LENGTH_FLAGS;
    if (len != op->bytes) {
      op->status = core_error(NCORE_ERR_INVALID_USAGE,
                              "count: recv of %zu bytes from peer %d matched a "
                              "send of %llu bytes",
                              op->bytes, op->peer, (unsigned long long)len);
      host_op_release(op);
      return -1;
    }
    if (direct) {
      /* The sender wrote the offer with its header, in one step. */
      host_direct_desc_t d;
      if (avail < MSG_HEADER + sizeof d) return corrupt_ring(op, head, tail);
      host_ring_read(ring, tail + MSG_HEADER, &d, sizeof d);
      atomic_store_explicit(&r->tail.value, tail + MSG_HEADER + sizeof d,
                            memory_order_release);
      op->header_done = 1;
      int got = host_direct_receive(op, &d);
      if (got > 0) host_op_release(op);
      return got != 0 ? got : 2;  /* refused: the payload follows */
    }
    tail += MSG_HEADER;
    op->header_done = 1;
    moved = 1;
    /* A whole message: its payload was written before its tag, and a
     * sender writes one whole only when it fits the ring. */
    if (whole) {
      if (host_ring_padded(op->bytes) > HOST_RING_BYTES - MSG_HEADER)
        return corrupt_ring(op, head, tail);
      avail = MSG_HEADER + host_ring_padded(op->bytes);
    }
    avail -= MSG_HEADER;
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
  op->direct = host_direct_offer(op);
  if (op->direct) op->withdraw = host_direct_withdraw;
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

/* A send or receive of count elements, run now or queued in the group. */
static ncore_status_t submit(host_comm_t *c, int receive, void *buf,
                             size_t count, ncore_dtype_t dtype, int peer) {
  /* Fails fast on an aborted communicator before queueing anything. */
  ncore_status_t s = host_comm_health(c, 0);
  if (s != NCORE_OK) return s;
  host_op_t op;
  size_t bytes = count * core_dtype_size(dtype);
  if (receive) host_p2p_init_recv(&op, c, buf, bytes, peer);
  else host_p2p_init_send(&op, c, buf, bytes, peer);
  return host_submit(&op);
}

ncore_status_t host_send(core_backend_comm_t *comm, const void *buf,
                         size_t count, ncore_dtype_t dtype, int peer,
                         ncore_stream_t stream) {
  (void)stream;
  return submit(comm, 0, (void *)buf, count, dtype, peer);
}

ncore_status_t host_recv(core_backend_comm_t *comm, void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream) {
  (void)stream;
  return submit(comm, 1, buf, count, dtype, peer);
}
