/* core/nccl — the NCCL backend's private state and helpers shared by its
 * files (one job per file: loader, status, device, kernels, comm, ops,
 * window, onesided, devcomm, symmetric, backend table). */
#ifndef NCORE_CORE_NCCL_INTERNAL_H
#define NCORE_CORE_NCCL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../backend.h"
#include "nccl_lib.h"

/* How a signal lands in the peer's slot (NCORE_NCCL_SIGNAL_MODE). */
typedef enum nccl_signal_mode {
  /* One-thread kernel: __threadfence_system + atomic add (default: correct
   * whatever streams the caller signals on). */
  NCCL_SIGNAL_ADD_KERNEL = 0,
  /* cuStreamWriteValue64 of the sender's running count (faster; requires
   * the signals from one rank to one peer to be stream-ordered). */
  NCCL_SIGNAL_WRITE_VALUE = 1
} nccl_signal_mode_t;

struct nccl_devcomm;

/* How a wait for a signal waits on its stream (NCORE_NCCL_WAIT). */
typedef enum nccl_wait_mode {
  NCCL_WAIT_STREAM = 0, /* cuStreamWaitValue64: no SM, the driver's poll */
  NCCL_WAIT_SPIN = 1,   /* a one-thread kernel reading with acquire */
  NCCL_WAIT_HYBRID = 2  /* the kernel for a while, then the stream wait */
} nccl_wait_mode_t;

/* Who a rank's process is (liveness.c): enough for a peer of the same
 * machine and pid namespace to tell whether it still exists. magic is 0
 * where it could not be read (no /proc). */
typedef struct nccl_identity {
  uint64_t magic, pid, start_ticks, boot_hash, pid_namespace;
} nccl_identity_t;

/* What each rank publishes in its signal window after its nranks slots:
 * the state word, then its identity (liveness.c). */
typedef struct nccl_peer_record {
  uint64_t state; /* NCCL_PEER_LIVE, NCCL_PEER_LEFT, else aborted or failed */
  nccl_identity_t identity;
} nccl_peer_record_t;
#define NCCL_PEER_LIVE 0ull
#define NCCL_PEER_LEFT 0x5446454cull /* "LEFT" */
/* Byte offset of the record in a signal window of nranks slots. */
#define NCCL_SIGNAL_STATE_OFFSET(nranks) (8 * (size_t)(nranks))
/* Bytes of a signal window: the slots and the record. */
#define NCCL_SIGNAL_WINDOW_BYTES(nranks) \
  (NCCL_SIGNAL_STATE_OFFSET(nranks) + sizeof(nccl_peer_record_t))

/* How far a communicator's setup got (comm.c): NCCL's communicator, then
 * ncore's signal window; only READY communicators take calls. */
typedef enum nccl_stage {
  NCCL_STAGE_READY = 0,
  NCCL_STAGE_NCCL = 1,     /* non-blocking: NCCL still creating it */
  NCCL_STAGE_SIGNALS = 2   /* non-blocking: signal window registering */
} nccl_stage_t;

/* One communicator. */
typedef struct nccl_comm {
  ncclComm_t nccl;
  int rank, nranks, device;
  int lsa_rank, lsa_size;
  int lsa_known;  /* lsa_rank/lsa_size were read (nccl_read_lsa_team) */
  CUcontext ctx;
  /* Internal stream for synchronous helper work (pointer queries, size
   * exchange); never the user's. */
  CUstream helper_stream;
  /* Device scratch (ncclMemAlloc): 8 * (2 * nranks + 1) bytes. */
  void *scratch;
  /* Abort: see comm.c for the protocol. */
  atomic_int aborted;
  pthread_mutex_t abort_lock;
  int nccl_aborted;  /* ncclCommRevoke already ran (under abort_lock) */
  /* ncore's own sticky failure (NCORE_ERR_TIMEOUT, or the error a wait
   * saw): later calls fail fast, destroy aborts. NCORE_OK if none. */
  atomic_int failed;
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
  void *signal_slots;       /* ncclMemAlloc: nranks uint64 slots, one per sender */
  struct nccl_window *signal_window; /* window over signal_slots */
  ncore_status_t signals_status;     /* why signals are unusable, or OK */
  char signals_reason[256];          /* ... and the message saying so */
  uint64_t *signals_sent;      /* per peer: signals this rank sent it */
  uint64_t *signals_consumed;  /* per peer: its signals earlier waits consumed */
  ncore_gin_type_t gin_type, railed_gin_type; /* from the last devcomm, else NONE */
  struct nccl_devcomm *multimem_devcomm;      /* last live devcomm with multimem */
  /* Peer liveness (liveness.c): this process, what the LSA peers
   * published (by LSA rank), when they were last read, and the stream the
   * reads use. */
  nccl_identity_t identity;
  nccl_peer_record_t *peer_records;
  void **peer_record_addr;  /* per LSA rank: its record, through its pointer */
  int64_t liveness_checked_ms;
  pthread_mutex_t liveness_lock;
  CUstream probe_stream;
  /* A call on this non-blocking communicator answered NCORE_IN_PROGRESS:
   * NCCL takes no other call before its state leaves ncclInProgress, so the
   * next call waits for that first (nccl_comm_check_live). */
  atomic_int in_progress;
  /* The loaded NCCL refuses its copy-engine collectives on the legacy
   * default stream (before 2.29.7) and this communicator may use them (CTA
   * policy ZERO): such calls run on the per-thread stream (ops.c). */
  int legacy_stream_detour;
  /* This rank's LSA team as a communicator of its own, made on the first
   * window NCCL refuses over the whole communicator (nccl_lsa_comm). */
  ncclComm_t lsa_nccl;
  /* Its config: NCCL may read it after ncclCommSplit returned (a
   * non-blocking parent), so it lives as long as the communicator. */
  nccl_config_t lsa_config;
} nccl_comm_t;

/* One window. */
typedef struct nccl_window {
  nccl_comm_t *comm;
  ncclWindow_t win;
  /* The NCCL communicator the window is registered on: comm->nccl, or the
   * rank's LSA team (comm->lsa_nccl) where NCCL gives no window over the
   * whole communicator (window.c, "LSA fallback"); first_rank is the world
   * rank of that communicator's rank 0 (peer ranks are relative to it). */
  ncclComm_t owner;
  int first_rank;
  uint32_t flags;
  void *ptr;
  size_t size;
  size_t *peer_sizes;  /* nranks */
  void **peer_base;    /* per world rank: base pointer, cached */
  unsigned char *peer_known;
  void **lsa_base;     /* per LSA rank: base pointer, cached */
  unsigned char *lsa_known;
  pthread_mutex_t lock; /* guards the caches */
} nccl_window_t;

/* Host storage reserved for one ncclDevComm: 240 bytes in 2.30.7 (every
 * layout's devcomm_size fits; nccl_layouts.h), with room for a newer NCCL
 * that grows it at its end. */
#define NCORE_DEVCOMM_STORAGE 1024

/* One device communicator. */
typedef struct nccl_devcomm {
  nccl_comm_t *comm;
  int lsa_multimem;
  _Alignas(16) unsigned char storage[NCORE_DEVCOMM_STORAGE];
} nccl_devcomm_t;

/* ---- comm.c ---- */
/* Makes c->lsa_nccl (ncclCommSplit by LSA team, blocking) unless made.
 * Collective over c: every rank calls it at the same point (a window
 * registration that NCCL refused on every rank alike). */
ncore_status_t nccl_lsa_comm(nccl_comm_t *c);
/* Reads this rank's LSA team (ncclTeamLsa) into c->lsa_rank / lsa_size;
 * INTERNAL when NCCL's device runtime gives no valid team. */
ncore_status_t nccl_read_lsa_team(nccl_comm_t *c);
/* Waits until comm's state leaves ncclInProgress (within timeout_ms, -1
 * forever): its result, named what. */
ncore_status_t nccl_wait_ready(ncclComm_t comm, int64_t timeout_ms,
                               const char *what);

/* ---- comm_control.c ---- */
/* ncclCommQueryProperties (2.29.2+; the caller checked) into the fields of
 * *out only NCCL knows: nvml device, device API, multimem, GIN types, LSA
 * teams, host RMA (which also needs ncore's native one-sided path). */
ncore_status_t nccl_query_properties(nccl_comm_t *c,
                                     ncore_comm_properties_t *out);

/* ---- device.c ---- */
/* Loads the libraries (nccl_load) and makes device's primary context current
 * on the calling thread; device -1 keeps the current one (0 if none). */
ncore_status_t nccl_device_enter(int device, int *resolved, CUcontext *ctx);
/* Makes the context of comm current on the calling thread. */
ncore_status_t nccl_comm_enter(nccl_comm_t *c);
/* 1 when a kernel on the device may read p (device memory); 0 for host
 * memory and pointers the driver does not know. */
int nccl_is_device_pointer(const void *p);
/* Ensures some context is current (for calls without a communicator). */
ncore_status_t nccl_context_ensure(void);

/* ---- kernels.c ---- */
typedef enum nccl_kernel {
  NCCL_KERNEL_SIGNAL_ADD,
  NCCL_KERNEL_PUT_SIGNAL,
  NCCL_KERNEL_WAIT_GEQ,
  NCCL_KERNEL_LSA_POINTER,
  NCCL_KERNEL_PEER_POINTER,
  NCCL_KERNEL_MULTIMEM_POINTER,
  NCCL_KERNEL_COUNT
} nccl_kernel_t;
/* Loads the kernels into the current context now, if not yet: loading
 * waits for the device's running kernels, so communicators do it at setup,
 * before any of their collective work can be in flight (a kernel stuck on a
 * dead peer would otherwise block it, and abort behind it). */
ncore_status_t nccl_kernels_load(void);
/* Launches kernel with grid x block threads on stream; params as
 * cuLaunchKernel's kernelParams. Loads the module of the current context. */
ncore_status_t nccl_kernel_launch(nccl_kernel_t kernel, unsigned grid,
                                  unsigned block, CUstream stream,
                                  void **params);

/* ---- comm.c ---- */
/* NCORE_ERR_CLOSED when the communicator was aborted, its recorded failure
 * when it failed; after a call that answered NCORE_IN_PROGRESS, waits
 * until NCCL is ready for the next one. */
ncore_status_t nccl_comm_check_live(nccl_comm_t *c);
/* 1 for the legacy default stream (NULL or CU_STREAM_LEGACY). */
int nccl_stream_is_legacy(cudaStream_t s);
/* Makes the legacy default stream of ctx wait for the calling thread's
 * per-thread default stream: at once, or inside a group at its end. */
ncore_status_t nccl_join_legacy_stream(CUcontext ctx);
/* The result of an enqueue on c: ncclInProgress (a non-blocking
 * communicator) is NCORE_IN_PROGRESS with a message saying what to do, and
 * makes the next call wait; anything else as nccl_check. */
ncore_status_t nccl_enqueued(nccl_comm_t *c, ncclResult_t r, const char *what);

/* Like nccl_check, but an ncclInProgress result (non-blocking
 * communicator) is waited out first (default timeout, abort flag). */
ncore_status_t nccl_settle(ncclResult_t r, nccl_comm_t *c, const char *what);

/* ---- window.c ---- */
/* Base address of world rank peer's part of win (NULL when not LSA
 * reachable), computed once by a kernel and cached. */
ncore_status_t nccl_window_peer_base(nccl_window_t *w, int peer, void **out);
/* Registers [ptr, ptr+size) as a window; with exchange_sizes, first
 * exchanges part sizes (a COLL_SYMMETRIC window with differing sizes fails
 * on every rank). Waits for a non-blocking communicator. */
ncore_status_t nccl_window_create(nccl_comm_t *c, void *ptr, size_t size,
                                  uint32_t flags, int exchange_sizes,
                                  nccl_window_t **out);
/* The two halves of nccl_window_create without the size exchange, for
 * callers that must not block (a non-blocking communicator's setup):
 * start issues ncclCommWindowRegister; finish, once NCCL completed it,
 * checks NCCL made a window (NCORE_ERR_NOT_SUPPORTED where NCCL does not
 * support windows). finish releases w on failure. */
ncore_status_t nccl_window_start(nccl_comm_t *c, void *ptr, size_t size,
                                 uint32_t flags, nccl_window_t **out);
ncore_status_t nccl_window_finish(nccl_window_t *w);
/* Deregisters (unless the communicator was aborted) and frees. */
void nccl_window_release(nccl_window_t *w, int deregister);
/* Runs the helper stream to completion (pointer queries, size exchange). */
ncore_status_t nccl_helper_sync(nccl_comm_t *c);
/* 1 if world rank peer is in this rank's LSA team. */
int nccl_peer_in_lsa(const nccl_comm_t *c, int peer);

/* ---- onesided.c ---- */
/* At creation: the signal window and counters. begin issues the window's
 * (collective) registration; finish, once it completed, records whether
 * signals are usable (signals_status / signals_reason): a topology where
 * NCCL makes no window leaves them NOT_SUPPORTED, not the communicator
 * broken. */
ncore_status_t nccl_signals_begin(nccl_comm_t *c);
ncore_status_t nccl_signals_finish(nccl_comm_t *c);
/* Frees the signal window; retire: its slots may still be read by stream
 * waits (a communicator that failed or was aborted): nccl_retire them. */
void nccl_signals_release(nccl_comm_t *c, int retire);
/* Fills this rank's slots and liveness state with 0x7f bytes on the helper
 * stream: every stream wait on the slots is satisfied (no revoke reaches
 * them) and LSA peers read "aborted". Under abort_lock. */
void nccl_signals_abandon(nccl_comm_t *c);

/* ---- liveness.c ---- */
/* Fills *out with this process's identity. */
void nccl_identity_of_self(nccl_identity_t *out);
/* At creation, after the signal slots were zeroed and before the window is
 * registered: writes this rank's record (live, identity) on the helper
 * stream. */
ncore_status_t nccl_liveness_begin(nccl_comm_t *c);
/* Once the signal window and the LSA team are known: the probe stream and
 * the address of every LSA peer's record (pointer queries may launch
 * kernels: here, never while a kernel may be stuck). */
ncore_status_t nccl_liveness_finish(nccl_comm_t *c);
/* NCORE_ERR_REMOTE naming the rank when an LSA peer aborted (or failed) its
 * communicator or its process is gone; NCORE_OK otherwise, and at most once
 * per 100 ms (now: now_ms) it looks at all. Any thread. */
ncore_status_t nccl_liveness_check(nccl_comm_t *c, int64_t now);
/* Publishes "left politely" (a destroy without abort), on the helper
 * stream; the caller synchronises it. */
void nccl_liveness_mark_left(nccl_comm_t *c);
void nccl_liveness_release(nccl_comm_t *c);

/* allocations.c: what ncore_mem_alloc returned and is not yet freed. */
ncore_status_t nccl_allocation_add(void *ptr);
/* 1 if ptr was listed (and is now removed), 0 if it never was. */
int nccl_allocation_remove(void *ptr);

/* Memory stream work may still read (a failed communicator's signal
 * slots): freed by nccl_retired_release once ctx was synchronised. */
void nccl_retire(void *ptr, CUcontext ctx);
/* Frees what was retired in ctx; call right after synchronising ctx. */
void nccl_retired_release(CUcontext ctx);

/* Environment integer with a default. */
long nccl_env_long(const char *name, long fallback);

#endif
