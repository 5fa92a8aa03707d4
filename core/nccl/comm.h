/* core/nccl — the NCCL backend's communicator: the state every file of
 * the backend reads (rank, context, streams, the signal window, peer
 * liveness, the setup stage), and the two facts of its topology each asks.
 * Only types and inline helpers: the functions that make, run and end a
 * communicator live in comm_create.c, comm_setup.c, comm_lifecycle.c and
 * comm_query.c. */
#ifndef NCORE_CORE_NCCL_COMM_H
#define NCORE_CORE_NCCL_COMM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../backend.h"
#include "../peer_memfd.h"
#include "nccl_lib.h"
#include "status.h"


/* How a signal lands in the peer's slot (NCORE_NCCL_SIGNAL_MODE). */
typedef enum nccl_signal_mode {
  /* One-thread kernel: __threadfence_system + atomic add (default: correct
   * whatever streams the caller signals on). */
  NCCL_SIGNAL_ADD_KERNEL = 0,
  /* cuStreamWriteValue64 of the sender's running count (faster; requires
   * the signals from one rank to one peer to be stream-ordered). */
  NCCL_SIGNAL_WRITE_VALUE = 1
} nccl_signal_mode_t;


/* How a wait for a signal waits on its stream (NCORE_NCCL_WAIT). */
typedef enum nccl_wait_mode {
  NCCL_WAIT_STREAM = 0, /* cuStreamWaitValue64: no SM, the driver's poll */
  NCCL_WAIT_SPIN = 1,   /* a one-thread kernel reading with acquire */
  NCCL_WAIT_HYBRID = 2  /* the kernel for a while, then the stream wait */
} nccl_wait_mode_t;

/* Who a rank's process is (liveness.c): enough for a peer of the same
 * machine and pid namespace to tell whether it still exists, and to map its
 * liveness page (page_fd, page_ino: a memfd; page_fd -1 where there is
 * none). magic is 0 where it could not be read (no /proc). */
typedef struct nccl_identity {
  uint64_t magic, pid, start_ticks, boot_hash, pid_namespace;
  int64_t page_fd;
  uint64_t page_ino;
} nccl_identity_t;

/* What each rank publishes in its signal window after its nranks slots:
 * the state word, then its identity (liveness.c). */
typedef struct nccl_peer_record {
  uint64_t state; /* NCCL_PEER_LIVE, NCCL_PEER_LEFT, else aborted or failed */
  nccl_identity_t identity;
} nccl_peer_record_t;
#define NCCL_PEER_LIVE 0ull
#define NCCL_PEER_LEFT 0x5446454cull /* "LEFT" */
/* What an abort writes (the 0x7f bytes nccl_signals_abandon fills with). */
#define NCCL_PEER_ABORTED 0x7f7f7f7f7f7f7f7full
/* Byte offset of the record in a signal window of nranks slots. */
#define NCCL_SIGNAL_STATE_OFFSET(nranks) (8 * (size_t)(nranks))
/* Byte offset of the consumed counters after the record: per peer, how
 * many of its signals this rank's wait kernels have consumed (only they
 * read and advance them; README.md, "The signal protocol"). */
#define NCCL_SIGNAL_CONSUMED_OFFSET(nranks) \
  (NCCL_SIGNAL_STATE_OFFSET(nranks) + sizeof(nccl_peer_record_t))
/* Bytes of a signal window: the slots, the record, the counters. */
#define NCCL_SIGNAL_WINDOW_BYTES(nranks) \
  (NCCL_SIGNAL_CONSUMED_OFFSET(nranks) + 8 * (size_t)(nranks))

/* A stream ncore's work through peers' mappings was enqueued on
 * (peer_work.c), or, once the program destroyed it through ncore, an event
 * recorded on it just before: what is left to wait for. */
typedef struct nccl_peer_work {
  CUstream stream; /* NULL once gone */
  CUevent gone;    /* recorded at the stream's end, or NULL */
} nccl_peer_work_t;

/* ncore's small-message allreduce (small_coll.c): NCORE_ALGO, auto's
 * crossovers and a forced grid size, as read when the communicator was set
 * up. */
typedef enum nccl_small_algo {
  NCCL_SMALL_AUTO,
  NCCL_SMALL_NCCL,
  NCCL_SMALL_ONESHOT,
  NCCL_SMALL_TWOSHOT
} nccl_small_algo_t;
typedef struct nccl_small_choice {
  nccl_small_algo_t algo;
  size_t oneshot_max, twoshot_max;
  size_t ll_max; /* one-shot in LL form up to this many bytes */
  int blocks;    /* 0: by size */
} nccl_small_choice_t;

/* How far a communicator's setup got (comm_setup.c): NCCL's communicator, then
 * ncore's signal window; only READY communicators take calls. */
typedef enum nccl_stage {
  NCCL_STAGE_READY = 0,
  NCCL_STAGE_NCCL = 1,     /* non-blocking: NCCL still creating it */
  NCCL_STAGE_SIGNALS = 2   /* non-blocking: signal window registering */
} nccl_stage_t;

/* One communicator: the NCCL backend's core_backend_comm_t. */
typedef struct core_backend_comm {
  /* What every collective, send and recv reads comes first, in the
   * object's first cache line (it is allocated 64-byte aligned). */
  _Alignas(64) ncclComm_t nccl;
  CUcontext ctx;
  /* Whether the communicator was aborted and the failure that ended it
   * (NCORE_ERR_TIMEOUT, the error a wait saw, ...): the core's, which
   * outlives this object. Asked here, recorded here (nccl_comm_fail):
   * later calls fail fast, destroy aborts. */
  core_comm_state_t *state;
  int rank, nranks, device;
  /* A call on this non-blocking communicator answered NCORE_IN_PROGRESS:
   * NCCL takes no other call before its state leaves ncclInProgress, so the
   * next call waits for that first (nccl_comm_check_live). */
  atomic_int in_progress;
  /* The loaded NCCL refuses its copy-engine collectives on the legacy
   * default stream (before 2.29.7) and this communicator may use them (CTA
   * policy ZERO): such calls run on the per-thread stream (coll.c). */
  int legacy_stream_detour;
  /* ncore's small-message allreduce is on (small_coll.c; its state
   * further down). */
  int small_enabled;
  int lsa_rank, lsa_size;
  int lsa_known;  /* lsa_rank/lsa_size were read (nccl_read_lsa_team) */
  /* Windows with a point-to-point alias are open (window_alias.c, under
   * alias_lock below; read without it on every send and recv). */
  atomic_int alias_windows_live;
  /* Internal stream for synchronous helper work (pointer queries, size
   * exchange); never the user's. */
  CUstream helper_stream;
  /* Device scratch (ncclMemAlloc): 8 * (2 * nranks + 1) bytes. */
  void *scratch;
  /* Abort: see comm_lifecycle.c for the protocol. */
  pthread_mutex_t abort_lock;
  int nccl_aborted;  /* ncclCommRevoke already ran (under abort_lock) */
  int nonblocking;          /* config.blocking = 0 (NCCL's comm is too) */
  int64_t timeout_ms;       /* resolved config timeout, -1 = forever */
  nccl_stage_t stage;       /* setup progress (non-blocking creation) */
  int64_t stage_started_ms; /* when the non-blocking creation began */
  /* One-sided. */
  int native_onesided;      /* NCCL 2.29+ ncclPutSignal & co. are used */
  nccl_signal_mode_t signal_mode;
  nccl_wait_mode_t wait_mode;  /* NCORE_NCCL_WAIT */
  uint64_t wait_spin_ns;       /* hybrid: how long the kernel spins first */
  unsigned wait_flags;      /* GEQ, plus FLUSH where the device can */
  size_t put_kernel_max;    /* puts up to this many bytes use the fused kernel */
  size_t put_sm_max;        /* ... up to this many, a copy kernel of a grid */
  /* ncclMemAlloc: nranks uint64 slots, one per sender, this rank's
   * record, nranks consumed counters (NCCL_SIGNAL_WINDOW_BYTES). */
  void *signal_slots;
  struct core_backend_window *signal_window; /* window over signal_slots */
  ncore_status_t signals_status;     /* why signals are unusable, or OK */
  char signals_reason[256];          /* ... and the message saying so */
  /* Host counts, only where a mode needs the value on the host: per peer,
   * the signals this rank sent it (NCORE_NCCL_SIGNAL_MODE=write) and those
   * of its signals earlier waits consumed (NCORE_NCCL_WAIT=stream or
   * hybrid). The default modes keep no count on the host (the consumed
   * counters live beside the slots), which is what lets a CUDA graph
   * replay them. */
  uint64_t *signals_sent;
  uint64_t *signals_consumed;
  /* The streams of ncore's own puts, signals and symmetric copies through
   * peers' mappings not yet waited for (peer_work.c): a list under the
   * lock, the last one noted readable without it, and whether a stream
   * could not be listed (out of memory: the drain then waits for the
   * context). */
  pthread_mutex_t peer_work_lock;
  nccl_peer_work_t *peer_work_streams;
  int peer_work_count, peer_work_capacity, peer_work_lost;
  _Atomic(CUstream) peer_work_last;
  ncore_gin_type_t gin_type, railed_gin_type; /* from the last devcomm, else NONE */
  /* The last live device communicator made with multimem. */
  struct core_backend_dev_comm *multimem_devcomm;
  /* Peer liveness (liveness.c): this process, what the LSA peers
   * published (by LSA rank), when they were last read, and the stream the
   * reads use. */
  nccl_identity_t identity;
  nccl_peer_record_t *peer_records;
  void **peer_record_addr;  /* per LSA rank: its record, through its pointer */
  /* This rank's state word in host memory, which LSA peers of this machine
   * map (the same word as its record's, read with a load instead of a
   * copy from a GPU), and theirs, mapped read-only (NULL where not). */
  core_memfd_t liveness_page;
  const uint64_t **peer_pages;
  int64_t liveness_checked_ms;
  pthread_mutex_t liveness_lock;
  CUstream probe_stream;
  /* This rank's LSA team as a communicator of its own, made on the first
   * window NCCL refuses over the whole communicator (nccl_lsa_comm). */
  ncclComm_t lsa_nccl;
  /* Its config: NCCL may read it after ncclCommSplit returned (a
   * non-blocking parent), so it lives as long as the communicator. */
  nccl_config_t lsa_config;
  /* Point-to-point buffers out of NCCL's registration of windows
   * (window_alias.c): the windows with an alias and the ranges the program
   * registered, under alias_lock (windows close from any thread, finalizers
   * included); alias_windows_live is read without it on every send. */
  pthread_mutex_t alias_lock;
  struct nccl_alias *alias_windows;
  int alias_window_count, alias_window_capacity;
  struct nccl_range { uintptr_t begin, end; } *registered_ranges;
  int registered_range_count, registered_range_capacity;
  /* ncore's small-message allreduce (small_coll.c): on (small_enabled,
   * above), every rank's area as this rank reaches it, the stream of its
   * last call and an event that orders a call on another stream after it. */
  nccl_small_choice_t small_choice;
  char *small_areas[8];
  CUstream small_last_stream;
  int small_called;
  CUevent small_order;
} nccl_comm_t;

/* 1 if world rank peer is in this rank's LSA team: NCCL's LSA team is the
 * contiguous block of world ranks around this one (ncclTeamLsa: stride 1). */
static inline int nccl_peer_in_lsa(const nccl_comm_t *c, int peer) {
  int first = c->rank - c->lsa_rank;
  return peer >= first && peer < first + c->lsa_size;
}

/* Runs the helper stream to completion (pointer queries, size exchange). */
static inline ncore_status_t nccl_helper_sync(nccl_comm_t *c) {
  return cu_check(cu_fn.StreamSynchronize(c->helper_stream),
                  "cuStreamSynchronize");
}

#endif
