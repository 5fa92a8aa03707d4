/* core/host — the host backend's communicator: one rank's view of it
 * (host_comm_t) and of the windows registered on it, which every file of
 * the backend reads, and where each part of its segment is. Only types and
 * inline accessors: the functions that make, run and end a communicator
 * live in comm_create.c, segment.c, comm_lifecycle.c and comm_query.c. */
#ifndef NCORE_CORE_HOST_COMM_H
#define NCORE_CORE_HOST_COMM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "layout.h"

/* Senders' registered ranges each rank keeps mapped per peer (p2p_direct.c). */
#define HOST_PEER_MAPS 4

/* A sender's registered range a receiver keeps mapped (p2p_direct.c). */
typedef struct host_peer_map {
  char *base;  /* NULL: free entry */
  int64_t pid;
  int32_t fd;
  uint64_t ino, span, span_size, last_use;
} host_peer_map_t;

/* A buffer registered with a communicator (ncore_register_buffer) that lies
 * in an ncore_mem_alloc allocation: its owner consents to peers mapping its
 * pages for one-copy receives while it is registered (registered_buffer.c). */
typedef struct core_backend_buffer {
  uintptr_t start, end;
  struct core_backend_buffer *next;
} host_registration_t; /* the host backend's core_backend_buffer_t */

/* What each rank publishes about its part of a window. */
typedef struct host_window_part {
  uint64_t size, offset, total, ino;
  int64_t pid;
  int32_t fd, shared;
} host_window_part_t;

/* A window as one rank sees it. Parts in ncore_mem_alloc memory are mapped
 * (peer pointers are real, a put is a memcpy); the others are reached
 * through the put rings (put_ring.c). */
typedef struct core_backend_window { /* the host's core_backend_window_t */
  int nranks;
  uint64_t seq;       /* registration number, equal on every rank */
  char *local;        /* this rank's part */
  size_t local_size;
  host_window_part_t *parts;
  char **peer_base;   /* mapped part (offset applied), NULL when unreachable */
  char **mappings;    /* what to munmap: the part's pages (window.c) */
  struct core_backend_window *next;  /* the communicator's windows */
} host_window_t;

/* A communicator of the host backend (one rank's view): its
 * core_backend_comm_t. */
typedef struct core_backend_comm {
  int rank, nranks;
  /* The segment's inode: tells this communicator's offers between ranks of
   * one process from other communicators' (local_offers.c). */
  uint64_t segment_ino;
  /* Our own open file description of the segment, holding our liveness
   * lock (liveness.c); -1 in a forked child, which must not keep it. */
  int lock_fd;
  /* Rank 0: the rendezvous socket, kept while the communicator lives so
   * that a second claimant of a rank is seen (rendezvous.c); -1 on other
   * ranks and in a forked child. claim_pids: who claimed each rank. */
  int rendezvous_fd;
  long long *claim_pids;
  char *base;              /* mapping of the segment */
  host_layout_t layout;
  int64_t timeout_ms;      /* -1 = forever */
  /* More ranks than CPUs this process may run on: a waiting rank holds a
   * CPU a peer needs, so waits yield almost at once (wait.c). */
  int oversubscribed;
  /* Whether the communicator was aborted, and the first failure this rank
   * saw (what ncore_comm_async_error reports, with its message): the
   * core's, which outlives this object. Asked here, recorded here
   * (failure.c). */
  core_comm_state_t *state;
  _Atomic int forked;      /* this is a forked child's copy: hands off */
  uint64_t coll_step;      /* collective steps done (same on every rank) */
  uint64_t child_seq;      /* splits/shrinks done, names children */
  /* The token of the id ncore_comm_get_unique_id made here for a grow, 0
   * while none is outstanding (one at a time, consumed by the grow). */
  uint64_t grow_token;
  uint64_t *signals_consumed;  /* per peer, local */
  int finalized;
  void *coll_owner;        /* the collective op now using the staging */
  void **send_owner, **recv_owner;  /* per peer: the op streaming its ring */
  uint64_t *offers_made;   /* per peer: one-copy offers sent (p2p_direct.c) */
  uint64_t *tails_seen;    /* per peer: its ring's tail as last read (p2p.c) */
  uint64_t ring_key;       /* masks message tags (p2p.c); from the header */
  host_peer_map_t *peer_maps;  /* nranks * HOST_PEER_MAPS, receiver's cache */
  uint64_t peer_map_clock;
  /* Registered buffers in ncore_mem_alloc memory (registered_buffer.c); the lock
   * because a registration may close on another thread (an abort). */
  pthread_mutex_t registrations_lock;
  host_registration_t *registrations;
  uint64_t window_seq;     /* windows registered so far (collective order) */
  /* Guards `windows` and the landing of puts: a window is never freed
   * while another thread (an abort's teardown, a wait) lands into it. */
  pthread_mutex_t windows_lock;
  host_window_t *windows;  /* registered windows, for incoming puts */
  struct core_backend_comm *next_live;  /* liveness.c's list of comms */
} host_comm_t;

/* ---- where the parts of c's segment are (layout.h) ---- */
static inline host_segment_header_t *host_header(host_comm_t *c) {
  return (host_segment_header_t *)c->base;
}
static inline host_rank_slot_t *host_rank_slot(host_comm_t *c, int rank) {
  return (host_rank_slot_t *)(c->base + c->layout.ranks) + rank;
}
static inline host_ring_t *host_ring_ctl(host_comm_t *c, int src, int dst) {
  return (host_ring_t *)(c->base + c->layout.rings) + (size_t)src * c->nranks + dst;
}
static inline char *host_ring_bytes(host_comm_t *c, int src, int dst) {
  return c->base + c->layout.ring_data +
         ((size_t)src * c->nranks + dst) * HOST_RING_BYTES;
}
static inline host_ring_t *host_put_ring_ctl(host_comm_t *c, int src, int dst) {
  return (host_ring_t *)(c->base + c->layout.put_rings) + (size_t)src * c->nranks + dst;
}
static inline char *host_put_ring_bytes(host_comm_t *c, int src, int dst) {
  return c->base + c->layout.put_ring_data +
         ((size_t)src * c->nranks + dst) * HOST_RING_BYTES;
}
static inline _Atomic uint64_t *host_signal_word(host_comm_t *c, int receiver,
                                                 int sender) {
  host_counter_t *s = (host_counter_t *)(c->base + c->layout.signals);
  return &s[(size_t)receiver * c->nranks + sender].value;
}
static inline _Atomic uint64_t *host_offer_word(host_comm_t *c, int src,
                                                int dst) {
  host_counter_t *s = (host_counter_t *)(c->base + c->layout.offers);
  return &s[(size_t)src * c->nranks + dst].value;
}
static inline host_coll_desc_t *host_coll_desc(host_comm_t *c, int rank,
                                               uint64_t step) {
  return (host_coll_desc_t *)(c->base + c->layout.descs) + 2 * (size_t)rank +
         (step & 1);
}
static inline char *host_stage(host_comm_t *c, int rank, uint64_t step) {
  return c->base + c->layout.stages +
         (2 * (size_t)rank + (step & 1)) * HOST_STAGE_BYTES;
}

#endif
