/* core — the interface between the ABI entry points (core/ *.c) and a backend
 * (core/host/, core/nccl/).
 *
 * The core validates every argument before a backend sees it (handles live,
 * pointers non-NULL where needed, ranks and roots in range, dtypes and ops
 * valid, struct sizes, window bounds), so backends only check what only they
 * can know (peer liveness, device of a pointer, NCCL's own results).
 * Backends report failures with core_error() (core/error.h) and return its
 * status. Byte counts are given alongside element counts where both help.
 *
 * Backends own their objects (the types below, each backend's own); the
 * core owns handles, the lists of resources per communicator and each
 * communicator's liveness (core_comm_state_t), and calls the backend's
 * release functions when a resource or communicator goes. What differs
 * between backends and the core must know (where buffers live, whether
 * there are devices) is data in the table (core_backend_caps_t): the core
 * asks which backend it talks to only to name it (ncore_comm_backend,
 * ncore_library_info, a child's config naming its parent's backend). */
#ifndef NCORE_CORE_BACKEND_H
#define NCORE_CORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <ncore.h>

#include "comm_state.h"
#include "op_table.h"

/* A backend's own objects. Incomplete here: each backend completes them as
 * its own structs in its own files (core/host/comm.h defines struct
 * core_backend_comm as the host's communicator, core/nccl/comm.h as
 * NCCL's; no file sees both), so the core holds and passes them without
 * knowing what they are, and the compiler refuses a window where a
 * communicator belongs. */
/* communicator, registered buffer, custom operator, window, device
 * communicator, symmetric allocation: */
typedef struct core_backend_comm core_backend_comm_t;
typedef struct core_backend_buffer core_backend_buffer_t;
typedef struct core_backend_redop core_backend_redop_t;
typedef struct core_backend_window core_backend_window_t;
typedef struct core_backend_dev_comm core_backend_dev_comm_t;
typedef struct core_backend_symmetric core_backend_symmetric_t;
struct core_dev_comm_asks; /* core/devcomm_requirements.h */

/* A communicator configuration after validation: every field present, the
 * timeout resolved (NCORE_TIMEOUT_MS or 300000 for 0; -1 = forever). */
typedef struct core_config {
  ncore_comm_config_t user;  /* full-size copy, defaults filled in */
  ncore_backend_t backend;   /* resolved: HOST or NCCL */
  int64_t timeout_ms;        /* -1 = forever */
} core_config_t;

/* What the core needs to know about a communicator. */
typedef struct core_comm_info {
  int rank;
  int nranks;
  int device;   /* CUDA ordinal, -1 on host */
  int lsa_rank;
  int lsa_size;
} core_comm_info_t;

/* Which logical endpoint address window_le_info answers (ncore/cft.h). */
enum { CORE_CFT_LE_MULTIMEM, CORE_CFT_LE_TEAM_MEMBER, CORE_CFT_LE_PEER };

/* How a call's config chose its algorithm (alg_selection, read by
 * core_coll_config_read). */
typedef enum core_coll_algo {
  CORE_COLL_ALGO_COMM,      /* no choice made: the communicator's (NCORE_ALGO) */
  CORE_COLL_ALGO_AUTO,      /* "auto": the size decides */
  CORE_COLL_ALGO_NCCL,      /* "nccl": NCCL's kernels, NCCL picks among them */
  CORE_COLL_ALGO_ONESHOT,   /* "oneshot": ncore's one-shot kernel */
  CORE_COLL_ALGO_TWOSHOT,   /* "twoshot": ncore's two-shot kernel */
  CORE_COLL_ALGO_SELECTION  /* NCCL's expression: NCCL's kernels, filtered */
} core_coll_algo_t;

/* A call's config after validation: every field present (a smaller
 * caller's missing ones at their defaults) and alg_selection read. The
 * pointers in it (alg_selection, vendor_options) are the caller's,
 * borrowed for the call. */
typedef struct core_coll_config {
  ncore_coll_config_t user;
  core_coll_algo_t algo;
} core_coll_config_t;

/* One collective, validated. `count` is the count argument of the public call
 * (allreduce: count; allgather: sendcount; reduce_scatter: recvcount;
 * alltoall/gather/scatter: per-rank count): its row's count_name
 * (op_table.h). */
typedef struct core_coll_args {
  core_coll_kind_t kind;
  const void *sendbuf;
  void *recvbuf;
  size_t count;
  ncore_dtype_t dtype;
  ncore_redop_t op;        /* built-in op, meaningful for reducing kinds */
  core_backend_redop_t *custom_op; /* a custom operator; NULL: built-in op */
  int root;                /* meaningful for rooted kinds */
  ncore_stream_t stream;
  /* The call's config (a _config twin); NULL: none. Valid for the
   * backend's collective() call only: a backend that keeps the args past
   * it (a queued group) must not keep this. */
  const core_coll_config_t *config;
} core_coll_args_t;

/* One wait request, validated (peer in range, count >= 1). */
typedef struct core_wait {
  int peer;
  uint32_t op_count;
} core_wait_t;

/* What a backend's buffers and devices are: data the core's checks read. */
typedef struct core_backend_caps {
  /* Where the buffers of its communicators live (ncore_comm_check_buffer):
   * NCORE_DEVICE_CPU (id -1) or NCORE_DEVICE_CUDA (the communicator's
   * device). */
  ncore_device_type_t memory;
  /* 1: devices are ordinals >= 0 (a config's device, init_all's devlist,
   * ncore_device_set; a launched rank takes local rank % device count).
   * 0: no devices: device -1 everywhere (ncore_device_set also takes 0, the
   * one device ncore_device_count counts). */
  int devices;
  /* Device communicators take NCCL's resource and team requirement lists
   * (0: both must be NULL). */
  int dev_comm_requirement_lists;
} core_backend_caps_t;

typedef struct core_backend_ops {
  ncore_backend_t kind;
  const char *name;  /* "host", "nccl" */
  core_backend_caps_t caps;

  /* NCORE_OK if usable in this process, else NCORE_ERR_UNAVAILABLE with a
   * message naming what is missing. Cheap after the first call. */
  ncore_status_t (*probe)(void);
  /* After probe() succeeded: fills what only this backend knows of *out
   * (ncore_library_info): its features and, for NCCL, the loaded libnccl
   * and the device count. Records no error. */
  void (*describe)(ncore_library_info_t *out);
  /* Parameters (ncore/params.h), or NULL where the backend has no
   * parameter API: the core then serves the environment. Both answer
   * NCORE_ERR_NOT_SUPPORTED when the loaded library lacks the API (the
   * core serves the environment then too). param_get: *value (*length
   * bytes, not always NUL-terminated) stays the backend's, valid until its
   * next call on this thread; INVALID_ARGUMENT with "no parameter" for an
   * unknown key. param_keys: *count names, owned likewise. */
  ncore_status_t (*param_get)(const char *key, const char **value, size_t *length);
  ncore_status_t (*param_keys)(const char *const **keys, int *count);

  /* ---- communicators ----
   * Every function that makes a communicator gets its liveness (state, the
   * core's, live for as long as the communicator): the backend keeps the
   * pointer, reads whether it was aborted or failed there, and records
   * there the failures it sees (core_comm_state_fail). */
  ncore_status_t (*get_unique_id)(ncore_unique_id_t *out);
  /* ids: nids >= 1 ids, the same on every rank (ncclCommInitRankScalable
   * when nids > 1). */
  ncore_status_t (*comm_init_rank)(core_comm_state_t *state,
                                   core_backend_comm_t **out, int nranks,
                                   const ncore_unique_id_t *ids, int nids,
                                   int rank, const core_config_t *config);
  /* states, out: ndev each. devlist may be NULL. */
  ncore_status_t (*comm_init_all)(core_comm_state_t *const *states,
                                  core_backend_comm_t **out, int ndev,
                                  const int *devlist,
                                  const core_config_t *config);
  /* *out = NULL when color == NCORE_SPLIT_NOCOLOR (state then unused). */
  ncore_status_t (*comm_split)(core_backend_comm_t *comm, int color, int key,
                               core_comm_state_t *state,
                               core_backend_comm_t **out,
                               const core_config_t *config);
  /* exclude: validated (in range, distinct, not self). */
  ncore_status_t (*comm_shrink)(core_backend_comm_t *comm, const int *exclude,
                                int count, core_comm_state_t *state,
                                core_backend_comm_t **out,
                                const core_config_t *config, uint32_t flags);
  ncore_status_t (*comm_finalize)(core_backend_comm_t *comm);
  /* Makes blocked and future calls on comm fail fast, and tells peers this
   * rank aborted; the core has marked its state aborted already. Any
   * thread, any time, idempotent; frees nothing. */
  void (*comm_abort_signal)(core_backend_comm_t *comm);
  /* Frees the backend's state; no call on comm is running. aborted: the
   * communicator was aborted (the backend may skip polite teardown). */
  void (*comm_destroy)(core_backend_comm_t *comm, int aborted);
  /* Frees this process's memory of a communicator inherited through fork():
   * no call to NCCL, CUDA or the peers (they belong to the parent). */
  void (*comm_forget)(core_backend_comm_t *comm);
  void (*comm_info)(core_backend_comm_t *comm, core_comm_info_t *out);
  /* The backend's asynchronous error (its state's recorded failure, or
   * one it sees now and records). */
  ncore_status_t (*comm_async_error)(core_backend_comm_t *comm,
                                     ncore_status_t *out);
  /* Waits for the work enqueued on stream, watching the communicator's
   * asynchronous error, its abort flag and timeout_ms (-1 = forever);
   * stream checked by the core. See ncore_comm_synchronize. */
  ncore_status_t (*comm_synchronize)(core_backend_comm_t *comm,
                                     ncore_stream_t stream,
                                     int64_t timeout_ms);
  /* Fills what only the backend knows of *out (a full-size struct whose
   * rank, nranks and cuda_device the core set from core_comm_info_t). */
  ncore_status_t (*comm_properties)(core_backend_comm_t *comm,
                                    ncore_comm_properties_t *out);

  /* ---- communicator control (ncore/comm_control.h). The core checked the
   * arguments and the state (not revoked twice, suspended only once, ...);
   * a backend that cannot do the call (an older NCCL) answers
   * NOT_SUPPORTED naming it and the version needed. ---- */
  ncore_status_t (*comm_revoke)(core_backend_comm_t *comm, uint32_t flags);
  ncore_status_t (*comm_get_unique_id)(core_backend_comm_t *comm,
                                       ncore_unique_id_t *out);
  /* comm: NULL on a new rank (then rank >= 0 and id set); an existing rank
   * passes rank -1, and id only at the root. state: the new one's. */
  ncore_status_t (*comm_grow)(core_backend_comm_t *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              core_comm_state_t *state,
                              core_backend_comm_t **out,
                              const core_config_t *config);
  ncore_status_t (*comm_suspend)(core_backend_comm_t *comm, uint32_t flags);
  ncore_status_t (*comm_resume)(core_backend_comm_t *comm);
  ncore_status_t (*comm_mem_stat)(core_backend_comm_t *comm,
                                  ncore_comm_mem_stat_t stat, uint64_t *out);

  /* ---- groups (thread-wide, nesting handled by the core: called at the
   * outermost start and end only) ---- */
  /* From here to comm_stream_check: what a send, recv or collective calls,
   * in one cache line of the table. */
  _Alignas(64) ncore_status_t (*group_start)(void);
  ncore_status_t (*group_end)(void);

  /* ---- point-to-point and collectives ---- */
  ncore_status_t (*send)(core_backend_comm_t *comm, const void *buf,
                         size_t count, ncore_dtype_t dtype, int peer,
                         ncore_stream_t stream);
  ncore_status_t (*recv)(core_backend_comm_t *comm, void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);
  ncore_status_t (*collective)(core_backend_comm_t *comm,
                               const core_coll_args_t *args);
  /* NCORE_OK if stream is acceptable to this backend (NULL always is). */
  ncore_status_t (*stream_check)(ncore_stream_t stream, const char *argument);
  /* Optional: NCORE_OK if stream may carry work of comm (NULL always may):
   * stricter than stream_check where a backend can tell a stream's device
   * (NCCL: a stream of the communicator's context). NULL: stream_check is
   * the whole check. On every call with a communicator and a stream (send,
   * recv, collectives, one-sided, symmetric put/get, synchronize), so it
   * must cost no more than a lookup. */
  ncore_status_t (*comm_stream_check)(core_backend_comm_t *comm,
                                      ncore_stream_t stream,
                                      const char *argument);

  /* ---- registered buffers ---- */
  ncore_status_t (*buffer_register)(core_backend_comm_t *comm, void *ptr,
                                    size_t size, core_backend_buffer_t **out,
                                    uintptr_t *native);
  void (*buffer_deregister)(core_backend_comm_t *comm,
                            core_backend_buffer_t *buffer);

  /* ---- custom reduction operators ---- */
  ncore_status_t (*redop_create_pre_mul_sum)(
      core_backend_comm_t *comm, const void *scalar, ncore_dtype_t dtype,
      ncore_scalar_residence_t residence, core_backend_redop_t **out);
  void (*redop_destroy)(core_backend_comm_t *comm, core_backend_redop_t *op);

  /* ---- windows ---- */
  ncore_status_t (*window_register)(core_backend_comm_t *comm, void *ptr,
                                    size_t size, uint32_t flags,
                                    core_backend_window_t **out,
                                    uintptr_t *native);
  void (*window_deregister)(core_backend_comm_t *comm,
                            core_backend_window_t *window);
  /* Size of peer's part (peer validated). */
  size_t (*window_peer_size)(core_backend_window_t *window, int peer);
  /* *out = NULL when not reachable. rank validated; offset <= part size. */
  ncore_status_t (*window_lsa_pointer)(core_backend_comm_t *comm,
                                       core_backend_window_t *window,
                                       int lsa_rank, size_t offset,
                                       void **out);
  ncore_status_t (*window_peer_pointer)(core_backend_comm_t *comm,
                                        core_backend_window_t *window,
                                        int peer, size_t offset, void **out);
  ncore_status_t (*window_multimem_pointer)(core_backend_comm_t *comm,
                                            core_backend_window_t *window,
                                            size_t offset, void **out);
  /* Through a team's multimem handle (its multicast base, not NULL). */
  ncore_status_t (*window_team_multimem_pointer)(core_backend_comm_t *comm,
                                                 core_backend_window_t *window,
                                                 void *mc_base_pointer,
                                                 size_t offset, void **out);

  /* ---- CFT (ncore/cft.h). The core checked the mode, the team, the ranks
   * and the offset; a backend without CFT refuses each. ---- */
  /* multimem 1: the CFT multimem team (mode unused); 0: the CFT team in
   * layout mode. */
  ncore_status_t (*cft_team)(core_backend_comm_t *comm, int multimem, int mode,
                             ncore_team_t *out);
  /* The logical endpoint address of offset in the part named by what:
   * CORE_CFT_LE_MULTIMEM (peer, team unused), CORE_CFT_LE_TEAM_MEMBER
   * (member peer of *team) or CORE_CFT_LE_PEER (world rank peer). */
  ncore_status_t (*window_le_info)(core_backend_comm_t *comm,
                                   core_backend_window_t *window, int what,
                                   int peer, const ncore_team_t *team,
                                   size_t offset, ncore_cft_le_info_t *out);

  /* ---- one-sided ---- */
  ncore_status_t (*signal)(core_backend_comm_t *comm, int peer,
                           ncore_stream_t stream);
  ncore_status_t (*wait_signal)(core_backend_comm_t *comm,
                                const core_wait_t *waits, size_t count,
                                ncore_stream_t stream);
  /* Bounds checked by the core against window_peer_size. */
  ncore_status_t (*put_signal)(core_backend_comm_t *comm, const void *buf,
                               size_t bytes, int peer,
                               core_backend_window_t *window,
                               size_t byte_offset, ncore_stream_t stream);

  /* ---- device communicators ---- */
  /* asks: the checked, merged team / resource requirements; the backend
   * fills asks->resource_handles and, for each team asking for multimem,
   * asks->multimem (core/devcomm_requirements.h). */
  ncore_status_t (*dev_comm_create)(core_backend_comm_t *comm,
                                    const ncore_dev_comm_requirements_t *req,
                                    struct core_dev_comm_asks *asks,
                                    core_backend_dev_comm_t **out);
  void (*dev_comm_destroy)(core_backend_comm_t *comm,
                           core_backend_dev_comm_t *dev_comm);
  void *(*dev_comm_pointer)(core_backend_dev_comm_t *dev_comm);
  /* Fills a full-size info struct. */
  void (*dev_comm_info)(core_backend_dev_comm_t *dev_comm,
                        ncore_dev_comm_info_t *out);

  /* ---- symmetric memory ---- */
  ncore_status_t (*symmetric_alloc)(core_backend_comm_t *comm, size_t size,
                                    core_backend_symmetric_t **out);
  void (*symmetric_free)(core_backend_comm_t *comm,
                         core_backend_symmetric_t *sym);
  void *(*symmetric_local_pointer)(core_backend_symmetric_t *sym);
  /* NULL when pe is not reachable. */
  void *(*symmetric_peer_pointer)(core_backend_symmetric_t *sym, int pe);
  ncore_status_t (*symmetric_put)(core_backend_comm_t *comm,
                                  core_backend_symmetric_t *sym,
                                  size_t dst_offset, const void *src,
                                  size_t bytes, int pe, ncore_stream_t stream);
  ncore_status_t (*symmetric_get)(core_backend_comm_t *comm, void *dst,
                                  core_backend_symmetric_t *sym,
                                  size_t src_offset, size_t bytes, int pe,
                                  ncore_stream_t stream);

  /* ---- memory, devices, streams (no communicator) ---- */
  ncore_status_t (*mem_alloc)(void **out, size_t size);
  ncore_status_t (*mem_free)(void *ptr);
  ncore_status_t (*device_count)(int *out);
  ncore_status_t (*device_set)(int device);
  ncore_status_t (*device_get)(int *out);
  ncore_status_t (*stream_create)(ncore_stream_t *out);
  ncore_status_t (*stream_destroy)(ncore_stream_t stream);
  ncore_status_t (*stream_synchronize)(ncore_stream_t stream);
  ncore_status_t (*memcpy_async)(void *dst, const void *src, size_t bytes,
                                 ncore_memcpy_kind_t kind,
                                 ncore_stream_t stream);
  ncore_status_t (*memset_async)(void *dst, int value, size_t bytes,
                                 ncore_stream_t stream);
} core_backend_ops_t;

/* The two backends. The NCCL one is always linked in; it loads libnccl.so.2
 * and libcuda.so.1 on first use and answers UNAVAILABLE from probe() when it
 * cannot. */
extern const core_backend_ops_t core_host_backend;
extern const core_backend_ops_t core_nccl_backend;

/* Resolves AUTO / NCORE_BACKEND to a concrete, available backend.
 * Returns NCORE_OK or the error (recorded). */
ncore_status_t core_backend_select(ncore_backend_t requested,
                                   const core_backend_ops_t **out);
/* The same, also writing why that backend (cap bytes into reason; on
 * failure reason is untouched and the recorded message says why). */
ncore_status_t core_backend_select_why(ncore_backend_t requested,
                                       const core_backend_ops_t **out,
                                       char *reason, size_t cap);

/* Resolves a timeout_ms config value (0 = default, negative = forever). */
int64_t core_timeout_resolve(int32_t timeout_ms);

#endif
