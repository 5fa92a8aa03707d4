/* core/host — the shared segment's layout: its parts (README.md, "The
 * segment"), the formats peers read and write there, and where each part
 * lies for nranks ranks. Every word here is shared with the peers. */
#ifndef NCORE_CORE_HOST_LAYOUT_H
#define NCORE_CORE_HOST_LAYOUT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "../backend.h"

#define HOST_MAGIC "NCOREH01"
#define HOST_CACHE_LINE 64
#define HOST_RING_BYTES ((size_t)256 * 1024)   /* per ordered pair, power of 2 */
#define HOST_STAGE_BYTES ((size_t)256 * 1024)  /* per rank collective staging */
#define HOST_PAGE ((uint64_t)4096)
/* Bit 63 of a ring message's length header: a one-copy offer follows. */
#define HOST_DIRECT_FLAG (UINT64_C(1) << 63)
/* Bit 62: the whole payload was written with the header (p2p.c). */
#define HOST_WHOLE_FLAG (UINT64_C(1) << 62)

/* One counter alone on its cache line (no false sharing between writers). */
typedef struct host_counter {
  _Atomic uint64_t value;
  char pad[HOST_CACHE_LINE - sizeof(uint64_t)];
} host_counter_t;

/* Per-rank registration and control words. */
typedef struct host_rank_slot {
  _Atomic int64_t pid;
  _Atomic uint32_t joined;
  _Atomic uint32_t aborted;
  /* Set by a rank that destroyed its communicator: its lock goes with it,
   * but it did not die (waits on it run into the timeout instead). */
  _Atomic uint32_t left;
  char pad[HOST_CACHE_LINE - 20];
  host_counter_t posted;    /* collective step whose data is staged */
  host_counter_t consumed;  /* collective step whose staging peers finished */
  /* What this rank's first failure was, written before it is published
   * in the header's failure word (peers quote it). */
  char failure_message[256];
} host_rank_slot_t;

/* Descriptor every rank stages with each collective step, so that ranks can
 * check that they agree on the collective. */
typedef struct host_coll_desc {
  int32_t kind, dtype, op, root;
  uint64_t count;
} host_coll_desc_t;

/* A failure as the segment records it: bit 63 set, the status in bits
 * 32..39, the rank that failed in bits 0..31. */
#define HOST_STATE_FAILED (UINT64_C(1) << 63)
static inline uint64_t host_state_failure(ncore_status_t status, int rank) {
  return HOST_STATE_FAILED | ((uint64_t)(status & 0xff) << 32) | (uint32_t)rank;
}
static inline ncore_status_t host_state_status(uint64_t state) {
  return (ncore_status_t)((state >> 32) & 0xff);
}
static inline int host_state_rank(uint64_t state) {
  return (int)(uint32_t)state;
}

/* Head of the shared segment; the rest is laid out by host_segment_layout.
 * Written by rank 0 before any other rank can see the segment. */
typedef struct host_segment_header {
  char magic[8];
  int32_t nranks;
  _Atomic uint32_t joined_count;
  /* The first failure of any rank (0 while none): every rank's later calls
   * fail with it (failure.c). */
  _Atomic uint64_t failure;
  /* The last collective step every rank may complete, or a failure if a
   * rank gave up on the step after it: completing a step and giving up on
   * it are decided by one compare-and-swap on this word (coll.c). */
  _Atomic uint64_t coll_state;
  uint64_t child_key[2];      /* secret key of children's tokens (comm_create.c) */
  char pad[HOST_CACHE_LINE - 48];
} host_segment_header_t;

/* SPSC byte ring control words (the bytes follow in the segment). */
typedef struct host_ring {
  host_counter_t head;  /* bytes written, producer only */
  host_counter_t tail;  /* bytes read, consumer only */
} host_ring_t;

/* Offsets of the parts of a segment for nranks ranks. */
typedef struct host_layout {
  size_t ranks, rings, ring_data, put_rings, put_ring_data, signals, offers,
      descs, stages, total;
} host_layout_t;

/* A one-copy offer as the ring carries it after the length header. It is
 * a claim by a peer, checked before anything is read (p2p_direct.c): fd
 * -1 means "a rank of your own process", whose buffer the receiver finds
 * in its process's own list of offers (local_offers.c), never at an
 * address the descriptor names; otherwise the sender's registered range
 * [span, span + span_size) of its memfd fd, which the message lies in. */
typedef struct host_direct_desc {
  uint64_t seq;        /* the offer's number, in the pair's offer word */
  uint64_t where;      /* the message's offset in the memfd */
  uint64_t span;       /* the registered range's first page (offset) */
  uint64_t span_size;  /* its size, whole pages */
  uint64_t ino;        /* the memfd's inode (tells a reused fd number) */
  int64_t pid;         /* the sender's process */
  int32_t fd;          /* the sender's memfd, or -1 */
  int32_t pad;
} host_direct_desc_t;

/* Where each part of a segment for nranks ranks lives; INVALID_ARGUMENT
 * (recorded) when nranks needs more than the host backend can map. */
ncore_status_t host_segment_layout(int nranks, host_layout_t *out);

#endif
