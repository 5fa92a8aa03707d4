/* core/nccl — ncore's own small-message allreduce between the ranks of one
 * LSA team (the latency path; kernels/small_coll.cu, kernels/small_coll.h).
 * NCCL's kernels are general and pay for it below about a megabyte; ncore's
 * one-shot and two-shot kernels exchange through an area each rank keeps
 * in its signal window (registered at creation, where every rank is), so
 * a call needs no registration, no host synchronisation and no allocation,
 * and is captured in a CUDA graph like any kernel (the call counts live on
 * the device). Allreduce chosen by size (NCORE_ALGO forces one: auto,
 * nccl, oneshot, twoshot; a call's config alg_selection, for that call), allgather and reduce-scatter in LL form up to
 * the LL limit (NCORE_ALGO=nccl: never); everything else goes to NCCL:
 * broadcast and reduce, custom
 * operators and NCORE_AVG, 8-bit types, ranks outside one LSA team, calls
 * inside a group, sizes above the staging buffer. */
#ifndef NCORE_CORE_NCCL_SMALL_COLL_H
#define NCORE_CORE_NCCL_SMALL_COLL_H

#include <stddef.h>

#include "../backend.h"
#include "comm.h"
#include "group.h"

/* Bytes a communicator of nranks ranks adds to its signal window for the
 * latency path (0: none, outside 2..NCORE_SMALL_MAX_RANKS ranks), and where
 * they start. Every rank computes the same, so the window stays of one size
 * on every rank (COLL_SYMMETRIC). */
size_t nccl_small_area_bytes(int nranks);
size_t nccl_small_area_offset(int nranks);

/* Once the signal window and the LSA team are known (setup): enables the
 * path when every rank is in this rank's LSA team and reachable, else says
 * why at INFO. Never fails the communicator. */
void nccl_small_setup(nccl_comm_t *c);

/* nccl_small_collective past its first test: on c and outside a group. */
ncore_status_t nccl_small_collective_on(nccl_comm_t *c,
                                        const core_coll_args_t *a, int *taken);
/* Runs a's collective (allreduce, allgather, reduce-scatter) on ncore's
 * kernels when the path serves it: *taken 1 and the launch's status; else
 * *taken 0 and NCORE_OK (NCCL's turn). Off (NCORE_ALGO=nccl) or inside a
 * group, inline: no call. */
static inline ncore_status_t nccl_small_collective(nccl_comm_t *c,
                                                   const core_coll_args_t *a,
                                                   int *taken) {
  *taken = 0;
  if (!c->small_enabled || nccl_in_group()) return NCORE_OK;
  return nccl_small_collective_on(c, a, taken);
}

/* stream is about to be destroyed through ncore (comm_registry.c): if
 * the last call ran on it, its end is kept as an event that the next call
 * waits for, and the handle is no longer named. */
void nccl_small_stream_gone(nccl_comm_t *c, CUstream stream);

#endif
