/* ncore — communicator control beyond create and destroy (ABI 1.1): revoke,
 * grow, suspend and resume, memory statistics, properties, and scalable
 * initialisation (ncclCommRevoke, ncclCommGrow, ncclCommGetUniqueId,
 * ncclCommSuspend, ncclCommResume, ncclCommMemStats,
 * ncclCommQueryProperties, ncclCommInitRankScalable; nccl.core
 * Communicator.revoke / grow / suspend / resume / get_mem_stat /
 * get_unique_id and its properties).
 *
 * On NCCL each call needs the NCCL version that introduced it; on an older
 * libnccl it answers NCORE_ERR_NOT_SUPPORTED naming the call and the version
 * needed (docs/architecture.md, "NCCL versions"). The host backend
 * implements all of them. Thread safety as in ncore/comm.h. */
#ifndef NCORE_COMM_CONTROL_H
#define NCORE_COMM_CONTROL_H

#include <stdint.h>
#include "comm.h"
#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* ncore_comm_revoke flags (NCCL_REVOKE_*). */
#define NCORE_REVOKE_DEFAULT 0u

/* ncore_comm_suspend flags (NCCL_SUSPEND_*): release the communicator's
 * dynamic device memory while suspended. */
#define NCORE_SUSPEND_MEM 1u

/* What ncore_comm_mem_stat reports (ncclCommMemStat_t). */
typedef enum ncore_comm_mem_stat {
  /* Bytes of device memory the communicator can release when suspended. */
  NCORE_COMM_MEM_STAT_GPU_MEM_SUSPEND = 0,
  /* 1 while the communicator's memory is suspended, else 0. */
  NCORE_COMM_MEM_STAT_GPU_MEM_SUSPENDED = 1,
  /* Bytes it keeps while suspended. */
  NCORE_COMM_MEM_STAT_GPU_MEM_PERSIST = 2,
  /* All bytes it holds. */
  NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL = 3
} ncore_comm_mem_stat_t;

/* What a communicator can do (ncclCommProperties_t). Versioned output:
 * set struct_size (NCORE_COMM_PROPERTIES_INIT does); the library writes
 * only the fields that fit in struct_size, so a program built against an
 * older, shorter struct keeps working. New fields are only appended. */
typedef struct ncore_comm_properties {
  uint32_t struct_size;
  int32_t rank;
  int32_t nranks;
  /* CUDA device ordinal and NVML index of this rank's GPU; -1 on host. */
  int32_t cuda_device;
  int32_t nvml_device;
  /* 1 if device communicators (ncore/devcomm.h) work on this
   * communicator, else 0. */
  int32_t device_api_support;
  /* 1 if the LSA team has NVLink multicast (multimem) memory, else 0. */
  int32_t multimem_support;
  /* ncore_gin_type_t of GIN, and of GIN along rails; NONE when absent. */
  int32_t gin_type;
  int32_t railed_gin_type;
  /* Number of LSA teams the communicator spans (1: all ranks share one). */
  int32_t n_lsa_teams;
  /* 1 if host-initiated one-sided calls (ncore/onesided.h) reach peers
   * outside the LSA team natively, else 0 (they still work: ncore emulates
   * them for LSA peers, and they answer NOT_SUPPORTED for others). */
  int32_t host_rma_support;
  /* Appended in ABI 1.2 (nccl4py 0.5.0 / 0.6.0's NCCLCommProperties). */
  /* The widest ncore_gin_connection_type_t a device communicator may ask
   * for (NCCL 2.31+; NONE before, and on the host backend). */
  int32_t gin_connection_type;
  /* The granularity of a custom GIN rank stride (NCCL 2.31+; 0 before, and
   * wherever there is no GIN). */
  int32_t gin_min_stride;
  /* NCCL 2.32+: 1 when every rank supports CFT (Compute Fabric Transport)
   * unicast logical endpoints, when every rank supports multicast ones, and
   * when every rank supports counted CFT operations; else 0. 0 on an older
   * NCCL and on the host backend. -1: NCCL 2.32 or newer, whose
   * ncclCommProperties layout this ncore does not read yet (unknown). */
  int32_t cft_support;
  int32_t cft_multicast_support;
  int32_t cft_counted_support;
  /* A hash identifying the communicator, equal on all its ranks (NCCL
   * 2.31+, 0 before; the host backend makes one per communicator). */
  uint64_t comm_hash;
  /* Bit t set when GIN type t (ncore_gin_type_t numbering, NCCL's
   * ncclGinType_t) is available (NCCL 2.31+; 0: none, or an older NCCL). */
  uint64_t available_gin_types;
  /* Bytes of the running NCCL's device communicator struct (ncclDevComm):
   * NCCL's answer from 2.31, the loaded version's own size before; 0 on the
   * host backend, which has no NCCL device communicator. */
  uint64_t dev_comm_runtime_version_size;
} ncore_comm_properties_t;

#define NCORE_COMM_PROPERTIES_INIT                                   \
  {                                                                  \
    (uint32_t)sizeof(ncore_comm_properties_t), /* struct_size */     \
    0, 0, -1, -1, 0, 0, 0, 0, 0, 0,                                  \
    0, /* gin_connection_type */                                     \
    0, /* gin_min_stride */                                          \
    0, /* cft_support */                                             \
    0, /* cft_multicast_support */                                   \
    0, /* cft_counted_support */                                     \
    0, /* comm_hash */                                               \
    0, /* available_gin_types */                                     \
    0  /* dev_comm_runtime_version_size */                           \
  }

/* Reads the communicator's properties into *out, up to out->struct_size.
 * A query: valid after finalize, after a failure, while revoked or
 * suspended. NCCL: ncclCommQueryProperties (2.29.2+) for the GIN and host
 * RMA fields; on 2.28 they are computed by ncore (no GIN, host_rma 0);
 * the fields appended in 1.2 each say from which NCCL they are read.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, struct_size
 * below 4 or above a page, not a communicator handle); NCORE_ERR_CLOSED;
 * NCORE_ERR_INVALID_USAGE (still initialising);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_properties(ncore_comm_t comm,
                                               ncore_comm_properties_t *out);

/* Revokes the communicator (ncclCommRevoke, NCCL 2.28.9+): operations in
 * flight are stopped, and every later communicating call on this rank
 * answers NCORE_ERR_INVALID_USAGE ("revoked"). What remains is what NCCL
 * allows after a revoke: queries, ncore_comm_split, ncore_comm_shrink,
 * ncore_comm_synchronize, ncore_comm_abort and ncore_comm_destroy;
 * ncore_comm_finalize is refused. Local: each rank that should stop
 * revokes its own communicator. A non-blocking communicator may report
 * NCORE_IN_PROGRESS from ncore_comm_async_error until it is quiescent.
 * Not one of the calls that may run while another thread is in a call on
 * the same communicator (ncore_comm_abort is). Host backend: operations
 * complete before their calls return, so nothing is in flight; the revoke
 * only takes effect as described.
 * flags: NCORE_REVOKE_DEFAULT.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (unknown flags, not a
 * communicator handle); NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE (already
 * revoked, finalized, a fork() child's copy, still initialising);
 * NCORE_ERR_NOT_SUPPORTED (NCCL older than 2.28.9);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_revoke(ncore_comm_t comm, uint32_t flags);

/* Makes the unique id with which new ranks join comm in ncore_comm_grow
 * (ncclCommGetUniqueId, NCCL 2.29.2+). Call it on one existing rank (the
 * grow's root) and give the bytes to the new ranks. One id at a time: a
 * second call before the grow that consumes the first is refused.
 * out: caller-owned; receives the id.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, not a
 * communicator handle); NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE (an id
 * not yet consumed by a grow, or comm not fit for a communicating call);
 * NCORE_ERR_NOT_SUPPORTED (NCCL older than 2.29.2); NCORE_ERR_SYSTEM;
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_get_unique_id(ncore_comm_t comm,
                                                  ncore_unique_id_t *out);

/* Makes a communicator of comm's ranks plus new ones (ncclCommGrow, NCCL
 * 2.29.2+). Collective over every rank of the result. Existing ranks keep
 * their rank; new ranks take the ranks from comm's size up to nranks - 1.
 *   existing root:     comm, id from ncore_comm_get_unique_id, rank -1
 *   existing others:   comm, id NULL, rank -1
 *   new ranks:         NCORE_NULL_HANDLE, the root's id, their rank
 * nranks: size of the new communicator, above comm's size.
 * out: receives the new communicator, owned by the caller; comm is
 *   unchanged and still needs destroying.
 * config: NULL to inherit comm's (new ranks: defaults), or a versioned
 *   config; its backend must be AUTO or comm's (new ranks: the id's).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL; nranks not above
 * comm's size; an existing rank with rank != -1; a new rank with id NULL or
 * rank outside [old size, nranks); bad config; id made for another backend
 * or not by ncore_comm_get_unique_id); NCORE_ERR_CLOSED;
 * NCORE_ERR_INVALID_USAGE (comm not fit for a communicating call);
 * NCORE_ERR_NOT_SUPPORTED (NCCL older than 2.29.2); NCORE_ERR_TIMEOUT (not
 * all ranks joined in time); NCORE_ERR_REMOTE (a rank died while joining);
 * NCORE_ERR_SYSTEM; NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_grow(ncore_comm_t comm, int nranks,
                                         const ncore_unique_id_t *id, int rank,
                                         ncore_comm_t *out,
                                         const ncore_comm_config_t *config);

/* Suspends the communicator (ncclCommSuspend, NCCL 2.29.7+): with
 * NCORE_SUSPEND_MEM its dynamic device memory is released until
 * ncore_comm_resume. While suspended, communicating calls answer
 * NCORE_ERR_INVALID_USAGE ("suspended"); queries, ncore_comm_mem_stat,
 * resume, abort and destroy remain. Local. Host backend: nothing is
 * released (its memory is the shared segment the peers map), the state is
 * kept and enforced the same way.
 * flags: NCORE_SUSPEND_MEM.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (unknown flags, not a
 * communicator handle); NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE (already
 * suspended, revoked, or comm not fit for a communicating call);
 * NCORE_ERR_NOT_SUPPORTED (NCCL older than 2.29.7);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_suspend(ncore_comm_t comm, uint32_t flags);

/* Resumes a suspended communicator (ncclCommResume, NCCL 2.29.7+).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (not a communicator
 * handle); NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE (not suspended);
 * NCORE_ERR_NOT_SUPPORTED (NCCL older than 2.29.7); NCORE_ERR_SYSTEM (out
 * of device memory taking it back); NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_comm_resume(ncore_comm_t comm);

/* Reads one memory statistic of the communicator (ncclCommMemStats, NCCL
 * 2.29.7+) into *out. A query: valid while suspended or revoked. Host
 * backend: the communicator's shared segment, all of it persistent (it is
 * never released, so GPU_MEM_SUSPEND and GPU_MEM_SUSPENDED read 0).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, unknown stat,
 * not a communicator handle); NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE
 * (still initialising); NCORE_ERR_NOT_SUPPORTED (NCCL older than 2.29.7). */
NCORE_API ncore_status_t ncore_comm_mem_stat(ncore_comm_t comm,
                                             ncore_comm_mem_stat_t stat,
                                             uint64_t *out);

/* ncore_comm_init_rank with several bootstrap roots
 * (ncclCommInitRankScalable): for very large jobs, id_count unique ids,
 * each made by ncore_get_unique_id on a different rank, spread the
 * bootstrap's load. Every rank passes the same ids in the same order.
 * Host backend: the first id's rendezvous serves all ranks.
 * ids: id_count ids, borrowed; id_count >= 1.
 * Other parameters and statuses as ncore_comm_init_rank, plus
 * NCORE_ERR_INVALID_ARGUMENT for ids NULL, id_count < 1, or ids made for
 * different backends. */
NCORE_API ncore_status_t ncore_comm_init_rank_scalable(
    ncore_comm_t *out, int nranks, int rank, int id_count,
    const ncore_unique_id_t *ids, const ncore_comm_config_t *config);

NCORE_END_DECLS

#endif /* NCORE_COMM_CONTROL_H */
