/* core/host — internal types of the host backend (shared memory between
 * ranks that are processes or threads of one machine). See README.md. */
#ifndef NCORE_CORE_HOST_HOST_H
#define NCORE_CORE_HOST_HOST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "../backend.h"

#define HOST_MAGIC "NCOREH01"
#define HOST_CACHE_LINE 64
#define HOST_RING_BYTES ((size_t)256 * 1024)   /* per ordered pair, power of 2 */
#define HOST_STAGE_BYTES ((size_t)256 * 1024)  /* per rank collective staging */
/* Messages from this size up take the one-copy path when the receiver may
 * read the send buffer (p2p_direct.c); smaller ones go through the ring,
 * where a send returns as soon as its bytes are in it. */
#define HOST_DIRECT_MIN ((size_t)32 * 1024)
/* Senders' registered ranges each rank keeps mapped per peer (p2p_direct.c). */
#define HOST_PEER_MAPS 4
#define HOST_PAGE ((uint64_t)4096)
/* Bit 63 of a ring message's length header: a one-copy offer follows. */
#define HOST_DIRECT_FLAG (UINT64_C(1) << 63)
/* Bit 62: the whole payload was written with the header (p2p.c). */
#define HOST_WHOLE_FLAG (UINT64_C(1) << 62)

/* Where a process runs, as far as sharing memory goes: the machine (its
 * boot id) and the namespaces the host backend's rendezvous and mappings
 * live in (an abstract socket is per network namespace; /proc/<pid>/fd
 * needs the peer in our PID namespace). identity.c. */
typedef struct host_identity {
  char boot_id[40];   /* /proc/sys/kernel/random/boot_id; "" if unknown */
  uint64_t net_ns;    /* inode of /proc/self/ns/net; 0 if unknown */
  uint64_t pid_ns;    /* inode of /proc/self/ns/pid; 0 if unknown */
} host_identity_t;

/* The unique id's layout inside its 128 bytes. */
typedef struct host_unique_id {
  char magic[8];
  uint64_t token;
  int64_t creator_pid;
  host_identity_t creator;  /* where the id was made */
} host_unique_id_t;

/* This process's identity (read once). */
const host_identity_t *host_identity_self(void);
/* INVALID_ARGUMENT (recorded, naming what differs) when an id made at
 * `made` cannot be joined from here: another machine or namespace. */
ncore_status_t host_identity_check(const host_identity_t *made);

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
  uint64_t child_key[2];      /* secret key of children's tokens (comm.c) */
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

/* A sender's registered range a receiver keeps mapped (p2p_direct.c). */
typedef struct host_peer_map {
  char *base;  /* NULL: free entry */
  int64_t pid;
  int32_t fd;
  uint64_t ino, span, span_size, last_use;
} host_peer_map_t;

/* A buffer registered with a communicator (ncore_register_buffer) that lies
 * in an ncore_mem_alloc allocation: its owner consents to peers mapping its
 * pages for one-copy receives while it is registered (registered.c). */
typedef struct host_registration {
  uintptr_t start, end;
  struct host_registration *next;
} host_registration_t;

/* A one-copy offer to a rank of this process, as this process's list of
 * them holds it (local_offers.c): the only place a same-process receiver
 * takes a buffer address from. */
typedef struct host_local_offer {
  uint64_t segment;  /* the communicator's segment (its inode) */
  int src, dst;
  uint64_t seq;
  const char *buf;
  size_t bytes;
  struct host_local_offer *next;
} host_local_offer_t;

/* What each rank publishes about its part of a window. */
typedef struct host_window_part {
  uint64_t size, offset, total, ino;
  int64_t pid;
  int32_t fd, shared;
} host_window_part_t;

/* 1 if a peer's published part fits the allocation it claims (checked
 * before it is mapped or trusted). */
int host_window_part_is_sane(const host_window_part_t *part);

/* A window as one rank sees it. Parts in ncore_mem_alloc memory are mapped
 * (peer pointers are real, a put is a memcpy); the others are reached
 * through the put rings (puts.c). */
typedef struct host_window {
  int nranks;
  uint64_t seq;       /* registration number, equal on every rank */
  char *local;        /* this rank's part */
  size_t local_size;
  host_window_part_t *parts;
  char **peer_base;   /* mapped part (offset applied), NULL when unreachable */
  char **mappings;    /* what to munmap: the part's pages (window.c) */
  struct host_window *next;  /* the communicator's windows */
} host_window_t;

/* A communicator of the host backend (one rank's view). */
typedef struct host_comm {
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
  _Atomic int aborted;     /* local abort flag */
  _Atomic int forked;      /* this is a forked child's copy: hands off */
  uint64_t coll_step;      /* collective steps done (same on every rank) */
  uint64_t child_seq;      /* splits/shrinks done, names children */
  /* The token of the id ncore_comm_get_unique_id made here for a grow, 0
   * while none is outstanding (one at a time, consumed by the grow). */
  uint64_t grow_token;
  uint64_t *signals_consumed;  /* per peer, local */
  int finalized;
  /* The first failure this rank saw (NCORE_OK while none): what
   * ncore_comm_async_error reports, with its message. */
  _Atomic int async_status;
  _Atomic int async_message_ready;
  char async_message[320];
  void *coll_owner;        /* the collective op now using the staging */
  void **send_owner, **recv_owner;  /* per peer: the op streaming its ring */
  uint64_t *offers_made;   /* per peer: one-copy offers sent (p2p_direct.c) */
  uint64_t *tails_seen;    /* per peer: its ring's tail as last read (p2p.c) */
  uint64_t ring_key;       /* masks message tags (p2p.c); from the header */
  host_peer_map_t *peer_maps;  /* nranks * HOST_PEER_MAPS, receiver's cache */
  uint64_t peer_map_clock;
  /* Registered buffers in ncore_mem_alloc memory (registered.c); the lock
   * because a registration may close on another thread (an abort). */
  pthread_mutex_t registrations_lock;
  host_registration_t *registrations;
  uint64_t window_seq;     /* windows registered so far (collective order) */
  /* Guards `windows` and the landing of puts: a window is never freed
   * while another thread (an abort's teardown, a wait) lands into it. */
  pthread_mutex_t windows_lock;
  host_window_t *windows;  /* registered windows, for incoming puts */
  struct host_comm *next_live;  /* liveness.c's list of this process's comms */
} host_comm_t;

/* ---- comm.c ---- */
/* The rendezvous token inside a host unique id; INVALID_ARGUMENT naming
 * argument when id is not a host id. */
ncore_status_t host_unique_id_token(const ncore_unique_id_t *id,
                                    const char *argument, uint64_t *token);

/* ---- segment.c ---- */
/* Where each part of a segment for nranks ranks lives; INVALID_ARGUMENT
 * (recorded) when nranks needs more than the host backend can map. */
ncore_status_t host_segment_layout(int nranks, host_layout_t *out);
/* A rank's communicator object without a segment yet (segment.c). */
ncore_status_t host_comm_new(host_comm_t **out, int rank, int nranks,
                             int64_t timeout_ms);
/* A joiner's side of what rank 0 handed over: checks that fd is a private
 * file of this user of exactly comm's size, maps it and checks rank 0's
 * header (magic, nranks). */
ncore_status_t host_segment_attach(host_comm_t *comm, int fd);
/* Creates (rank 0) or joins the segment of token and waits for all ranks. */
ncore_status_t host_segment_join(host_comm_t **out, uint64_t token, int nranks,
                                 int rank, int64_t timeout_ms);
void host_segment_leave(host_comm_t *comm);
host_segment_header_t *host_header(host_comm_t *comm);

/* ---- rendezvous.c: handing the segment to the other ranks ---- */
/* Rank 0: listens on the abstract Unix socket named after token; on
 * failure *name_taken says whether another process holds the name. */
ncore_status_t host_rendezvous_listen(uint64_t token, int *listen_fd,
                                      int *name_taken);
/* Rank 0: answers every claim waiting on listen_fd (non-blocking): hands
 * segment_fd (-1 once every rank joined) to the first claimant of each
 * rank, and refuses the rest — a second claimant, a latecomer, another
 * nranks — failing comm (INVALID_USAGE, published) with why.
 * Connections from other users get nothing. */
void host_rendezvous_serve(host_comm_t *comm, int listen_fd, int segment_fd);
/* Other ranks: claims rank of nranks and fetches the segment's file from
 * rank 0, checking that rank 0 and the file belong to this user; waits up
 * to timeout_ms (-1 forever). A refusal is rank 0's status and reason
 * (INVALID_USAGE, or INVALID_ARGUMENT naming nranks). */
ncore_status_t host_rendezvous_fetch(uint64_t token, int rank, int nranks,
                                     int64_t timeout_ms, int *segment_fd);
/* Rank 0 whose name was taken: claims rank 0 of the communicator holding
 * it (which refuses, and fails itself: its id is used twice), waiting at
 * most 2 s for an answer. Returns the refusal as an error, or another
 * error saying why none came. */
ncore_status_t host_rendezvous_claim_taken(uint64_t token, int nranks,
                                           int64_t timeout_ms);

/* ---- failure.c: the communicator's asynchronous error ---- */
/* Records status as this rank's failure (first one wins, with the message
 * formatted here) and publishes it to the peers through the state word, so
 * that their later calls fail the same way. CLOSED (a local abort) is not
 * published: peers see the abort flag. */
void host_comm_fail(host_comm_t *comm, ncore_status_t status, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));
/* Records status as host_comm_fail does, without publishing it: for what
 * every rank sees for itself (a dead or aborted peer, a published failure). */
void host_comm_note(host_comm_t *comm, ncore_status_t status, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));
/* Records the thread's current error: host_comm_note for REMOTE (what the
 * waits saw of a peer), host_comm_fail for anything else. */
void host_comm_fail_current(host_comm_t *comm, ncore_status_t status);
/* The message of this rank's recorded failure. */
const char *host_comm_failure_message(host_comm_t *comm);
/* Describes a failure word published by a peer, with the reason it wrote
 * in its slot, into out. */
void host_comm_peer_failure(host_comm_t *comm, uint64_t failure, char *out,
                            size_t size);
host_rank_slot_t *host_rank_slot(host_comm_t *comm, int rank);
host_ring_t *host_ring_ctl(host_comm_t *comm, int src, int dst);
char *host_ring_bytes(host_comm_t *comm, int src, int dst);
/* The ring of one-sided puts from src to dst (puts.c). */
host_ring_t *host_put_ring_ctl(host_comm_t *comm, int src, int dst);
char *host_put_ring_bytes(host_comm_t *comm, int src, int dst);
/* Copy n bytes into / out of a ring of HOST_RING_BYTES at stream position
 * pos, wrapping at its end. */
void host_ring_write(char *ring, uint64_t pos, const void *src, size_t n);
void host_ring_read(const char *ring, uint64_t pos, void *dst, size_t n);
/* Bytes a payload of `bytes` takes in a ring: rounded up to 8, so that every
 * header that follows it is aligned. */
static inline size_t host_ring_padded(size_t bytes) {
  return (bytes + 7) & ~(size_t)7;
}
_Atomic uint64_t *host_signal_word(host_comm_t *comm, int receiver, int sender);
/* The one-copy offer word of messages from src to dst (p2p_direct.c). */
_Atomic uint64_t *host_offer_word(host_comm_t *comm, int src, int dst);
/* Rank's collective descriptor and staging for collective step `step`: two
 * of each per rank, used by odd and even steps (coll.c). */
host_coll_desc_t *host_coll_desc(host_comm_t *comm, int rank, uint64_t step);
char *host_stage(host_comm_t *comm, int rank, uint64_t step);

/* ---- liveness.c ---- */
/* Opens our own description of the segment file (segment_fd) and locks
 * byte `rank` of it; registers comm so that a fork() drops the lock in the
 * child. */
ncore_status_t host_liveness_take(host_comm_t *comm, int segment_fd);
/* Unregisters comm and closes its lock (the process no longer holds it). */
void host_liveness_drop(host_comm_t *comm);
/* 1 if rank joined, did not leave (destroy) and its process is gone. */
int host_peer_died(host_comm_t *comm, int rank);

/* ---- keyed_hash.c ---- */
/* SipHash-2-4 of two words under a 128-bit key: children's tokens cannot be
 * guessed from anything visible outside the communicator. */
uint64_t host_keyed_hash(const uint64_t key[2], uint64_t a, uint64_t b);
/* 16 random bytes (getrandom). */
ncore_status_t host_random_bytes(void *out, size_t n);

/* ---- wait.c ---- */
/* A wait in progress. Starting one costs nothing (no clock read): most
 * waits of a ping-pong end within a few polls, and each poll's cost is
 * latency the peer sees. */
typedef struct host_waiter {
  uint64_t start_ns, last_check_ns;  /* 0 until the first clock read */
  uint32_t spins;
  uint32_t notes;  /* "still waiting" lines logged (NCORE_DEBUG=INFO) */
} host_waiter_t;
uint64_t host_now_ns(void);
void host_waiter_init(host_waiter_t *w);
/* One pause between polls; checks abort, peers and the timeout. `what`
 * names what is awaited, a format with at most one %d that `peer` fills
 * ("recv from peer %d"): formatted only for a timeout's message. NCORE_OK
 * to keep waiting. */
ncore_status_t host_waiter_pause(host_waiter_t *w, host_comm_t *c,
                                 const char *what, int peer);
/* Checks local abort, the communicator's recorded failure (ours or a
 * peer's) and aborted/dead peers of comm (no pause, no timeout). */
ncore_status_t host_comm_health(host_comm_t *comm, int check_locks);

/* ---- operations (p2p.c, coll.c) as non-blocking state machines ---- */
typedef struct host_op host_op_t;
/* Advances op; returns 1 when done, 0 when it must wait, or a negative
 * value after recording an error with core_error (status in op->status). */
typedef int (*host_progress_fn)(host_op_t *op);
struct host_op {
  host_progress_fn progress;
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
void host_p2p_init_send(host_op_t *op, host_comm_t *comm, const void *buf,
                        size_t bytes, int peer);
void host_p2p_init_recv(host_op_t *op, host_comm_t *comm, void *buf,
                        size_t bytes, int peer);
void host_coll_init(host_op_t *op, host_comm_t *comm,
                    const core_coll_args_t *args);
/* op->what with its peer filled in, into buf. */
const char *host_op_what(const host_op_t *op, char *buf, size_t size);
/* Clears whatever ring or staging ownership op holds (done or failed). */
void host_op_release(host_op_t *op);
/* Runs ops (a list) until all are done or one fails (group.c). A failure
 * fails every communicator with an unfinished op (host_comm_fail). */
ncore_status_t host_run_ops(host_op_t *ops);
/* Called for an unfinished op whose rank is giving up: 0 if it is a
 * collective step that every rank posted and some rank already completed
 * (it must be finished), else 1 — and a collective step waiting for its
 * peers is then abandoned, so that no rank can complete it (coll.c). */
int host_coll_abandon(host_op_t *op, ncore_status_t status);
/* Runs one op to completion, or queues it when a group is open. */
ncore_status_t host_submit(host_op_t *op);
/* Blocking allgather of `bytes` per rank over comm (internal exchanges). */
ncore_status_t host_allgather_bytes(host_comm_t *comm, const void *mine,
                                    void *all, size_t bytes);
/* Returns once every rank of comm called it (or a peer failed). */
ncore_status_t host_barrier(host_comm_t *comm);

/* ---- p2p_direct.c: the one-copy path of large messages ---- */
/* Sender, when its op is made: 1 if the message takes the one-copy path
 * (large enough, and its buffer readable by the peer: memory of the same
 * process or an ncore_mem_alloc allocation), with op->direct_desc filled. */
int host_direct_offer(host_op_t *op);
/* Sender: makes the offer visible (before the ring's head shows its
 * descriptor). */
void host_direct_publish(host_op_t *op);
/* Sender: 1 when the receiver copied the message, -1 when it refused the
 * offer (the payload then goes through the ring), 0 while neither. */
int host_direct_sent(host_op_t *op);
/* Sender giving up (or done): takes an open offer back, so that a receiver
 * copying meanwhile reports the message lost. No-op without one. */
void host_direct_withdraw(host_op_t *op);
/* Receiver, after the descriptor d was read from the ring: copies the
 * message into op->buf and returns 1; returns 0 when the buffer cannot be
 * reached (the offer was refused: the payload follows in the ring); -1
 * with op->status set when the sender withdrew or the offer is corrupt. */
int host_direct_receive(host_op_t *op, const host_direct_desc_t *d);
/* Unmaps the receiver's cache of senders' registered ranges. */
void host_direct_maps_free(host_comm_t *comm);

/* ---- local_offers.c: one-copy offers between ranks of this process ---- */
/* Lists o (filled in) until host_local_offer_remove. */
void host_local_offer_add(host_local_offer_t *o);
void host_local_offer_remove(host_local_offer_t *o);
/* The buffer of the listed offer (segment, src, dst, seq) of `bytes`
 * bytes, after claiming it: *word goes from `offered` to `claimed` while
 * the list is locked, so the sender cannot take it back in between (it
 * unlists it only after its own compare-and-swap on *word). NULL when no
 * such offer is listed or the claim failed. */
const char *host_local_offer_claim(uint64_t segment, int src, int dst,
                                   uint64_t seq, size_t bytes,
                                   _Atomic uint64_t *word, uint64_t offered,
                                   uint64_t claimed);


/* ---- puts.c: one-sided puts into parts that are not mapped ---- */
/* Queues bytes for peer's part of w at byte_offset (in pieces, waiting for
 * ring space); the peer copies them in when it next waits in ncore, then
 * counts one signal from this rank if `signal` is set. */
ncore_status_t host_put_through_ring(host_comm_t *comm, host_window_t *w,
                                     int peer, size_t byte_offset,
                                     const void *buf, size_t bytes, int signal);
/* Lands every put that peers queued for this rank; returns how many pieces
 * it landed. Called from every wait loop, so puts never wait for a rank
 * that is itself waiting. Returns 0 at once when another thread is landing.
 * A piece that does not fit its ring or its window fails the communicator
 * (NCORE_ERR_REMOTE): a peer wrote what ncore never writes. */
int host_puts_drain(host_comm_t *comm);
/* host_puts_drain for a caller that holds windows_lock. */
int host_puts_drain_locked(host_comm_t *comm);

/* ---- custom ops (coll.c) ---- */
typedef struct host_premul {
  ncore_dtype_t dtype;
  ncore_scalar_residence_t residence;
  const void *scalar_ptr;
  unsigned char scalar[8];
} host_premul_t;

/* ---- memory.c ---- */
/* An ncore_mem_alloc allocation as host_memory_lookup finds it. */
typedef struct host_allocation {
  int fd;          /* its memfd */
  size_t offset;   /* of the pointer looked up, from the allocation's start */
  size_t mapped;   /* its mapped size (a multiple of the page size) */
  uint64_t ino;    /* its memfd's inode */
} host_allocation_t;
/* Finds the ncore_mem_alloc allocation containing ptr; 0 if found, -1 if
 * not. */
int host_memory_lookup(const void *ptr, host_allocation_t *out);
/* Maps [offset, offset + size) of peer pid's memfd fd (offset whole
 * pages), read-only or read-write; NULL on failure, or when the file is not
 * the inode ino, is smaller than offset + size, or is not sealed against
 * shrinking (a peer's claim is checked, never trusted). */
void *host_memory_map_peer(int64_t pid, int fd, uint64_t ino, uint64_t offset,
                           size_t size, int writable);

/* ---- registered.c: registered buffers (their ops: host_ops.h) ---- */
/* The registered range holding [buf, buf + bytes), whole pages of the
 * allocation a: 1 with *span (offset in the allocation) and *span_size
 * set, 0 if no registration of comm holds the message. */
int host_registered_span(host_comm_t *comm, const void *buf, size_t bytes,
                         const host_allocation_t *a, uint64_t *span,
                         uint64_t *span_size);
/* Forgets every registration (the communicator is going). */
void host_registrations_free(host_comm_t *comm);

#endif
