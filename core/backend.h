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
 * Backends own their per-communicator state ("impl" pointers below); the
 * core owns handles and the lists of resources per communicator, and calls
 * the backend's release functions when a resource or communicator goes. */
#ifndef NCORE_CORE_BACKEND_H
#define NCORE_CORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <ncore.h>

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

typedef enum core_coll_kind {
  CORE_COLL_ALLREDUCE,
  CORE_COLL_BROADCAST,
  CORE_COLL_REDUCE,
  CORE_COLL_ALLGATHER,
  CORE_COLL_REDUCE_SCATTER,
  CORE_COLL_ALLTOALL,
  CORE_COLL_GATHER,
  CORE_COLL_SCATTER
} core_coll_kind_t;

/* One collective, validated. `count` is the count argument of the public call
 * (allreduce: count; allgather: sendcount; reduce_scatter: recvcount;
 * alltoall/gather/scatter: per-rank count). */
typedef struct core_coll_args {
  core_coll_kind_t kind;
  const void *sendbuf;
  void *recvbuf;
  size_t count;
  ncore_dtype_t dtype;
  ncore_redop_t op;        /* built-in op, meaningful for reducing kinds */
  void *custom_op;         /* backend's custom-op impl, or NULL for built-ins */
  int root;                /* meaningful for rooted kinds */
  ncore_stream_t stream;
} core_coll_args_t;

/* One wait request, validated (peer in range, count >= 1). */
typedef struct core_wait {
  int peer;
  uint32_t op_count;
} core_wait_t;

typedef struct core_backend_ops {
  ncore_backend_t kind;
  const char *name;  /* "host", "nccl" */

  /* NCORE_OK if usable in this process, else NCORE_ERR_UNAVAILABLE with a
   * message naming what is missing. Cheap after the first call. */
  ncore_status_t (*probe)(void);
  /* After probe() succeeded: fills what only this backend knows of *out
   * (ncore_library_info): its features and, for NCCL, the loaded libnccl
   * and the device count. Records no error. */
  void (*describe)(ncore_library_info_t *out);

  /* ---- communicators ---- */
  ncore_status_t (*get_unique_id)(ncore_unique_id_t *out);
  /* ids: nids >= 1 ids, the same on every rank (ncclCommInitRankScalable
   * when nids > 1). */
  ncore_status_t (*comm_init_rank)(void **out, int nranks,
                                   const ncore_unique_id_t *ids, int nids,
                                   int rank, const core_config_t *config);
  /* out: ndev impl pointers. devlist may be NULL. */
  ncore_status_t (*comm_init_all)(void **out, int ndev, const int *devlist,
                                  const core_config_t *config);
  /* *out = NULL when color == NCORE_SPLIT_NOCOLOR. */
  ncore_status_t (*comm_split)(void *comm, int color, int key, void **out,
                               const core_config_t *config);
  /* exclude: validated (in range, distinct, not self). */
  ncore_status_t (*comm_shrink)(void *comm, const int *exclude, int count,
                                void **out, const core_config_t *config,
                                uint32_t flags);
  ncore_status_t (*comm_finalize)(void *comm);
  /* Makes blocked and future calls on comm fail fast, and tells peers this
   * rank aborted. Any thread, any time, idempotent; frees nothing. */
  void (*comm_abort_signal)(void *comm);
  /* Frees the backend's state; no call on comm is running. aborted: the
   * communicator was aborted (the backend may skip polite teardown). */
  void (*comm_destroy)(void *comm, int aborted);
  /* Frees this process's memory of a communicator inherited through fork():
   * no call to NCCL, CUDA or the peers (they belong to the parent). */
  void (*comm_forget)(void *comm);
  void (*comm_info)(void *comm, core_comm_info_t *out);
  ncore_status_t (*comm_async_error)(void *comm, ncore_status_t *out);
  /* Waits for the work enqueued on stream, watching the communicator's
   * asynchronous error, its abort flag and timeout_ms (-1 = forever);
   * stream checked by the core. See ncore_comm_synchronize. */
  ncore_status_t (*comm_synchronize)(void *comm, ncore_stream_t stream,
                                     int64_t timeout_ms);
  /* Fills what only the backend knows of *out (a full-size struct whose
   * rank, nranks and cuda_device the core set from core_comm_info_t). */
  ncore_status_t (*comm_properties)(void *comm, ncore_comm_properties_t *out);

  /* ---- communicator control (ncore/comm_control.h). The core checked the
   * arguments and the state (not revoked twice, suspended only once, ...);
   * a backend that cannot do the call (an older NCCL) answers
   * NOT_SUPPORTED naming it and the version needed. ---- */
  ncore_status_t (*comm_revoke)(void *comm, uint32_t flags);
  ncore_status_t (*comm_get_unique_id)(void *comm, ncore_unique_id_t *out);
  /* comm: NULL on a new rank (then rank >= 0 and id set); an existing rank
   * passes rank -1, and id only at the root. */
  ncore_status_t (*comm_grow)(void *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              void **out, const core_config_t *config);
  ncore_status_t (*comm_suspend)(void *comm, uint32_t flags);
  ncore_status_t (*comm_resume)(void *comm);
  ncore_status_t (*comm_mem_stat)(void *comm, ncore_comm_mem_stat_t stat,
                                  uint64_t *out);

  /* ---- groups (thread-wide, nesting handled by the core: called at the
   * outermost start and end only) ---- */
  ncore_status_t (*group_start)(void);
  ncore_status_t (*group_end)(void);

  /* ---- point-to-point and collectives ---- */
  ncore_status_t (*send)(void *comm, const void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);
  ncore_status_t (*recv)(void *comm, void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);
  ncore_status_t (*collective)(void *comm, const core_coll_args_t *args);

  /* ---- registered buffers ---- */
  ncore_status_t (*buffer_register)(void *comm, void *ptr, size_t size,
                                    void **out, uintptr_t *native);
  void (*buffer_deregister)(void *comm, void *buffer);

  /* ---- custom reduction operators ---- */
  ncore_status_t (*redop_create_pre_mul_sum)(void *comm, const void *scalar,
                                             ncore_dtype_t dtype,
                                             ncore_scalar_residence_t residence,
                                             void **out);
  void (*redop_destroy)(void *comm, void *op);

  /* ---- windows ---- */
  ncore_status_t (*window_register)(void *comm, void *ptr, size_t size,
                                    uint32_t flags, void **out,
                                    uintptr_t *native);
  void (*window_deregister)(void *comm, void *window);
  /* Size of peer's part (peer validated). */
  size_t (*window_peer_size)(void *window, int peer);
  /* *out = NULL when not reachable. rank validated; offset <= part size. */
  ncore_status_t (*window_lsa_pointer)(void *comm, void *window, int lsa_rank,
                                       size_t offset, void **out);
  ncore_status_t (*window_peer_pointer)(void *comm, void *window, int peer,
                                        size_t offset, void **out);
  ncore_status_t (*window_multimem_pointer)(void *comm, void *window,
                                            size_t offset, void **out);

  /* ---- one-sided ---- */
  ncore_status_t (*signal)(void *comm, int peer, ncore_stream_t stream);
  ncore_status_t (*wait_signal)(void *comm, const core_wait_t *waits,
                                size_t count, ncore_stream_t stream);
  /* Bounds checked by the core against window_peer_size. */
  ncore_status_t (*put_signal)(void *comm, const void *buf, size_t bytes,
                               int peer, void *window, size_t byte_offset,
                               ncore_stream_t stream);

  /* ---- device communicators ---- */
  ncore_status_t (*dev_comm_create)(void *comm,
                                    const ncore_dev_comm_requirements_t *req,
                                    void **out);
  void (*dev_comm_destroy)(void *comm, void *dev_comm);
  void *(*dev_comm_pointer)(void *dev_comm);
  /* Fills a full-size info struct. */
  void (*dev_comm_info)(void *dev_comm, ncore_dev_comm_info_t *out);

  /* ---- symmetric memory ---- */
  ncore_status_t (*symmetric_alloc)(void *comm, size_t size, void **out);
  void (*symmetric_free)(void *comm, void *sym);
  void *(*symmetric_local_pointer)(void *sym);
  /* NULL when pe is not reachable. */
  void *(*symmetric_peer_pointer)(void *sym, int pe);
  ncore_status_t (*symmetric_put)(void *comm, void *sym, size_t dst_offset,
                                  const void *src, size_t bytes, int pe,
                                  ncore_stream_t stream);
  ncore_status_t (*symmetric_get)(void *comm, void *dst, void *sym,
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
  /* NCORE_OK if stream is acceptable to this backend (NULL always is). */
  ncore_status_t (*stream_check)(ncore_stream_t stream, const char *argument);
  /* Optional: NCORE_OK if stream may carry work of comm (NULL always may):
   * stricter than stream_check where a backend can tell a stream's device
   * (NCCL: a stream of the communicator's context). NULL: stream_check is
   * the whole check. On every send, recv and collective, so it must cost
   * no more than a lookup. */
  ncore_status_t (*comm_stream_check)(void *comm, ncore_stream_t stream,
                                      const char *argument);
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
