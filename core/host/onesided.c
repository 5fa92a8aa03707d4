/* core/host — one-sided calls (onesided.h). Signals: a counter per
 * (receiver, sender) in the segment; a signal is a release add, a wait an
 * acquire poll until the count received passes what this rank already
 * consumed. A put into a part this rank maps is a memcpy then the signal;
 * into any other part it travels through the put ring of the pair, and the
 * target lands it and counts the signal (put_ring.c). */
#include "onesided.h"

#include <stdio.h>
#include <string.h>

#include "../error.h"
#include "../error_clear.h"
#include "comm.h"
#include "failure.h"
#include "put_ring.h"
#include "ring.h"
#include "wait.h"


ncore_status_t host_signal(core_backend_comm_t *comm, int peer,
                           ncore_stream_t stream) {
  (void)stream;
  host_comm_t *c = comm;
  ncore_status_t s = host_comm_health(c, 0);
  if (s != NCORE_OK) return s;
  atomic_fetch_add_explicit(host_signal_word(c, peer, c->rank), 1,
                            memory_order_release);
  return NCORE_OK;
}

ncore_status_t host_wait_signal(core_backend_comm_t *comm,
                                const core_wait_t *waits, size_t count,
                                ncore_stream_t stream) {
  (void)stream;
  host_comm_t *c = comm;
  for (size_t i = 0; i < count; i++) {
    int peer = waits[i].peer;
    uint64_t want = c->signals_consumed[peer] + waits[i].op_count;
    _Atomic uint64_t *word = host_signal_word(c, c->rank, peer);
    host_waiter_t w;
    host_waiter_init(&w);
    for (;;) {
      /* Read the count before landing queued puts: a put queued before a
       * signal that this read sees is then landed before we return. */
      uint64_t seen = atomic_load_explicit(word, memory_order_acquire);
      if (host_puts_drain(c) > 0) continue;
      if (seen >= want) break;
      ncore_status_t s = host_waiter_pause(&w, c, "wait_signal from peer %d", peer);
      if (s != NCORE_OK) {
        /* The signal may have come just before the peer failed. */
        host_puts_drain(c);
        if (atomic_load_explicit(word, memory_order_acquire) < want) {
          host_comm_fail_current(c, s);
          return s;
        }
        core_error_clear();  /* that failure did not stop us */
      }
    }
    c->signals_consumed[peer] = want;
  }
  return NCORE_OK;
}

/* Queues bytes for peer's part of w at byte_offset (in pieces, waiting for
 * ring space); the peer lands them when it next waits in ncore
 * (put_ring.c), then counts one signal from this rank if `signal` is set. */
static ncore_status_t put_through_ring(host_comm_t *c, host_window_t *w,
                                       int peer, size_t byte_offset,
                                       const void *buf, size_t bytes,
                                       int signal) {
  host_ring_t *r = host_put_ring_ctl(c, c->rank, peer);
  char *ring = host_put_ring_bytes(c, c->rank, peer);
  const char *src = buf;
  size_t done = 0;
  do {
    size_t n = bytes - done < PUT_PIECE_MAX ? bytes - done : PUT_PIECE_MAX;
    size_t need = sizeof(put_piece_t) + host_ring_padded(n);
    uint64_t head = atomic_load_explicit(&r->head.value, memory_order_relaxed);
    host_waiter_t waiter;
    host_waiter_init(&waiter);
    for (;;) {
      uint64_t used =
          head - atomic_load_explicit(&r->tail.value, memory_order_acquire);
      if (used > HOST_RING_BYTES) {
        host_comm_fail(c, NCORE_ERR_REMOTE, "the put ring to peer %d is "
                       "corrupt (%llu bytes in flight)", peer,
                       (unsigned long long)used);
        return core_error(NCORE_ERR_REMOTE, "%s", host_comm_failure_message(c));
      }
      if (HOST_RING_BYTES - used >= need) break;
      ncore_status_t s = host_waiter_pause(&waiter, c, "put to peer %d", peer);
      if (s != NCORE_OK) {
        host_comm_fail_current(c, s);
        return s;
      }
    }
    put_piece_t piece = {w->seq, byte_offset + done, n,
                         signal && done + n == bytes};
    host_ring_write(ring, head, &piece, sizeof piece);
    if (n) host_ring_write(ring, head + sizeof piece, src + done, n);
    atomic_store_explicit(&r->head.value, head + need, memory_order_release);
    done += n;
  } while (done < bytes);
  return NCORE_OK;
}

/* put_signal: into a mapped part, a memcpy then a release-add of the
 * signal (the data is visible before the signal counts); otherwise through
 * the put ring, landed and counted by the peer. */
ncore_status_t host_put_signal(core_backend_comm_t *comm, const void *buf,
                               size_t bytes, int peer,
                               core_backend_window_t *window,
                               size_t byte_offset, ncore_stream_t stream) {
  (void)stream;
  host_comm_t *c = comm;
  host_window_t *w = window;
  ncore_status_t s = host_comm_health(c, 0);
  if (s != NCORE_OK) return s;
  if (!w->peer_base[peer])
    return put_through_ring(c, w, peer, byte_offset, buf, bytes, 1);
  /* A put to this rank's own part may overlap its source. */
  if (bytes) memmove(w->peer_base[peer] + byte_offset, buf, bytes);
  atomic_fetch_add_explicit(host_signal_word(c, peer, c->rank), 1,
                            memory_order_release);
  return NCORE_OK;
}
