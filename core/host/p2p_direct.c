/* core/host — the one-copy path of send/recv: a large message whose send
 * buffer another rank can read (memory of the same process, or an
 * ncore_mem_alloc memfd the receiver maps) is not streamed through the
 * ring. The sender offers its buffer (a descriptor in the ring, then the
 * pair's offer word), the receiver claims the offer, copies straight from
 * the sender's buffer into its own and marks it done; only then does the
 * send return.
 *
 * Why the receiver copies (pull) rather than the sender (push): the only
 * memory written is the receiver's own, by the receiver, inside its recv
 * call. A rank that gives up (timeout, abort, a dead peer) and returns can
 * never have its memory written afterwards. A sender that gives up
 * withdraws its offer with one compare-and-swap; a receiver that finds the
 * offer withdrawn when it ends its copy reports the message lost
 * (NCORE_ERR_REMOTE), never data the sender may have changed since. A
 * receiver that cannot reach the buffer (the peer's /proc entry cannot be
 * opened) refuses the offer and the payload comes through the ring as
 * before. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../error.h"
#include "host.h"

/* The offer word's states (low 3 bits; the message's sequence above). */
enum { OFFERED = 1, CLAIMED = 2, DONE = 3, REFUSED = 4, WITHDRAWN = 5 };
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
    /* A rank of this process (ncore_comm_init_all): plain pointers. */
    d->fd = -1;
    d->where = (uint64_t)(uintptr_t)op->buf;
  } else {
    host_allocation_t a;
    if (host_memory_lookup(op->buf, &a) != 0 || op->bytes > a.mapped - a.offset)
      return 0;
    d->fd = a.fd;
    d->ino = a.ino;
    d->total = a.mapped;
    d->where = a.offset;
  }
  d->seq = ++c->offers_made[op->peer];
  return 1;
}

void host_direct_publish(host_op_t *op) {
  atomic_store_explicit(host_offer_word(op->comm, op->comm->rank, op->peer),
                        word_of(op->direct_desc.seq, OFFERED), memory_order_release);
  op->direct_pending = 1;
}

int host_direct_sent(host_op_t *op) {
  uint64_t w = atomic_load_explicit(
      host_offer_word(op->comm, op->comm->rank, op->peer), memory_order_acquire);
  if (w == word_of(op->direct_desc.seq, DONE)) {
    op->direct_pending = 0;
    return 1;
  }
  if (w == word_of(op->direct_desc.seq, REFUSED)) {
    op->direct_pending = 0;
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
  while ((seen == word_of(seq, OFFERED) || seen == word_of(seq, CLAIMED)) &&
         !atomic_compare_exchange_weak(word, &seen, word_of(seq, WITHDRAWN))) {
  }
}

/* ---- receiver side ---- */

void host_direct_maps_free(host_comm_t *c) {
  if (!c->peer_maps) return;
  for (size_t i = 0; i < (size_t)c->nranks * HOST_PEER_MAPS; i++)
    if (c->peer_maps[i].base) munmap(c->peer_maps[i].base, c->peer_maps[i].total);
  free(c->peer_maps);
  c->peer_maps = NULL;
}

/* The sender's allocation mapped read-only, from this communicator's small
 * cache per peer (least recently used goes): mapping costs an open, an mmap
 * and a page fault per 16 pages, as much as copying a few hundred KiB. The
 * inode tells a freed allocation from a new one that got its fd number.
 * NULL when it cannot be mapped. */
static const char *map_allocation(host_comm_t *c, int peer,
                                  const host_direct_desc_t *d) {
  host_peer_map_t *maps = c->peer_maps + (size_t)peer * HOST_PEER_MAPS;
  host_peer_map_t *victim = &maps[0];
  for (int i = 0; i < HOST_PEER_MAPS; i++) {
    host_peer_map_t *m = &maps[i];
    if (m->base && m->pid == d->pid && m->fd == d->fd && m->ino == d->ino &&
        m->total == d->total) {
      m->last_use = ++c->peer_map_clock;
      return m->base;
    }
    if (!m->base || (victim->base && m->last_use < victim->last_use)) victim = m;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/%lld/fd/%d", (long long)d->pid, d->fd);
  int f = open(path, O_RDONLY | O_CLOEXEC);
  if (f < 0) return NULL;
  struct stat st;
  void *p = MAP_FAILED;
  /* The file must be the one offered (same inode), as large as claimed
   * (touching a mapping past a file's end is SIGBUS). */
  if (fstat(f, &st) == 0 && (uint64_t)st.st_ino == d->ino && st.st_size >= 0 &&
      (uint64_t)st.st_size >= d->total && d->total > 0)
    p = mmap(NULL, d->total, PROT_READ, MAP_SHARED, f, 0);
  close(f);
  if (p == MAP_FAILED) return NULL;
  if (victim->base) munmap(victim->base, victim->total);
  victim->base = p;
  victim->pid = d->pid;
  victim->fd = d->fd;
  victim->ino = d->ino;
  victim->total = d->total;
  victim->last_use = ++c->peer_map_clock;
  return p;
}

/* Fails op with status and a message naming it (recorded by the caller's
 * give-up, which fails the communicator). */
static int fail(host_op_t *op, ncore_status_t status, const char *why) {
  op->status = core_error(status, "recv from peer %d: %s", op->peer, why);
  host_op_release(op);
  return -1;
}

int host_direct_receive(host_op_t *op, const host_direct_desc_t *d) {
  host_comm_t *c = op->comm;
  _Atomic uint64_t *word = host_offer_word(c, op->peer, c->rank);
  const char *src = NULL;
  if (d->fd < 0) {
    if (d->pid == (int64_t)getpid()) src = (const char *)(uintptr_t)d->where;
  } else if (d->where <= d->total && op->bytes <= d->total - d->where) {
    const char *base = map_allocation(c, op->peer, d);
    if (base) src = base + d->where;
  } else {
    op->status = core_error(NCORE_ERR_REMOTE,
                            "recv from peer %d: its offer lies outside the "
                            "allocation it names (%llu bytes at %llu of %llu)",
                            op->peer, (unsigned long long)op->bytes,
                            (unsigned long long)d->where,
                            (unsigned long long)d->total);
    host_comm_fail(c, NCORE_ERR_REMOTE, "%s", ncore_last_error_message());
    host_op_release(op);
    return -1;
  }
  uint64_t expect = word_of(d->seq, OFFERED);
  if (!src) {
    /* Unreachable: the sender streams the payload through the ring. */
    if (atomic_compare_exchange_strong(word, &expect, word_of(d->seq, REFUSED)))
      return 0;
    return fail(op, NCORE_ERR_REMOTE, "the peer withdrew its send");
  }
  if (!atomic_compare_exchange_strong(word, &expect, word_of(d->seq, CLAIMED)))
    return fail(op, NCORE_ERR_REMOTE, "the peer withdrew its send");
  memmove(op->buf, src, op->bytes);  /* a send to oneself may overlap */
  expect = word_of(d->seq, CLAIMED);
  if (!atomic_compare_exchange_strong(word, &expect, word_of(d->seq, DONE)))
    return fail(op, NCORE_ERR_REMOTE,
                "the peer withdrew its send while it was being copied (the "
                "data received may be incomplete)");
  return 1;
}
