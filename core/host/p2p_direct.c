/* core/host — the one-copy path of send/recv: a large message whose send
 * buffer the receiver may read is not streamed through the ring. The
 * sender offers its buffer (a descriptor in the ring, then the pair's offer
 * word), the receiver claims the offer, copies straight from the sender's
 * buffer into its own and marks it done; only then does the send return.
 *
 * What the receiver may read, and for how long (the trust model:
 * docs/reliability.md):
 *  - a rank of its own process: the buffer of the send, found in this
 *    process's own list of offers (local_offers.c), while the send runs;
 *  - a rank of another process: the pages of a buffer the sender
 *    registered with the communicator (ncore_register_buffer) in an
 *    ncore_mem_alloc allocation, mapped read-only (registered_buffer.c says why
 *    registration is the consent). Nothing else: a send from unregistered
 *    memory streams through the ring, so its receiver never maps a page of
 *    it.
 * Every descriptor is a peer's claim and is checked before anything is
 * read: a corrupt one fails the communicator with NCORE_ERR_REMOTE naming
 * the peer, as a corrupt put does.
 *
 * Why the receiver copies (pull) rather than the sender (push): the only
 * memory written is the receiver's own, by the receiver, inside its recv
 * call. A rank that gives up (timeout, abort, a dead peer) and returns can
 * never have its memory written afterwards. A sender that gives up
 * withdraws its offer with one compare-and-swap; if the receiver is
 * copying at that moment, the receiver reports the message lost
 * (NCORE_ERR_REMOTE), never data the sender may have changed since — and a
 * sender of this process waits until the copy is over before it returns,
 * because its caller may free the buffer the receiver reads (a
 * receiver of the same process died reading freed memory). A receiver of
 * another process reads its own mapping of the memfd, which no free in the
 * sender can take away. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "p2p_direct.h"

#include "../error.h"
#include "failure.h"
#include "local_offers.h"
#include "memory.h"
#include "registered_buffer.h"

/* The offer word's states (low 3 bits; the message's sequence above).
 * ABANDONED: withdrawn while the receiver was copying; RELEASED: the
 * receiver has stopped reading an abandoned offer. */
enum {
  OFFERED = 1,
  CLAIMED = 2,
  DONE = 3,
  REFUSED = 4,
  WITHDRAWN = 5,
  ABANDONED = 6,
  RELEASED = 7
};
#define STATE_BITS 3u
#define STATE_MASK ((UINT64_C(1) << STATE_BITS) - 1)

static uint64_t word_of(uint64_t seq, unsigned state) {
  return seq << STATE_BITS | state;
}

int host_direct_offer(host_op_t *op) {
  host_comm_t *c = op->comm;
  if (op->bytes < HOST_DIRECT_MIN) return 0;
  host_direct_desc_t *d = &op->direct_desc;
  memset(d, 0, sizeof *d);
  int64_t peer_pid = atomic_load_explicit(&host_rank_slot(c, op->peer)->pid,
                                          memory_order_relaxed);
  d->pid = (int64_t)getpid();
  if (peer_pid == d->pid) {
    /* A rank of this process (ncore_comm_init_all): the receiver finds the
     * buffer in the process's list, not in the descriptor. */
    d->fd = -1;
  } else {
    host_allocation_t a;
    if (host_memory_lookup(op->buf, &a) != 0 || op->bytes > a.mapped - a.offset ||
        !host_registered_span(c, op->buf, op->bytes, &a, &d->span, &d->span_size))
      return 0;
    d->fd = a.fd;
    d->ino = a.ino;
    d->where = a.offset;
  }
  d->seq = ++c->offers_made[op->peer];
  return 1;
}

void host_direct_publish(host_op_t *op) {
  host_comm_t *c = op->comm;
  if (op->direct_desc.fd < 0) {
    op->local_offer = (host_local_offer_t){c->segment_ino, c->rank, op->peer,
                                           op->direct_desc.seq, op->buf,
                                           op->bytes, NULL};
    host_local_offer_add(&op->local_offer);
  }
  atomic_store_explicit(host_offer_word(c, c->rank, op->peer),
                        word_of(op->direct_desc.seq, OFFERED), memory_order_release);
  op->direct_pending = 1;
}

int host_direct_sent(host_op_t *op) {
  uint64_t w = atomic_load_explicit(
      host_offer_word(op->comm, op->comm->rank, op->peer), memory_order_acquire);
  if (w == word_of(op->direct_desc.seq, DONE)) {
    host_direct_withdraw(op);  /* unlists a same-process offer */
    return 1;
  }
  if (w == word_of(op->direct_desc.seq, REFUSED)) {
    host_direct_withdraw(op);
    return -1;
  }
  return 0;
}

void host_direct_withdraw(host_op_t *op) {
  if (!op->direct_pending) return;
  op->direct_pending = 0;
  _Atomic uint64_t *word = host_offer_word(op->comm, op->comm->rank, op->peer);
  uint64_t seq = op->direct_desc.seq;
  uint64_t seen = atomic_load_explicit(word, memory_order_acquire);
  /* Until the receiver finished or refused, the offer is taken back; a
   * receiver copying meanwhile sees that when it ends its copy. */
  for (;;) {
    uint64_t next;
    if (seen == word_of(seq, OFFERED)) next = word_of(seq, WITHDRAWN);
    else if (seen == word_of(seq, CLAIMED)) next = word_of(seq, ABANDONED);
    else break;
    if (atomic_compare_exchange_weak(word, &seen, next)) {
      seen = next;
      break;
    }
  }
  if (op->direct_desc.fd >= 0) return;
  /* A receiver of this process reads the caller's buffer itself: the
   * caller may free it once we return, so wait until the copy is over
   * (it is a memcpy that has begun; nothing it waits for is ours). Then
   * nobody can find the offer any more. */
  while (seen == word_of(seq, ABANDONED)) {
    sched_yield();
    seen = atomic_load_explicit(word, memory_order_acquire);
  }
  host_local_offer_remove(&op->local_offer);
}

/* ---- receiver side ---- */

void host_direct_maps_free(host_comm_t *c) {
  if (!c->peer_maps) return;
  for (size_t i = 0; i < (size_t)c->nranks * HOST_PEER_MAPS; i++)
    if (c->peer_maps[i].base)
      munmap(c->peer_maps[i].base, c->peer_maps[i].span_size);
  free(c->peer_maps);
  c->peer_maps = NULL;
}

/* 1 if the descriptor of a peer of another process describes what a
 * sender offers: its own process (not ours), a span of whole pages holding
 * the message. */
static int offer_is_sane(const host_comm_t *c, int peer,
                         const host_direct_desc_t *d, size_t bytes) {
  int64_t peer_pid = atomic_load_explicit(&host_rank_slot((host_comm_t *)c, peer)->pid,
                                          memory_order_relaxed);
  return d->pid == peer_pid && d->pid != (int64_t)getpid() && d->fd >= 0 &&
         d->span % HOST_PAGE == 0 && d->span_size % HOST_PAGE == 0 &&
         d->span_size > 0 && d->span <= UINT64_MAX - d->span_size &&
         d->where >= d->span && bytes <= d->span_size &&
         d->where - d->span <= d->span_size - bytes;
}

/* The sender's registered span mapped read-only, from this communicator's
 * small cache per peer (least recently used goes): mapping costs page
 * faults of 75 us per MiB on the project's VM, three times the copy. The
 * inode tells a freed allocation from a new one that got its fd number.
 * NULL when it cannot be mapped. */
static const char *map_span(host_comm_t *c, int peer,
                            const host_direct_desc_t *d) {
  host_peer_map_t *maps = c->peer_maps + (size_t)peer * HOST_PEER_MAPS;
  host_peer_map_t *victim = &maps[0];
  for (int i = 0; i < HOST_PEER_MAPS; i++) {
    host_peer_map_t *m = &maps[i];
    if (m->base && m->pid == d->pid && m->fd == d->fd && m->ino == d->ino &&
        m->span == d->span && m->span_size == d->span_size) {
      m->last_use = ++c->peer_map_clock;
      return m->base;
    }
    if (!m->base || (victim->base && m->last_use < victim->last_use)) victim = m;
  }
  char *p = core_memfd_map_peer(d->pid, d->fd, d->ino, d->span, d->span_size, 0);
  if (!p) return NULL;
  if (victim->base) munmap(victim->base, victim->span_size);
  *victim = (host_peer_map_t){p, d->pid, d->fd, d->ino, d->span, d->span_size,
                              ++c->peer_map_clock};
  return p;
}

/* Fails op with status and a message naming the peer; a corrupt offer
 * (only this rank sees it) fails the communicator for every rank. */
static int fail(host_op_t *op, ncore_status_t status, int corrupt,
                const char *why) {
  op->status = core_error(status, "recv from peer %d: %s", op->peer, why);
  if (corrupt)
    host_comm_fail(op->comm, status, "%s", ncore_last_error_message());
  host_op_release(op);
  return -1;
}

/* Why a claim of offer seq failed, from the offer word. */
static int claim_failed(host_op_t *op, uint64_t seq, uint64_t seen) {
  if (seen == word_of(seq, WITHDRAWN))
    return fail(op, NCORE_ERR_REMOTE, 0, "the peer withdrew its send");
  return fail(op, NCORE_ERR_REMOTE, 1,
              "the peer sent a corrupt one-copy offer (no such offer is open)");
}

int host_direct_receive(host_op_t *op, const host_direct_desc_t *d) {
  host_comm_t *c = op->comm;
  _Atomic uint64_t *word = host_offer_word(c, op->peer, c->rank);
  uint64_t offered = word_of(d->seq, OFFERED), claimed = word_of(d->seq, CLAIMED);
  const char *src = NULL;
  if (d->fd < 0) {
    src = host_local_offer_claim(c->segment_ino, op->peer, c->rank, d->seq,
                                 op->bytes, word, offered, claimed);
    if (!src) return claim_failed(op, d->seq, atomic_load(word));
  } else {
    if (!offer_is_sane(c, op->peer, d, op->bytes))
      return fail(op, NCORE_ERR_REMOTE, 1,
                  "the peer sent a corrupt one-copy offer (outside the "
                  "registered range, or memory of another process than the "
                  "peer's)");
    const char *base = map_span(c, op->peer, d);
    if (!base) {
      /* Unreachable (the peer's memory cannot be opened here): the sender
       * streams the payload through the ring. */
      uint64_t expect = offered;
      if (atomic_compare_exchange_strong(word, &expect, word_of(d->seq, REFUSED)))
        return 0;
      return claim_failed(op, d->seq, expect);
    }
    uint64_t expect = offered;
    if (!atomic_compare_exchange_strong(word, &expect, claimed))
      return claim_failed(op, d->seq, expect);
    src = base + (d->where - d->span);
  }
  memmove(op->buf, src, op->bytes); /* a send to oneself may overlap */
  uint64_t expect = claimed;
  if (!atomic_compare_exchange_strong(word, &expect, word_of(d->seq, DONE))) {
    /* Abandoned while we copied: say we have stopped reading it. */
    atomic_compare_exchange_strong(&*word, &expect, word_of(d->seq, RELEASED));
    return fail(op, NCORE_ERR_REMOTE, 0,
                "the peer withdrew its send while it was being copied (the "
                "data received may be incomplete)");
  }
  return 1;
}
