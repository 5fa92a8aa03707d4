/* ncore — communicators: bootstrap, lifecycle, queries, groups.
 *
 * Thread safety: calls on different communicators may run concurrently;
 * calls on one communicator must be serialised by the caller, as in NCCL —
 * except ncore_comm_abort, which may be called from another thread to unblock
 * a call that waits on that communicator.
 *
 * Calls that communicate or make a resource ("communicating calls" below)
 * need a communicator that is fit for it. They answer
 * NCORE_ERR_INVALID_USAGE on a finalized communicator, and on the copy a
 * child made by fork() inherited (the communicator belongs to the process
 * that created it; the child may only destroy its copy, which touches
 * nothing of its parent's). And once a communicator failed — a timeout, a
 * dead or aborted peer, ranks that disagreed on a collective or a message,
 * on the host backend a second process claiming one of its ranks (its
 * unique id used by two jobs) —
 * it has an asynchronous error (ncore_comm_async_error), and every later
 * communicating call, on every rank, answers that error at once:
 * NCORE_ERR_TIMEOUT, NCORE_ERR_REMOTE or NCORE_ERR_INVALID_USAGE. Only
 * queries, ncore_comm_shrink, ncore_comm_abort and ncore_comm_destroy
 * remain (as in NCCL after an asynchronous error). */
#ifndef NCORE_COMM_H
#define NCORE_COMM_H

#include <limits.h>
#include <stdint.h>
#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* "Not set" for integer config fields: the backend's default applies
 * (NCCL_CONFIG_UNDEF_INT). */
#define NCORE_CONFIG_UNDEF_INT INT32_MIN

/* Passing this color to ncore_comm_split leaves the rank out of every new
 * communicator (NCCL_SPLIT_NOCOLOR). */
#define NCORE_SPLIT_NOCOLOR (-1)

/* ncore_comm_shrink flags (NCCL_SHRINK_*). */
#define NCORE_SHRINK_DEFAULT 0u
/* Abort the parent's outstanding operations before shrinking: they end
 * early and their results are undefined; on NCCL the parent's LSA peers
 * then see this rank as having aborted the parent (their operations on it
 * answer NCORE_ERR_REMOTE), so the parent is only to be destroyed. */
#define NCORE_SHRINK_ABORT 1u

/* Communicator configuration; mirrors ncclConfig_t (NCCL 2.28) plus ncore's
 * own fields. Versioned: set struct_size = sizeof(ncore_comm_config_t), or use
 * NCORE_COMM_CONFIG_INIT / ncore_comm_config_init(&c, sizeof c). A struct_size
 * smaller than the library's is accepted (missing tail fields take their
 * defaults); a larger one is accepted only if the extra bytes are zero.
 * Never reordered; new fields are only appended (docs/abi-policy.md). */
typedef struct ncore_comm_config {
  uint32_t struct_size;
  /* ncore_backend_t: AUTO (default), HOST or NCCL. */
  int32_t backend;
  /* How long a blocking call waits for peers before NCORE_ERR_TIMEOUT, in
   * milliseconds. 0 = the default (NCORE_TIMEOUT_MS in the environment, else
   * 300000). Negative = wait forever (a dead peer is still detected on the
   * host backend). */
  int32_t timeout_ms;
  /* CUDA device ordinal for the NCCL backend. -1: ncore_comm_init_rank uses
   * the calling thread's current device (device 0 where none is current),
   * as NCCL does; ncore_comm_init_from_env uses local rank % visible
   * devices (ncore/launch.h). Init makes the device current on the calling
   * thread. Must be -1 on the host backend. */
  int32_t device;
  /* The fields below mirror ncclConfig_t one to one. NCORE_CONFIG_UNDEF_INT /
   * NULL leaves NCCL's default. The host backend accepts and ignores them,
   * except `blocking`, which it honours by completing calls before returning. */
  int32_t blocking;
  int32_t cga_cluster_size;
  int32_t min_ctas;
  int32_t max_ctas;
  const char *net_name;        /* borrowed for the duration of the init call */
  int32_t split_share;
  int32_t traffic_class;
  const char *comm_name;       /* borrowed for the duration of the init call */
  int32_t collnet_enable;
  int32_t cta_policy;
  int32_t shrink_share;
  int32_t nvls_ctas;
  int32_t n_channels_per_net_peer;
  int32_t nvlink_centric_sched;
  /* Appended in ABI 1.1: ncclConfig_t's newer fields. Each is passed only to
   * an NCCL that knows it; set (not NCORE_CONFIG_UNDEF_INT) on an older NCCL,
   * init answers NCORE_ERR_NOT_SUPPORTED naming the field and the version
   * needed. The host backend accepts and ignores them. */
  /* NCCL 2.29+: how the communicator may be used inside CUDA graphs
   * (ncclConfig_t.graphUsageMode). */
  int32_t graph_usage_mode;
  /* NCCL 2.29+: number of RMA contexts for one-sided calls (numRmaCtx). */
  int32_t num_rma_ctx;
  /* NCCL 2.30+: most peers one rank keeps P2P connections to (maxP2pPeers). */
  int32_t max_p2p_peers;
  /* NCCL 2.30.5+: order graph launches with the stream's other work
   * (graphStreamOrdering). */
  int32_t graph_stream_ordering;
  /* Appended in ABI 1.2 (nccl4py 0.5.0 / 0.6.0): ncclConfig_t's fields of
   * NCCL 2.31 and 2.32, under the same rule as the 1.1 fields above. */
  /* NCCL 2.31.0+: 1 = the communicator takes part in implicit launch
   * ordering (within one CUDA context its operations must not overlap
   * those of communicators without it); NCCL_LAUNCH_ORDER_IMPLICIT in the
   * environment takes precedence. NCCL's default: 0
   * (ncclConfig_t.launchOrderImplicit). */
  int32_t launch_order_implicit;
  /* NCCL 2.31.0+: one-sided signal indexes per RMA context (>= 0; bounds
   * the signal index of ncore/onesided.h's signal and wait calls). NCCL's
   * default: 1 (numRmaSig). */
  int32_t num_rma_sig;
  /* NCCL 2.31.0+: 1 = set up one-sided signalling at communicator creation
   * instead of at the first window registration (needed to signal without
   * registering a symmetric window first); NCCL_RMA_EAGER_INIT takes
   * precedence. NCCL's default: 0 (rmaEagerInit). */
  int32_t rma_eager_init;
  /* NCCL 2.31.1+: whether the communicator creates the CUDA fabric logical
   * endpoints behind host-side Compute Fabric Transport queries:
   * NCORE_HOST_CFT_* (hostCftMode, ncclHostCftMode_t). */
  int32_t host_cft_mode;
  /* NCCL 2.32.0+: which host NVLS components the communicator uses:
   * NCORE_NVLS_HOST_MODE_* (nvlsHostMode, ncclNvlsHostMode_t). */
  int32_t nvls_host_mode;
} ncore_comm_config_t;

/* ncore_comm_config_t.host_cft_mode (ncclHostCftMode_t, NCCL 2.31.1):
 * NCORE_CONFIG_UNDEF_INT is NCCL's default (ncclHostCftDefault). ENABLE
 * creates the unicast and multicast logical endpoints at the first window
 * registration; FALLBACK tries and disables host CFT on error instead of
 * failing. */
#define NCORE_HOST_CFT_ENABLE 1
#define NCORE_HOST_CFT_DISABLE 2
#define NCORE_HOST_CFT_FALLBACK 3

/* ncore_comm_config_t.nvls_host_mode (ncclNvlsHostMode_t, NCCL 2.32.0): 0
 * enables every host NVLS component; DISABLE_TRANSPORT (the NVLS transport
 * and registered-buffer optimization) and DISABLE_SYMMETRIC_MULTIMEM
 * (multimem in the symmetric kernels and copy-engine paths) combine;
 * DISABLE turns off all present and future ones; NCORE_CONFIG_UNDEF_INT is
 * NCCL's default (today the same as ENABLE). */
#define NCORE_NVLS_HOST_MODE_ENABLE 0
#define NCORE_NVLS_HOST_MODE_DISABLE_TRANSPORT (1 << 0)
#define NCORE_NVLS_HOST_MODE_DISABLE_SYMMETRIC_MULTIMEM (1 << 1)
#define NCORE_NVLS_HOST_MODE_DISABLE 2147483647

/* The defaults, field by field (one line per field, in declaration order;
 * a new field adds its line at the end). */
#define NCORE_COMM_CONFIG_INIT                                              \
  {                                                                         \
    (uint32_t)sizeof(ncore_comm_config_t), /* struct_size */                \
    NCORE_BACKEND_AUTO,                    /* backend */                    \
    0,                                     /* timeout_ms */                 \
    -1,                                    /* device */                     \
    NCORE_CONFIG_UNDEF_INT,                /* blocking */                   \
    NCORE_CONFIG_UNDEF_INT,                /* cga_cluster_size */           \
    NCORE_CONFIG_UNDEF_INT,                /* min_ctas */                   \
    NCORE_CONFIG_UNDEF_INT,                /* max_ctas */                   \
    NULL,                                  /* net_name */                   \
    NCORE_CONFIG_UNDEF_INT,                /* split_share */                \
    NCORE_CONFIG_UNDEF_INT,                /* traffic_class */              \
    NULL,                                  /* comm_name */                  \
    NCORE_CONFIG_UNDEF_INT,                /* collnet_enable */             \
    NCORE_CONFIG_UNDEF_INT,                /* cta_policy */                 \
    NCORE_CONFIG_UNDEF_INT,                /* shrink_share */               \
    NCORE_CONFIG_UNDEF_INT,                /* nvls_ctas */                  \
    NCORE_CONFIG_UNDEF_INT,                /* n_channels_per_net_peer */    \
    NCORE_CONFIG_UNDEF_INT,                /* nvlink_centric_sched */       \
    NCORE_CONFIG_UNDEF_INT,                /* graph_usage_mode */           \
    NCORE_CONFIG_UNDEF_INT,                /* num_rma_ctx */                \
    NCORE_CONFIG_UNDEF_INT,                /* max_p2p_peers */              \
    NCORE_CONFIG_UNDEF_INT,                /* graph_stream_ordering */      \
    NCORE_CONFIG_UNDEF_INT,                /* launch_order_implicit */      \
    NCORE_CONFIG_UNDEF_INT,                /* num_rma_sig */                \
    NCORE_CONFIG_UNDEF_INT,                /* rma_eager_init */             \
    NCORE_CONFIG_UNDEF_INT,                /* host_cft_mode */              \
    NCORE_CONFIG_UNDEF_INT                 /* nvls_host_mode */             \
  }

/* Fills *config with the defaults of NCORE_COMM_CONFIG_INIT, as a caller
 * compiled against these or any other version of the header sees them
 * (libgit2's git_*_options_init pattern): the library writes exactly
 * struct_size bytes, never more, and sets config->struct_size to
 * struct_size. Fields the library does not know (struct_size larger than
 * its own) are zeroed, which the library accepts back.
 * config: caller-owned, at least struct_size bytes; must not be NULL.
 * struct_size: sizeof(ncore_comm_config_t) as the CALLER was compiled (a
 *   binding passes its own), at least offsetof(backend) + 4 and at most
 *   4096 (a page: every call taking the struct refuses more).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (config NULL, struct_size too
 * small or too large; the message names the argument), nothing written. */
NCORE_API ncore_status_t ncore_comm_config_init(ncore_comm_config_t *config,
                                                size_t struct_size);

/* Makes a new unique id for bootstrapping one communicator (ncclGetUniqueId).
 * Call on one rank and give the same bytes to all ranks. An id serves one
 * communicator at a time: on the host backend a rank number joins at most
 * once, and a second process claiming a rank of a live communicator (two
 * jobs started with one id) fails that communicator and the claimant with
 * NCORE_ERR_INVALID_USAGE (ncore_comm_init_rank); NCCL leaves it
 * undefined.
 * backend: the backend the communicator will use (AUTO resolves as for
 *   ncore_comm_init_rank); the id records it, and init checks it matches.
 * out: caller-owned; receives the id.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, unknown backend);
 * NCORE_ERR_UNAVAILABLE (NCCL requested but missing); NCORE_ERR_SYSTEM. */
NCORE_API ncore_status_t ncore_get_unique_id(ncore_unique_id_t *out,
                                             ncore_backend_t backend);

/* Creates this rank's communicator (ncclCommInitRankConfig). Collective:
 * every rank of the group calls it with the same nranks and id, and it
 * returns once all have joined or the timeout expired.
 * out: receives the new communicator; the caller owns it and releases it
 *   with ncore_comm_destroy or ncore_comm_abort.
 * nranks: number of ranks, >= 1.
 * id: the unique id from ncore_get_unique_id; borrowed.
 * rank: this rank, in [0, nranks).
 * config: NULL for defaults, or a versioned config (borrowed). NCCL: the
 *   rank runs on config->device, or, when that is -1, on the calling
 *   thread's current device (device 0 where none is current): ranks of one
 *   machine must each select their own GPU first (ncore_device_set) or name
 *   it, else NCCL refuses them ("Duplicate GPU"). ncore_comm_init_from_env
 *   does this for launched programs. Either way the device is current on
 *   the calling thread when init returns.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out or id NULL, nranks < 1,
 * rank out of range, bad struct_size, unknown backend, id made for another
 * backend, nranks beyond what the host backend can hold, nranks differing
 * from rank 0's; host backend: id made on another machine or in another
 * network or PID namespace, where this rank cannot share memory with rank
 * 0); NCORE_ERR_UNAVAILABLE (backend missing); NCORE_ERR_TIMEOUT (not all
 * ranks joined in time; the message names the ranks that did not);
 * NCORE_ERR_REMOTE (a rank died while joining, or rank 0 ended the
 * rendezvous); NCORE_ERR_INVALID_USAGE (host: the id is in use by another
 * communicator — this rank, or one that joined with it, was claimed by a
 * second process, or every rank had joined already; rank 0 then fails its
 * communicator for every rank, and the message says which rank and
 * processes); NCORE_ERR_SYSTEM (out of
 * memory, shared memory, or the host rendezvous of this id is held by
 * another user's process, or by one that does not answer);
 * NCORE_ERR_NOT_SUPPORTED (NCCL: a config field set that the loaded NCCL
 * does not know; the message names it and the version needed);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_init_rank(ncore_comm_t *out, int nranks,
                                              const ncore_unique_id_t *id,
                                              int rank,
                                              const ncore_comm_config_t *config);

/* Creates ndev communicators in this process, one per rank, in one call
 * (ncclCommInitAll). Use groups to drive them from one thread.
 * comms: array of ndev handles, caller-owned; filled on success.
 * ndev: number of ranks, 1..4096.
 * devlist: NCCL: CUDA device of each rank (NULL = 0..ndev-1); host: must be
 *   NULL or all -1.
 * config: NULL for defaults (backend AUTO), or a versioned config whose
 *   `device` must be -1.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (comms NULL, ndev out of
 * range, bad devlist or config); NCORE_ERR_UNAVAILABLE; NCORE_ERR_SYSTEM;
 * NCORE_ERR_TIMEOUT (the ranks did not all join within the timeout);
 * NCORE_ERR_REMOTE; NCORE_ERR_UNHANDLED_CUDA. On failure no handle is made. */
NCORE_API ncore_status_t ncore_comm_init_all(ncore_comm_t *comms, int ndev,
                                             const int *devlist,
                                             const ncore_comm_config_t *config);

/* Splits a communicator by color, ordering new ranks by key, then old rank
 * (ncclCommSplit). Collective over comm.
 * out: receives the new communicator, or NCORE_NULL_HANDLE when color is
 *   NCORE_SPLIT_NOCOLOR.
 * color: >= 0, or NCORE_SPLIT_NOCOLOR.
 * config: NULL to inherit the parent's, or a versioned config; its backend
 *   must be AUTO or the parent's.
 * On a non-blocking communicator, too, it returns once the child exists
 * (NCCL hands the child's handle over only when it is made), within the
 * timeout.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, color < -1, bad
 * config); NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE (comm not fit for a
 * communicating call, see above); NCORE_ERR_REMOTE; NCORE_ERR_TIMEOUT;
 * NCORE_ERR_SYSTEM (out of memory or shared memory for the new
 * communicator); NCORE_ERR_NOT_SUPPORTED (as ncore_comm_init_rank);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_split(ncore_comm_t comm, int color, int key,
                                          ncore_comm_t *out,
                                          const ncore_comm_config_t *config);

/* Makes a communicator of the parent's ranks minus exclude_ranks
 * (ncclCommShrink). Collective over the ranks that remain; excluded ranks
 * (possibly dead) do not call it. New ranks keep the old order.
 * exclude_ranks: exclude_count distinct ranks of comm, borrowed; may be NULL
 *   when exclude_count is 0.
 * out: receives the new communicator.
 * flags: NCORE_SHRINK_DEFAULT or NCORE_SHRINK_ABORT.
 * NCCL: an empty exclusion list makes a copy of the parent (ncclCommSplit;
 * ncclCommShrink refuses one). NCCL (2.28 to 2.30) refuses to shrink a
 * parent whose own asynchronous error is set, i.e. once NCCL itself noticed
 * the failure (a closed connection): the parent's error is returned; abort
 * the parent and build a new communicator among the survivors instead.
 * A failure only ncore noticed (its timeout) does not stop a shrink.
 * Allowed on a communicator that failed: it is how the survivors go on.
 * Returns once the child exists, as ncore_comm_split does.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, a rank out of range
 * or repeated, this rank excluded, all excluded, unknown flags, bad config);
 * NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE (comm finalized, or a fork()
 * child's copy); NCORE_ERR_TIMEOUT; NCORE_ERR_REMOTE (a rank died while
 * joining the new communicator; NCCL: the parent's asynchronous error, see
 * above); NCORE_ERR_SYSTEM (out of memory or shared memory);
 * NCORE_ERR_NOT_SUPPORTED (as ncore_comm_init_rank);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_shrink(ncore_comm_t comm,
                                           const int *exclude_ranks,
                                           int exclude_count, ncore_comm_t *out,
                                           const ncore_comm_config_t *config,
                                           uint32_t flags);

/* Flushes this rank's outstanding operations and synchronises with the other
 * ranks so the communicator can be destroyed without leaving a peer waiting
 * (ncclCommFinalize). Collective. After it, only queries and destroy are valid.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (not a communicator handle);
 * NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE (already finalized, revoked, a
 * fork() child's copy, or the communicator's failure); NCORE_ERR_REMOTE;
 * NCORE_ERR_TIMEOUT. */
NCORE_API ncore_status_t ncore_comm_finalize(ncore_comm_t comm);

/* Releases the communicator and every resource it owns (registered buffers,
 * windows, custom operators, device communicators, symmetric allocations):
 * their handles answer NCORE_ERR_CLOSED afterwards (ncclCommDestroy).
 * Local. On a communicator that did not fail, this rank's put_signal and
 * signal calls still queued on their streams complete first (within its
 * timeout), as for ncore_window_close. Idempotent: destroying a handle that was already destroyed or
 * aborted returns NCORE_OK.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NCORE_NULL_HANDLE or not a
 * communicator handle). */
NCORE_API ncore_status_t ncore_comm_destroy(ncore_comm_t comm);

/* Aborts the communicator: a call blocked on it in another thread returns
 * NCORE_ERR_CLOSED, peers waiting on this rank get NCORE_ERR_REMOTE, and
 * everything is released as by ncore_comm_destroy (ncclCommAbort).
 * NCCL: ncore's own waits (ncore_comm_synchronize, a non-blocking or
 * bounded init, finalize) return at once; abort itself returns once NCCL
 * stopped the communicator's work (ncclCommRevoke waits for NCCL's internal
 * streams and joins its proxy threads: seconds with several peers over
 * sockets, 11 s with 4 ranks on NCCL 2.30.7). A call blocked inside NCCL itself
 * returns when NCCL gives up: NCCL connects to a peer inside the first call
 * that needs the connection (point-to-point always; collectives unless
 * NCCL_RUNTIME_CONNECT=0), and a peer that is dead or never takes part
 * blocks that call in NCCL's connection setup for NCCL's own timeout (about
 * a minute). Where every failure must surface within the communicator's
 * timeout, exchange a first message with each peer early.
 * Idempotent like ncore_comm_destroy. Safe from any thread. In a fork()
 * child it only releases the child's copy: the parent's peers see nothing.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (not a communicator handle). */
NCORE_API ncore_status_t ncore_comm_abort(ncore_comm_t comm);

/* Returns 1 if comm is a live communicator, 0 otherwise (closed, destroyed,
 * aborted, NULL or not a communicator). Cannot fail. */
NCORE_API int ncore_comm_is_valid(ncore_comm_t comm);

/* Queries. Each writes *out and returns NCORE_OK, or NCORE_ERR_INVALID_ARGUMENT
 * (out NULL, not a communicator handle) or NCORE_ERR_CLOSED. */

/* This rank, in [0, nranks) (ncclCommUserRank). */
NCORE_API ncore_status_t ncore_comm_rank(ncore_comm_t comm, int *out);
/* Number of ranks (ncclCommCount). */
NCORE_API ncore_status_t ncore_comm_size(ncore_comm_t comm, int *out);
/* CUDA device ordinal of this rank (ncclCommCuDevice); -1 on the host backend. */
NCORE_API ncore_status_t ncore_comm_device(ncore_comm_t comm, int *out);
/* The backend running the communicator: NCORE_BACKEND_HOST or _NCCL. */
NCORE_API ncore_status_t ncore_comm_backend(ncore_comm_t comm,
                                            ncore_backend_t *out);
/* This rank's index in its load/store-accessible (LSA) team. */
NCORE_API ncore_status_t ncore_comm_lsa_rank(ncore_comm_t comm, int *out);
/* Size of the LSA team: ranks whose memory this rank can map (all ranks on
 * the host backend; the NVLink domain's ranks on NCCL). */
NCORE_API ncore_status_t ncore_comm_lsa_size(ncore_comm_t comm, int *out);
/* Writes the communicator's asynchronous error (ncclCommGetAsyncError) into
 * *out: NCORE_OK, NCORE_IN_PROGRESS, or the failure that ended the
 * communicator (see the top of this header) — NCORE_ERR_TIMEOUT, a peer's
 * NCORE_ERR_REMOTE (it died or aborted), NCORE_ERR_INVALID_USAGE (ranks
 * disagreed on a collective or a message), or an error NCCL reported.
 * Returns as ncore_comm_rank. */
NCORE_API ncore_status_t ncore_comm_async_error(ncore_comm_t comm,
                                                ncore_status_t *out);

/* Waits until every operation enqueued on stream so far has completed, and
 * fails instead of hanging when comm cannot complete them: NCCL runs
 * operations asynchronously on the stream, so a peer that died or aborted,
 * or one that never takes part, shows up only while waiting for the stream.
 * The wait polls the stream and the communicator's asynchronous error
 * (ncclCommGetAsyncError), as NCCL's documentation asks of applications,
 * within the communicator's timeout (config.timeout_ms), and notices
 * ncore_comm_abort from another thread. On the host backend operations
 * complete before they return, so this only reports the communicator's
 * asynchronous error. On NCCL a stream that completed while an LSA peer
 * aborted the communicator answers NCORE_ERR_REMOTE too: the peer's kernels
 * end early and may complete this rank's with undefined results.
 * After NCORE_ERR_REMOTE or NCORE_ERR_TIMEOUT the communicator keeps that
 * error (ncore_comm_async_error reports it, later operations fail fast):
 * abort it (ncore_comm_abort), or shrink the failed ranks away, since work
 * still queued on the stream may never finish otherwise.
 * stream: the stream the operations were enqueued on (see ncore_stream_t);
 *   not one being captured into a CUDA graph (its work runs when the graph
 *   is launched: synchronize the stream it is launched on).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (not a communicator handle,
 * bad stream); NCORE_ERR_CLOSED (destroyed, or aborted while waiting);
 * NCORE_ERR_INVALID_USAGE (still initialising; NCCL: stream being captured
 * into a CUDA graph, refused with the capture left intact); NCORE_ERR_REMOTE (a peer
 * died or aborted); NCORE_ERR_TIMEOUT (not complete within the timeout);
 * NCORE_ERR_SYSTEM / NCORE_ERR_INTERNAL (a failure NCCL reported);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_synchronize(ncore_comm_t comm,
                                                ncore_stream_t stream);

/* Starts a group (ncclGroupStart): until the matching ncore_group_end, p2p
 * and collective calls made by this thread are only queued, and then run
 * together, so a rank can send to and receive from peers without deadlock,
 * and one thread can drive several communicators. Groups nest.
 * Returns NCORE_OK. */
NCORE_API ncore_status_t ncore_group_start(void);

/* Ends a group (ncclGroupEnd); at the outermost end, runs the queued calls.
 * On the host backend it returns once they completed; on NCCL once they were
 * enqueued on their streams. If a queued call fails, the first failure is
 * returned and the rest of the group is abandoned (and, on the host backend,
 * the communicators it left unfinished fail). A communicator destroyed, or
 * a custom operator or window closed, after a call using it was queued
 * stays alive until this returns; one aborted fails its calls with
 * NCORE_ERR_CLOSED.
 * Returns NCORE_OK; NCORE_ERR_INVALID_USAGE (no group started, or a queued
 * call's); NCORE_ERR_CLOSED; NCORE_ERR_REMOTE; NCORE_ERR_TIMEOUT;
 * NCORE_ERR_SYSTEM; NCORE_ERR_INTERNAL; NCORE_ERR_UNHANDLED_CUDA;
 * NCORE_IN_PROGRESS (a non-blocking NCCL communicator). */
NCORE_API ncore_status_t ncore_group_end(void);

NCORE_END_DECLS

#endif /* NCORE_COMM_H */
