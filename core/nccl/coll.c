/* core/nccl — the collectives (coll.h): direct NCCL calls, each the NCCL
 * function its row of the table of operations (op_table.h) names (ncore's
 * dtype and built-in op values equal NCCL's, so they pass through
 * unchanged). */
#include "coll.h"

#include "../dtype.h"
#include "../error.h"
#include "../op_table.h"
#include "../wait_watch.h"
#include "coll_config.h"
#include "custom_redop.h"
#include "group.h"
#include "small_coll.h"
#include "wait.h"
#include "window_alias.h"
#include "../hot_path.h"

/* ncclInProgress from an enqueue on a non-blocking communicator means
 * "queued": NCORE_IN_PROGRESS, and the next call waits (nccl_enqueued). */
#define enqueued(r, what, nc) nccl_enqueued(c, (r), (what))
/* NCCL's arguments after the datatype, by the row's (reduces, rooted), as
 * every NCCL collective takes them. */
#define NCCL_COLL_ARGS_00
#define NCCL_COLL_ARGS_10 , op
#define NCCL_COLL_ARGS_01 , a->root
#define NCCL_COLL_ARGS_11 , op, a->root
#define NCCL_COLL_CASE(name, KIND, nccl, go, reduces, rooted, send, recv,     \
                       count_name, in_place)                                  \
  case CORE_COLL_##KIND:                                                      \
    return enqueued(nccl_fn.coll_##name(a->sendbuf, a->recvbuf, a->count,     \
                                 t NCCL_COLL_ARGS_##reduces##rooted, nc, s),  \
                    #nccl, nc);

/* The same through the row's nccl*Config twin, with config. */
#define NCCL_COLL_CONFIG_CASE(name, KIND, nccl, go, reduces, rooted, send,    \
                              recv, count_name, in_place)                     \
  case CORE_COLL_##KIND:                                                      \
    return enqueued(nccl_fn.coll_config_##name(                               \
                        a->sendbuf, a->recvbuf, a->count,                     \
                        t NCCL_COLL_ARGS_##reduces##rooted, nc, s, config),   \
                    #nccl "Config", nc);

/* One collective, as NCCL's call for a->kind (its row of op_table.h), on
 * stream s; through its nccl*Config twin where config is not NULL. */
static inline __attribute__((always_inline)) ncore_status_t collective_call(
    nccl_comm_t *c, const core_coll_args_t *a, cudaStream_t s,
    const nccl_coll_config_t *config) {
  ncclDataType_t t = (ncclDataType_t)a->dtype;
  ncclRedOp_t op = a->custom_op ? a->custom_op->op : (ncclRedOp_t)a->op;
  ncclComm_t nc = c->nccl;
  if (config != NULL) {
    switch (a->kind) {
      CORE_OPERATIONS(NCCL_COLL_CONFIG_CASE, CORE_OP_NONE, CORE_OP_NONE)
      case CORE_COLL_KINDS:
        break;
    }
  } else {
    switch (a->kind) {
      CORE_OPERATIONS(NCCL_COLL_CASE, CORE_OP_NONE, CORE_OP_NONE)
      case CORE_COLL_KINDS:
        break;
    }
  }
  return core_error(NCORE_ERR_INTERNAL, "kind: unknown collective %d",
                    (int)a->kind);
}

/* collective_call, watched: NCCL may wait inside it for its peers
 * (wait_watch.h). This, collective_call and nccl_kernels are inlined into
 * nccl_collective: one frame between the core and NCCL. */
static inline __attribute__((always_inline)) ncore_status_t collective_on(
    nccl_comm_t *c, const core_coll_args_t *a, cudaStream_t s,
    const nccl_coll_config_t *config) {
  core_wait_watch_t *watched =
      core_wait_watch_enter("NCCL's collective call", -1, c->rank, c->nranks);
  ncore_status_t status = collective_call(c, a, s, config);
  core_wait_watch_leave(watched);
  return status;
}

/* NCCL runs alltoall, gather and scatter as send/recv pairs
 * (p2pTaskAppend, src/enqueue.cc), registration rule included, unless both
 * buffers lie in COLL_SYMMETRIC windows (it may then copy from the windows
 * directly): their buffers in windows take the alias send/recv take
 * (window_alias.h). */
static int runs_as_send_recv(core_coll_kind_t kind) {
  return kind == CORE_COLL_ALLTOALL || kind == CORE_COLL_GATHER ||
         kind == CORE_COLL_SCATTER;
}

/* The bytes a buffer of the collective holds on this rank. */
static size_t part_bytes(const nccl_comm_t *c, const core_coll_args_t *a,
                         core_coll_part_t part) {
  return a->count * core_dtype_size(a->dtype) *
         (part.per_rank ? (size_t)c->nranks : 1);
}

/* a, of a collective NCCL runs as send/recv (runs_as_send_recv), with its
 * buffers moved to their aliases, in *moved. */
static const core_coll_args_t *p2p_addresses(nccl_comm_t *c,
                                             const core_coll_args_t *a,
                                             core_coll_args_t *moved) {
  const core_coll_shape_t *shape = &core_coll_shapes[a->kind];
  size_t send = part_bytes(c, a, shape->send), recv = part_bytes(c, a, shape->recv);
  if (a->sendbuf != NULL && a->recvbuf != NULL &&
      nccl_in_symmetric_window(c, a->sendbuf, send) &&
      nccl_in_symmetric_window(c, a->recvbuf, recv))
    return a;
  *moved = *a;
  if (a->sendbuf != NULL) moved->sendbuf = nccl_p2p_address(c, a->sendbuf, send);
  if (a->recvbuf != NULL)
    moved->recvbuf = (void *)nccl_p2p_address(c, a->recvbuf, recv);
  return moved;
}

/* A forced ncore kernel (config alg_selection "oneshot" / "twoshot",
 * force_alg_selection 1) that did not take the call. */
static ncore_status_t forced_kernel_refused(const core_coll_args_t *a) {
  return core_error(NCORE_ERR_INVALID_USAGE,
                    "config.alg_selection: \"%s\" forces ncore's kernel, "
                    "which does not serve this %s (it serves allreduce, "
                    "allgather and reduce-scatter outside groups, within one "
                    "LSA team of 2..8 ranks, up to its staging size, for "
                    "built-in sum/prod/max/min on 16- to 64-bit types): set "
                    "config.force_alg_selection = 0 to let NCCL run it",
                    a->config->user.alg_selection,
                    core_coll_shapes[a->kind].name);
}

/* The call on NCCL's kernels, with config's NCCL part where it has one
 * (config NULL: the common call, without a config). */
static inline __attribute__((always_inline)) ncore_status_t nccl_kernels(
    nccl_comm_t *c, const core_coll_args_t *args,
    const nccl_call_config_t *config) {
  const nccl_coll_config_t *nc =
      config != NULL && config->use_nccl_config ? &config->nccl : NULL;
  core_coll_args_t moved;
  const core_coll_args_t *a =
      runs_as_send_recv(args->kind) ? p2p_addresses(c, args, &moved) : args;
  cudaStream_t s = (cudaStream_t)a->stream;
  if (!c->legacy_stream_detour || !nccl_stream_is_legacy(s))
    return collective_on(c, a, s, nc);
  /* NCCL before 2.29.7 runs copy-engine collectives (CTA policy ZERO over
   * symmetric windows) with cudaMemcpyBatchAsync, which refuses the legacy
   * default stream: "Cuda failure 'invalid argument'" (2.29.7 falls back to
   * cudaMemcpyAsync there, ce_coll.cc). Such a call runs on the calling
   * thread's per-thread default stream instead, which the legacy stream
   * synchronises with both ways (a blocking stream), and the legacy stream
   * then waits for it: the order and a later synchronisation of the legacy
   * stream are as if it had run there. */
  ncore_status_t status = collective_on(c, a, (cudaStream_t)CU_STREAM_PER_THREAD, nc);
  if (status == NCORE_OK || status == NCORE_IN_PROGRESS) {
    ncore_status_t joined = nccl_join_legacy_stream(c->ctx);
    if (joined != NCORE_OK) return joined;
  }
  return status;
}

/* A call with a config (a _config twin), on a live c. Out of line: the
 * common call's frame holds no nccl_call_config_t. */
static __attribute__((noinline)) ncore_status_t collective_configured(
    nccl_comm_t *c, const core_coll_args_t *args) {
  int taken = 0;
  nccl_call_config_t config;
  ncore_status_t status = nccl_call_config_prepare(c, args, &config);
  if (status != NCORE_OK) return status;
  if (!config.nccl_kernels_only) status = nccl_small_collective(c, args, &taken);
  if (!taken && config.ncore_kernel_forced) return forced_kernel_refused(args);
  if (!taken) status = nccl_kernels(c, args, &config);
  return nccl_call_config_finish(&config, (CUstream)args->stream, taken, status);
}

CORE_HOT ncore_status_t nccl_collective(core_backend_comm_t *comm,
                                        const core_coll_args_t *args) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_check_live(c);
  if (status != NCORE_OK) return status;
  if (args->config != NULL) return collective_configured(c, args);
  int taken = 0; /* the common call: no config to read */
  status = nccl_small_collective(c, args, &taken);
  return taken || status != NCORE_OK ? status : nccl_kernels(c, args, NULL);
}
