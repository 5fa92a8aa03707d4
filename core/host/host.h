/* core/host — internal types of the host backend (shared memory between
 * ranks that are processes or threads of one machine). See README.md. */
#ifndef NCORE_CORE_HOST_HOST_H
#define NCORE_CORE_HOST_HOST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "../backend.h"

#define HOST_MAGIC "NCOREH01"
#define HOST_CACHE_LINE 64
#define HOST_RING_BYTES ((size_t)256 * 1024)   /* per ordered pair, power of 2 */
#define HOST_STAGE_BYTES ((size_t)256 * 1024)  /* per rank collective staging */

/* The unique id's layout inside its 128 bytes. */
typedef struct host_unique_id {
  char magic[8];
  uint64_t token;
  int64_t creator_pid;
} host_unique_id_t;

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
  /* Set by a rank that gave up waiting for the others to join: they then
   * report the same timeout, not a dead peer, when it leaves. */
  _Atomic uint32_t join_timed_out;
  /* Set by a rank that destroyed its communicator: its lock goes with it,
   * but it did not die (waits on it run into the timeout instead). */
  _Atomic uint32_t left;
  char pad[HOST_CACHE_LINE - 24];
  host_counter_t posted;    /* collective step whose data is staged */
  host_counter_t consumed;  /* collective step whose staging peers finished */
} host_rank_slot_t;

/* Descriptor every rank stages with each collective step, so that ranks can
 * check that they agree on the collective. */
typedef struct host_coll_desc {
  int32_t kind, dtype, op, root;
  uint64_t count;
} host_coll_desc_t;

/* Head of the shared segment; the rest is laid out by host_segment_layout. */
typedef struct host_segment_header {
  char magic[8];
  _Atomic uint32_t ready;  /* set by rank 0 once the segment is sized */
  int32_t nranks;
  _Atomic uint32_t joined_count;
  char pad[HOST_CACHE_LINE - 20];
} host_segment_header_t;

/* SPSC byte ring control words (the bytes follow in the segment). */
typedef struct host_ring {
  host_counter_t head;  /* bytes written, producer only */
  host_counter_t tail;  /* bytes read, consumer only */
} host_ring_t;

/* Offsets of the parts of a segment for nranks ranks. */
typedef struct host_layout {
  size_t ranks, rings, ring_data, put_rings, put_ring_data, signals, descs,
      stages, total;
} host_layout_t;

/* What each rank publishes about its part of a window. */
typedef struct host_window_part {
  uint64_t size, offset, total;
  int64_t pid;
  int32_t fd, shared;
} host_window_part_t;

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
  char **mappings;    /* what to munmap */
  struct host_window *next;  /* the communicator's windows */
} host_window_t;

/* A communicator of the host backend (one rank's view). */
typedef struct host_comm {
  int rank, nranks;
  int fd;                  /* the segment's file, holds our liveness lock */
  char *base;              /* mapping of the segment */
  host_layout_t layout;
  uint64_t token;          /* identifies the segment (children derive names) */
  int64_t timeout_ms;      /* -1 = forever */
  _Atomic int aborted;     /* local abort flag */
  uint64_t coll_step;      /* collective steps done (same on every rank) */
  uint64_t child_seq;      /* splits/shrinks done, names children */
  uint64_t *signals_consumed;  /* per peer, local */
  int finalized;
  ncore_status_t async_error;
  void *coll_owner;        /* the collective op now using the staging */
  void **send_owner, **recv_owner;  /* per peer: the op streaming its ring */
  uint64_t window_seq;     /* windows registered so far (collective order) */
  host_window_t *windows;  /* registered windows, for incoming puts */
  int draining;            /* host_puts_drain is running (no re-entry) */
} host_comm_t;

/* ---- segment.c ---- */
void host_segment_layout(int nranks, host_layout_t *out);
ncore_status_t host_segment_join(host_comm_t **out, uint64_t token, int nranks,
                                 int rank, int64_t timeout_ms);
void host_segment_leave(host_comm_t *comm);
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
host_coll_desc_t *host_coll_desc(host_comm_t *comm, int rank);
char *host_stage(host_comm_t *comm, int rank);

/* ---- liveness.c ---- */
ncore_status_t host_liveness_take(host_comm_t *comm);
/* 1 if rank joined, did not leave (destroy) and its process is gone. */
int host_peer_died(host_comm_t *comm, int rank);

/* ---- wait.c ---- */
typedef struct host_waiter {
  uint64_t start_ns, last_check_ns;
  uint32_t spins;
} host_waiter_t;
uint64_t host_now_ns(void);
void host_waiter_init(host_waiter_t *w);
/* One pause between polls; checks abort, peers and the timeout. `what`
 * names what is awaited ("recv from peer 1"). NCORE_OK to keep waiting. */
ncore_status_t host_waiter_pause(host_waiter_t *w, host_comm_t *comm,
                                 const char *what);
/* Checks local abort, aborted/dead peers of comm (no pause, no timeout). */
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
  char what[64];
  /* p2p */
  int peer;
  char *buf;
  size_t bytes, done;
  int header_done;
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
/* Clears whatever ring or staging ownership op holds (done or failed). */
void host_op_release(host_op_t *op);
/* Runs ops (a list) until all are done or one fails (group.c). */
ncore_status_t host_run_ops(host_op_t *ops);
/* Runs one op to completion, or queues it when a group is open. */
ncore_status_t host_submit(host_op_t *op);
/* Blocking allgather of `bytes` per rank over comm (internal exchanges). */
ncore_status_t host_allgather_bytes(host_comm_t *comm, const void *mine,
                                    void *all, size_t bytes);
/* Returns once every rank of comm called it (or a peer failed). */
ncore_status_t host_barrier(host_comm_t *comm);

/* ---- puts.c: one-sided puts into parts that are not mapped ---- */
/* Queues bytes for peer's part of w at byte_offset (in pieces, waiting for
 * ring space); the peer copies them in when it next waits in ncore, then
 * counts one signal from this rank if `signal` is set. */
ncore_status_t host_put_through_ring(host_comm_t *comm, host_window_t *w,
                                     int peer, size_t byte_offset,
                                     const void *buf, size_t bytes, int signal);
/* Lands every put that peers queued for this rank; returns how many pieces
 * it landed. Called from every wait loop, so puts never wait for a rank
 * that is itself waiting. */
int host_puts_drain(host_comm_t *comm);

/* ---- custom ops (coll.c) ---- */
typedef struct host_premul {
  ncore_dtype_t dtype;
  ncore_scalar_residence_t residence;
  const void *scalar_ptr;
  unsigned char scalar[8];
} host_premul_t;

/* ---- memory.c ---- */
/* Finds the ncore_mem_alloc allocation containing [ptr, ptr+size): its memfd
 * and the offset; 0 if found. */
int host_memory_lookup(const void *ptr, size_t size, int *fd, size_t *offset,
                       size_t *total);
/* Maps peer pid's memfd fd (size bytes); NULL on failure. */
void *host_memory_map_peer(int64_t pid, int fd, size_t size);

#endif
