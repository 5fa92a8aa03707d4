/* core/host — one-sided puts into window parts this rank cannot map (plain
 * malloc or numpy memory of another process). The data travels through the
 * put ring of the ordered pair as pieces {header, payload}; the target lands
 * each piece in its part whenever it waits inside ncore (every wait loop
 * drains), and counts the signal only once the last piece has landed, so a
 * wait_signal that returns always sees the data. */
#include "put_ring.h"

#include <stdio.h>
#include <string.h>

#include "failure.h"
#include "ring.h"

static host_window_t *find_window(host_comm_t *c, uint64_t seq) {
  for (host_window_t *w = c->windows; w; w = w->next)
    if (w->seq == seq) return w;
  return NULL;
}

/* Stops landing from a ring whose contents no ncore rank can have written,
 * and fails the communicator: whatever follows cannot be trusted. */
static void corrupt_piece(host_comm_t *c, int peer, host_ring_t *r,
                          uint64_t head, const char *what,
                          const put_piece_t *piece) {
  atomic_store_explicit(&r->tail.value, head, memory_order_release);
  host_comm_fail(c, NCORE_ERR_REMOTE,
                 "peer %d sent a corrupt put (%s: window %llu, offset %llu, "
                 "%llu bytes)", peer, what,
                 (unsigned long long)piece->window_seq,
                 (unsigned long long)piece->offset,
                 (unsigned long long)piece->bytes);
}

/* Lands the pieces peer queued; returns how many. */
static int drain_peer(host_comm_t *c, int peer) {
  host_ring_t *r = host_put_ring_ctl(c, peer, c->rank);
  const char *ring = host_put_ring_bytes(c, peer, c->rank);
  uint64_t tail = atomic_load_explicit(&r->tail.value, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&r->head.value, memory_order_acquire);
  int landed = 0;
  while (tail != head) {
    put_piece_t piece = {0, 0, 0, 0};
    uint64_t avail = head - tail;
    if (avail > HOST_RING_BYTES || avail < sizeof piece) {
      corrupt_piece(c, peer, r, head, "its ring's counters are off", &piece);
      return landed;
    }
    host_ring_read(ring, tail, &piece, sizeof piece);
    /* A sender writes whole pieces of at most PUT_PIECE_MAX bytes. */
    if (piece.bytes > PUT_PIECE_MAX ||
        sizeof piece + host_ring_padded(piece.bytes) > avail) {
      corrupt_piece(c, peer, r, head, "larger than its ring holds", &piece);
      return landed;
    }
    host_window_t *w = find_window(c, piece.window_seq);
    /* A window closed meanwhile drops the data (the user broke the
     * collective order); the signal still counts so nobody hangs. A piece
     * outside its window was not checked by an ncore sender. */
    if (w && (piece.offset > w->local_size ||
              piece.bytes > w->local_size - piece.offset)) {
      corrupt_piece(c, peer, r, head, "outside the window", &piece);
      return landed;
    }
    if (w && piece.bytes)
      host_ring_read(ring, tail + sizeof piece, w->local + piece.offset,
                     piece.bytes);
    tail += sizeof piece + host_ring_padded(piece.bytes);
    atomic_store_explicit(&r->tail.value, tail, memory_order_release);
    if (piece.signal)
      atomic_fetch_add_explicit(host_signal_word(c, c->rank, peer), 1,
                                memory_order_release);
    landed++;
  }
  return landed;
}

int host_puts_drain_locked(host_comm_t *c) {
  /* A forked child's copy must not take what its parent is owed. */
  if (atomic_load(&c->forked)) return 0;
  int landed = 0;
  for (int peer = 0; peer < c->nranks; peer++)
    if (peer != c->rank) landed += drain_peer(c, peer);
  return landed;
}

/* 1 if some peer queued a put for this rank: lets every poll of a wait
 * skip the lock while there is nothing to land (the common case). */
static int puts_pending(host_comm_t *c) {
  for (int peer = 0; peer < c->nranks; peer++) {
    if (peer == c->rank) continue;
    host_ring_t *r = host_put_ring_ctl(c, peer, c->rank);
    if (atomic_load_explicit(&r->head.value, memory_order_acquire) !=
        atomic_load_explicit(&r->tail.value, memory_order_relaxed))
      return 1;
  }
  return 0;
}

int host_puts_drain(host_comm_t *c) {
  if (!puts_pending(c)) return 0;
  /* Another thread landing (or this thread, re-entered) does the work. */
  if (pthread_mutex_trylock(&c->windows_lock) != 0) return 0;
  int landed = host_puts_drain_locked(c);
  pthread_mutex_unlock(&c->windows_lock);
  return landed;
}
