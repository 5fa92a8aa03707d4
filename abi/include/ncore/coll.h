/* ncore — collectives (ncclAllReduce, ncclBroadcast, ncclReduce,
 * ncclAllGather, ncclReduceScatter, ncclAlltoAll, ncclGather, ncclScatter).
 *
 * Every rank calls the same collectives in the same order with matching
 * counts, dtype, op and root. Buffers are borrowed until the operation
 * completes (host backend: until return; NCCL: until the stream passes it).
 * In-place use follows NCCL: allreduce/broadcast/reduce with sendbuf ==
 * recvbuf; allgather with sendbuf == recvbuf + rank * sendcount; reduce_scatter
 * with recvbuf == sendbuf + rank * recvcount; gather with sendbuf == recvbuf +
 * root * count; scatter with recvbuf == sendbuf + root * count.
 * A buffer may be NULL only when the element count it holds is 0, and the
 * root-only buffers (gather's recvbuf, scatter's sendbuf) may be NULL on
 * non-root ranks.
 *
 * op: NCORE_SUM, _PROD, _MAX, _MIN, _AVG, or a custom operator's value
 * (ncore_custom_redop_value) of this communicator and dtype. Arithmetic on
 * float16, bfloat16 and the float8 types is done in float and rounded to
 * nearest-even on store.
 *
 * Each returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL buffer with a
 * non-zero count, unknown dtype or op, root out of range, bad stream, custom
 * op made for another dtype or communicator); NCORE_ERR_CLOSED (comm closed,
 * or a custom op that was closed); NCORE_ERR_INVALID_USAGE (ranks disagree on
 * the collective, count, dtype or root; or comm not fit for a communicating
 * call: ncore/comm.h); NCORE_ERR_REMOTE; NCORE_ERR_TIMEOUT; NCORE_ERR_SYSTEM
 * (out of memory queueing the call in a group); NCORE_ERR_UNHANDLED_CUDA. */
#ifndef NCORE_COLL_H
#define NCORE_COLL_H

#include "comm.h" /* NCORE_CONFIG_UNDEF_INT */
#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* recvbuf[i] = op over ranks of sendbuf[i], on every rank; count elements. */
NCORE_API ncore_status_t ncore_allreduce(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t count,
                                         ncore_dtype_t dtype, ncore_redop_t op,
                                         ncore_stream_t stream);

/* Copies root's sendbuf (count elements) into every rank's recvbuf.
 * sendbuf is read on root only. */
NCORE_API ncore_status_t ncore_broadcast(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t count,
                                         ncore_dtype_t dtype, int root,
                                         ncore_stream_t stream);

/* Like allreduce, but only root's recvbuf receives the result; recvbuf may be
 * NULL on other ranks. */
NCORE_API ncore_status_t ncore_reduce(ncore_comm_t comm, const void *sendbuf,
                                      void *recvbuf, size_t count,
                                      ncore_dtype_t dtype, ncore_redop_t op,
                                      int root, ncore_stream_t stream);

/* Every rank's sendbuf (sendcount elements) lands at recvbuf + r * sendcount
 * on every rank; recvbuf holds nranks * sendcount elements. */
NCORE_API ncore_status_t ncore_allgather(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t sendcount,
                                         ncore_dtype_t dtype,
                                         ncore_stream_t stream);

/* Reduces nranks * recvcount elements of sendbuf over ranks; rank r receives
 * block r (recvcount elements) in recvbuf. */
NCORE_API ncore_status_t ncore_reduce_scatter(ncore_comm_t comm,
                                              const void *sendbuf,
                                              void *recvbuf, size_t recvcount,
                                              ncore_dtype_t dtype,
                                              ncore_redop_t op,
                                              ncore_stream_t stream);

/* Block j (count elements) of sendbuf goes to rank j, landing at
 * recvbuf + i * count there, where i is the sender. Not in place. */
NCORE_API ncore_status_t ncore_alltoall(ncore_comm_t comm, const void *sendbuf,
                                        void *recvbuf, size_t count,
                                        ncore_dtype_t dtype,
                                        ncore_stream_t stream);

/* Every rank's sendbuf (count elements) lands at recvbuf + r * count on root. */
NCORE_API ncore_status_t ncore_gather(ncore_comm_t comm, const void *sendbuf,
                                      void *recvbuf, size_t count,
                                      ncore_dtype_t dtype, int root,
                                      ncore_stream_t stream);

/* Block r (count elements) of root's sendbuf lands in rank r's recvbuf. */
NCORE_API ncore_status_t ncore_scatter(ncore_comm_t comm, const void *sendbuf,
                                       void *recvbuf, size_t count,
                                       ncore_dtype_t dtype, int root,
                                       ncore_stream_t stream);

/* ---- the per-call configuration (NCCL 2.31's ncclCollConfig_t) ----
 *
 * Each collective has a `_config` twin (below) that takes one more
 * argument, a const ncore_coll_config_t *: it tunes that one call. NULL
 * runs the call as the plain function does. Every rank passes the same
 * configuration (as NCCL requires; NCCL checks it on each rank alone). The
 * struct and what it points to are borrowed for the call only.
 *
 * On NCCL 2.31 and newer the fields go to NCCL's nccl*Config call (the
 * launch-completion event: 2.32). On an older NCCL a field that only NCCL
 * could serve, set, is refused with NCORE_ERR_NOT_SUPPORTED naming the
 * field and the NCCL version that has it; ncore serves two fields itself on
 * every NCCL: alg_selection's ncore names (below) and
 * launch_completion_event (recorded by ncore on the call's stream right
 * after the launch, where the loaded NCCL cannot record it).
 *
 * The host backend (no CUDA, one algorithm): the tuning fields (CTAs, CGA
 * size, CTA policy, alg_selection, force_alg_selection, the profiler tag,
 * vendor options) are performance hints or NCCL plug-in data there and are
 * checked as everywhere, then accepted and ignored; a launch_completion_event
 * is refused with NCORE_ERR_NOT_SUPPORTED (it is a CUDA event). */

/* One vendor-specific option (NCCL's ncclConfigExt_t node): official NCCL
 * ignores every one; a vendor library layered under NCCL reads those whose
 * vendor_id it owns. Exactly one value is meant, the one `kind` names. */
typedef struct ncore_vendor_option {
  int32_t vendor_id; /* non-zero, below 2^24; (vendor_id, option_id) unique */
  int32_t option_id; /* the vendor's own option number */
  int32_t kind;      /* NCORE_VENDOR_OPTION_INT, _STRING or _RAW */
  int32_t int_value; /* kind INT: the value (val.i) */
  const char *str_value; /* kind STRING: the value (val.s), borrowed */
  void *raw_value;       /* kind RAW: any pointer-sized value (val.raw) */
} ncore_vendor_option_t;

#define NCORE_VENDOR_OPTION_INT 0
#define NCORE_VENDOR_OPTION_STRING 1
#define NCORE_VENDOR_OPTION_RAW 2

/* The per-call configuration; mirrors ncclCollConfig_t (NCCL 2.32). A
 * versioned struct (docs/abi-policy.md): set it up with
 * NCORE_COLL_CONFIG_INIT or ncore_coll_config_init; fields are only ever
 * appended. NCORE_CONFIG_UNDEF_INT (ncore/comm.h) leaves a field to the
 * communicator's value or NCCL's default. */
typedef struct ncore_coll_config {
  uint32_t struct_size;
  /* Lower and upper bound on the CTAs (channels) of this call, and the cap
   * of NVLS algorithms (ncclCollConfig_t.minCTAs, maxCTAs, nvlsCTAs; the
   * NCCL_MIN_CTAS / NCCL_MAX_CTAS / NCCL_NVLS_NCHANNELS variables win). */
  int32_t min_ctas;
  int32_t max_ctas;
  int32_t nvls_ctas;
  /* CUDA thread-block-cluster size, 0..8 (cgaClusterSize); every
   * collective of one group must use the same. */
  int32_t cga_cluster_size;
  /* Which algorithms this call may use; NULL or "" = automatic. ncore's
   * names, served on every NCCL (the whole string, any case): "auto" (the
   * size decides between ncore's small-message kernels and NCCL's),
   * "nccl" (NCCL's kernels only), "oneshot" / "twoshot" (ncore's one-shot /
   * two-shot kernel: NCORE_ALGO's choices for this call alone; README.md,
   * "The small-message path"). Anything else is NCCL's selection
   * expression ("ring", "tree,ring", "^symk"): the call runs on NCCL's
   * kernels and NCCL 2.31+ filters them; on an older NCCL it is refused
   * with NCORE_ERR_NOT_SUPPORTED unless force_alg_selection is 0. */
  const char *alg_selection;
  /* 1 (default): a selection that cannot be honoured is an error
   * (NCORE_ERR_INVALID_USAGE for ncore's kernels: the call is outside what
   * they serve); 0: the call falls back to automatic selection. */
  int32_t force_alg_selection;
  /* NCCL_CTA_POLICY_* bits for this call (CTAPolicy). */
  int32_t cta_policy;
  /* Opaque tag handed to profiler plug-ins with this call's events
   * (userProfilerTag); 0 = untagged; values with the top bit set are
   * NCCL's. */
  uint64_t user_profiler_tag;
  /* vendor_option_count options (NCCL's ext list); NULL when the count is
   * 0. At most NCORE_COLL_CONFIG_MAX_VENDOR_OPTIONS. Borrowed. */
  const ncore_vendor_option_t *vendor_options;
  uint32_t vendor_option_count;
  /* A caller-owned CUDA event (cudaEvent_t / CUevent), created with
   * timing disabled, recorded when the call's kernel launch completes;
   * NULL: none. Every rank passes one or none. NCCL 2.32+ records it at the
   * launch-completion boundary; ncore records it on the call's stream right
   * after the call (on an older NCCL, and for ncore's own kernels), which
   * is later, never earlier, than NCCL's point. Inside a group on an NCCL
   * before 2.32: NCORE_ERR_NOT_SUPPORTED (the launch happens at the group's
   * end). */
  void *launch_completion_event;
} ncore_coll_config_t;

/* The most vendor options one configuration may carry. */
#define NCORE_COLL_CONFIG_MAX_VENDOR_OPTIONS 64u

/* The defaults, field by field (one line per field, in declaration
 * order). */
#define NCORE_COLL_CONFIG_INIT                                          \
  {                                                                     \
    (uint32_t)sizeof(ncore_coll_config_t), /* struct_size */            \
    NCORE_CONFIG_UNDEF_INT,                /* min_ctas */               \
    NCORE_CONFIG_UNDEF_INT,                /* max_ctas */               \
    NCORE_CONFIG_UNDEF_INT,                /* nvls_ctas */              \
    NCORE_CONFIG_UNDEF_INT,                /* cga_cluster_size */       \
    NULL,                                  /* alg_selection */          \
    1,                                     /* force_alg_selection */    \
    NCORE_CONFIG_UNDEF_INT,                /* cta_policy */             \
    0,                                     /* user_profiler_tag */      \
    NULL,                                  /* vendor_options */         \
    0,                                     /* vendor_option_count */    \
    NULL                                   /* launch_completion_event */ \
  }

/* Fills *config with the defaults of NCORE_COLL_CONFIG_INIT, writing
 * exactly struct_size bytes and setting config->struct_size to it; see
 * ncore_comm_config_init for the rules.
 * config: caller-owned, at least struct_size bytes; must not be NULL.
 * struct_size: sizeof(ncore_coll_config_t) as the caller was compiled.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (config NULL, struct_size
 * too small or too large), nothing written. */
NCORE_API ncore_status_t ncore_coll_config_init(ncore_coll_config_t *config,
                                                size_t struct_size);

/* The `_config` twins, one per collective: the same call with `config`
 * (NULL: as the plain function). Each returns what its plain function
 * returns, and NCORE_ERR_INVALID_ARGUMENT for a bad config (struct_size,
 * force_alg_selection not 0 or 1, vendor options NULL with a count, more
 * than NCORE_COLL_CONFIG_MAX_VENDOR_OPTIONS, a bad or repeated key, an
 * unknown kind); NCORE_ERR_NOT_SUPPORTED for a field the loaded NCCL (or
 * the host backend) cannot serve, naming it and the version that can;
 * NCORE_ERR_INVALID_USAGE where a forced ncore kernel cannot serve the
 * call. GENERATED by tools/gen-op-table.py from core/op_table.h, one per
 * COLL row, between the two marks; do not edit between them. */
/* BEGIN GENERATED _config twins */
/* ncore_allreduce with a per-call configuration (NULL: as ncore_allreduce);
 * config: borrowed for the call. */
NCORE_API ncore_status_t ncore_allreduce_config(ncore_comm_t comm,
                                                const void *sendbuf,
                                                void *recvbuf, size_t count,
                                                ncore_dtype_t dtype,
                                                ncore_redop_t op,
                                                ncore_stream_t stream,
                                                const ncore_coll_config_t *config);

/* ncore_broadcast with a per-call configuration (NULL: as ncore_broadcast);
 * config: borrowed for the call. */
NCORE_API ncore_status_t ncore_broadcast_config(ncore_comm_t comm,
                                                const void *sendbuf,
                                                void *recvbuf, size_t count,
                                                ncore_dtype_t dtype, int root,
                                                ncore_stream_t stream,
                                                const ncore_coll_config_t *config);

/* ncore_reduce with a per-call configuration (NULL: as ncore_reduce); config:
 * borrowed for the call. */
NCORE_API ncore_status_t ncore_reduce_config(ncore_comm_t comm,
                                             const void *sendbuf, void *recvbuf,
                                             size_t count, ncore_dtype_t dtype,
                                             ncore_redop_t op, int root,
                                             ncore_stream_t stream,
                                             const ncore_coll_config_t *config);

/* ncore_allgather with a per-call configuration (NULL: as ncore_allgather);
 * config: borrowed for the call. */
NCORE_API ncore_status_t ncore_allgather_config(ncore_comm_t comm,
                                                const void *sendbuf,
                                                void *recvbuf, size_t sendcount,
                                                ncore_dtype_t dtype,
                                                ncore_stream_t stream,
                                                const ncore_coll_config_t *config);

/* ncore_reduce_scatter with a per-call configuration (NULL: as
 * ncore_reduce_scatter); config: borrowed for the call. */
NCORE_API ncore_status_t ncore_reduce_scatter_config(ncore_comm_t comm,
                                                     const void *sendbuf,
                                                     void *recvbuf,
                                                     size_t recvcount,
                                                     ncore_dtype_t dtype,
                                                     ncore_redop_t op,
                                                     ncore_stream_t stream,
                                                     const ncore_coll_config_t *config);

/* ncore_alltoall with a per-call configuration (NULL: as ncore_alltoall);
 * config: borrowed for the call. */
NCORE_API ncore_status_t ncore_alltoall_config(ncore_comm_t comm,
                                               const void *sendbuf,
                                               void *recvbuf, size_t count,
                                               ncore_dtype_t dtype,
                                               ncore_stream_t stream,
                                               const ncore_coll_config_t *config);

/* ncore_gather with a per-call configuration (NULL: as ncore_gather); config:
 * borrowed for the call. */
NCORE_API ncore_status_t ncore_gather_config(ncore_comm_t comm,
                                             const void *sendbuf, void *recvbuf,
                                             size_t count, ncore_dtype_t dtype,
                                             int root, ncore_stream_t stream,
                                             const ncore_coll_config_t *config);

/* ncore_scatter with a per-call configuration (NULL: as ncore_scatter); config:
 * borrowed for the call. */
NCORE_API ncore_status_t ncore_scatter_config(ncore_comm_t comm,
                                              const void *sendbuf,
                                              void *recvbuf, size_t count,
                                              ncore_dtype_t dtype, int root,
                                              ncore_stream_t stream,
                                              const ncore_coll_config_t *config);
/* END GENERATED _config twins */

NCORE_END_DECLS

#endif /* NCORE_COLL_H */
