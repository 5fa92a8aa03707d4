/* core/nccl — ncore's own small-message allreduce (small_coll.h). */
#include "small_coll.h"

#include <stdlib.h>
#include <string.h>

#include "../../kernels/small_coll.h"
#include "../coll_config.h"
#include "../dtype.h"
#include "../error.h"
#include "../error_clear.h"
#include "../log.h"
#include "env.h"
#include "group.h"
#include "kernels.h"
#include "stream.h"
#include "wait.h"
#include "window_pointer.h"

/* What the environment asks for, read when a communicator is set up (so a
 * program can make communicators that differ, as the benchmarks do); every
 * rank must ask the same, as for NCCL_ALGO: a rank in ncore's kernel and
 * its peer in NCCL's wait for each other for ever. */
/* The backend's algorithm for one of ncore's names (core_coll_algo_named);
 * otherwise for the rest (no name, or an NCCL selection expression). */
static nccl_small_algo_t small_algo_of(core_coll_algo_t named,
                                       nccl_small_algo_t otherwise) {
  switch (named) {
    case CORE_COLL_ALGO_AUTO: return NCCL_SMALL_AUTO;
    case CORE_COLL_ALGO_ONESHOT: return NCCL_SMALL_ONESHOT;
    case CORE_COLL_ALGO_TWOSHOT: return NCCL_SMALL_TWOSHOT;
    case CORE_COLL_ALGO_NCCL: return NCCL_SMALL_NCCL;
    case CORE_COLL_ALGO_SELECTION:
    case CORE_COLL_ALGO_COMM: break;
  }
  return otherwise;
}

static void read_choice(nccl_small_choice_t *choice, int nranks) {
  const char *algo = getenv("NCORE_ALGO");
  core_coll_algo_t named = core_coll_algo_named(algo);
  if (named == CORE_COLL_ALGO_SELECTION)
    core_log(CORE_LOG_WARN, "NCORE_ALGO=%s is not auto, nccl, oneshot or "
             "twoshot: auto", algo);
  choice->algo = small_algo_of(named, NCCL_SMALL_AUTO);
  /* The crossovers of auto, each within what the area holds
   * (small_coll.h: one-shot to 4 MiB / nranks, two-shot to 1 MiB).
   * Measured: one-shot beats NCCL's kernel at every size it holds on 2 x
   * H200 (to 2 MiB, session 20) and on 4 x H200 (to 1 MiB: 14.8 against
   * 16.7 us, session 23); two-shot beats neither one-shot nor NCCL at any
   * size on 4 x H200 (session 23: 1 MiB 15.9 us with 64 blocks), so auto
   * takes one-shot as far as the area holds up to 4 ranks, 2 MiB / nranks
   * above (not measured), and no two-shot (NCORE_TWOSHOT_MAX=0) unless
   * asked. */
  choice->oneshot_max = (size_t)nccl_env_long(
      "NCORE_ONESHOT_MAX", nranks <= 4 ? (long)ncore_small_oneshot_max(nranks)
                                       : (2l << 20) / nranks);
  choice->twoshot_max = (size_t)nccl_env_long("NCORE_TWOSHOT_MAX", 0);
  /* One-shot's LL form (kernels/small_coll.h) up to 1 MiB / ranks^2 (its
   * traffic, twice the data to every peer, grows with the ranks): the
   * crossover against the flags form measured on 2 and 4 x H200 (LL ahead
   * to 128 KiB on 2 ranks, even at 256 KiB; ahead to 32 KiB on 4, even at
   * 64 KiB; bench/results/small-allreduce-session19/).
   * NCORE_SMALL_LL_MAX sets it (0: never). */
  choice->ll_max = (size_t)nccl_env_long(
      "NCORE_SMALL_LL_MAX", (long)(NCORE_SMALL_LL_TOTAL / ((size_t)nranks * nranks)));
  long blocks = nccl_env_long("NCORE_SMALL_BLOCKS", 0);
  choice->blocks = blocks > 0 && blocks <= NCORE_SMALL_MAX_BLOCKS ? (int)blocks : 0;
}

size_t nccl_small_area_bytes(int nranks) {
  if (nranks < 2 || nranks > NCORE_SMALL_MAX_RANKS) return 0;
  return (size_t)ncore_small_area_bytes(nranks);
}

size_t nccl_small_area_offset(int nranks) {
  return (NCCL_SIGNAL_WINDOW_BYTES(nranks) + 4095) & ~(size_t)4095;
}

void nccl_small_setup(nccl_comm_t *c) {
  read_choice(&c->small_choice, c->nranks < 1 ? 1 : c->nranks);
  c->small_enabled = 0;
  const char *why = NULL;
  if (nccl_small_area_bytes(c->nranks) == 0)
    why = "the communicator has fewer than 2 or more than 8 ranks";
  else if (c->signals_status != NCORE_OK || c->signal_window == NULL)
    why = "the communicator has no signal window";
  else if (c->lsa_size != c->nranks)
    why = "its ranks span several LSA teams (NVLink domains)";
  size_t offset = nccl_small_area_offset(c->nranks);
  for (int q = 0; why == NULL && q < c->nranks; q++) {
    void *base = NULL;
    if (nccl_window_peer_base(c->signal_window, q, &base) != NCORE_OK ||
        base == NULL)
      why = "a peer's signal window is not load/store reachable";
    else
      c->small_areas[q] = (char *)base + offset;
  }
  if (why != NULL) {
    core_error_clear();
    core_log(CORE_LOG_INFO, "rank %d: ncore's small-message allreduce is off: "
             "%s; NCCL serves every size", c->rank, why);
    return;
  }
  c->small_enabled = 1;
  core_log(CORE_LOG_INFO, "rank %d: ncore's small-message allreduce over %d "
           "ranks: %s", c->rank, c->nranks,
           c->small_choice.algo == NCCL_SMALL_NCCL ? "off (NCORE_ALGO=nccl)"
           : c->small_choice.algo == NCCL_SMALL_ONESHOT ? "one-shot (NCORE_ALGO)"
           : c->small_choice.algo == NCCL_SMALL_TWOSHOT ? "two-shot (NCORE_ALGO)"
                                                        : "auto");
}

/* The algorithm for bytes on nranks, or NCCL_SMALL_NCCL: what the
 * choice asks for where the area holds it (one-shot: the rank's input in
 * every rank's area; two-shot: 3 ranks or more, up to 1 MiB). */
static nccl_small_algo_t algo_for(const nccl_small_choice_t *choice,
                                  int nranks, size_t bytes) {
  int oneshot = bytes <= ncore_small_oneshot_max(nranks);
  int twoshot = nranks >= 3 && bytes <= NCORE_SMALL_TWOSHOT_MAX;
  if (bytes == 0) return NCCL_SMALL_NCCL;
  switch (choice->algo) {
    case NCCL_SMALL_ONESHOT: return oneshot ? NCCL_SMALL_ONESHOT : NCCL_SMALL_NCCL;
    case NCCL_SMALL_TWOSHOT: return twoshot ? NCCL_SMALL_TWOSHOT : NCCL_SMALL_NCCL;
    case NCCL_SMALL_NCCL: return NCCL_SMALL_NCCL;
    default: break;
  }
  if (oneshot && bytes <= choice->oneshot_max) return NCCL_SMALL_ONESHOT;
  if (twoshot && bytes <= choice->twoshot_max) return NCCL_SMALL_TWOSHOT;
  return NCCL_SMALL_NCCL;
}

/* The types and operators the kernels reduce (kernels/small_coll.cu). */
static int reduces_served(const core_coll_args_t *a) {
  if (a->custom_op != NULL) return 0;
  if (a->op != NCORE_SUM && a->op != NCORE_PROD && a->op != NCORE_MAX &&
      a->op != NCORE_MIN)
    return 0;
  return a->dtype >= NCORE_INT32 && a->dtype <= NCORE_BFLOAT16;
}

/* Blocks of the grid: NCORE_SMALL_BLOCKS where set, else by size
 * (kernels/small_coll.h). */
static unsigned blocks_for(const nccl_small_choice_t *choice, int ll,
                           size_t bytes) {
  return choice->blocks > 0 ? (unsigned)choice->blocks : ncore_small_grid(bytes, ll);
}

/* Two calls of the path on one communicator share its areas, so a call on
 * another stream than the last one's waits for it (an event), as NCCL
 * orders a communicator's work across streams. Not across a capture's
 * edge: a captured stream may not wait for work outside its graph (the
 * program orders such streams itself, as with NCCL's capture rules). */
static ncore_status_t order_after_last_call(nccl_comm_t *c, CUstream s) {
  CUstream last = c->small_last_stream;
  c->small_last_stream = s;
  if (!c->small_called) {
    c->small_called = 1;
    return NCORE_OK;
  }
  /* last NULL: its stream was destroyed, its end already recorded in
   * small_order (nccl_small_stream_gone). */
  if (last == s || nccl_stream_capturing((ncore_stream_t)s) ||
      (last != NULL && nccl_stream_capturing((ncore_stream_t)last)))
    return NCORE_OK;
  ncore_status_t status = NCORE_OK;
  if (c->small_order == NULL)
    status = cu_check(cu_fn.EventCreate(&c->small_order, CU_EVENT_DISABLE_TIMING),
                      "cuEventCreate");
  if (status == NCORE_OK && last != NULL)
    status = cu_check(cu_fn.EventRecord(c->small_order, last), "cuEventRecord");
  if (status == NCORE_OK)
    status = cu_check(cu_fn.StreamWaitEvent(s, c->small_order, 0),
                      "cuStreamWaitEvent");
  return status;
}

/* The choice of a call with a config (its alg_selection, ncore/coll.h):
 * one of ncore's names; an NCCL selection expression, NCCL's kernels;
 * none, the communicator's (NCORE_ALGO). */
static nccl_small_algo_t algo_of_call(const core_coll_args_t *a,
                                      nccl_small_algo_t communicators) {
  if (a->config->algo == CORE_COLL_ALGO_SELECTION) return NCCL_SMALL_NCCL;
  return small_algo_of(a->config->algo, communicators);
}

/* The kernel for a's collective and its argument's count, or -1 where
 * NCCL's turn: allreduce by size (algo_for), allgather and reduce-scatter
 * in LL form where their block fits the LL slots and the LL limit (every
 * rank hears from every rank in them, which the slots' reuse needs; a
 * broadcast or reduce would let the root run ahead, so NCCL keeps those). */
static int kernel_for(const nccl_comm_t *c, const core_coll_args_t *a,
                      unsigned long long *count, unsigned *grid) {
  const nccl_small_choice_t *choice = &c->small_choice;
  nccl_small_choice_t call_choice;
  if (a->config != NULL) { /* a call's own choice (no copy without one) */
    call_choice = c->small_choice;
    call_choice.algo = algo_of_call(a, call_choice.algo);
    choice = &call_choice;
  }
  size_t bytes = a->count * core_dtype_size(a->dtype);
  int ll_fits = bytes > 0 && bytes <= choice->ll_max &&
                bytes <= ncore_small_ll_max(c->nranks);
  *count = a->count;
  switch (a->kind) {
    case CORE_COLL_ALLREDUCE: {
      if (!reduces_served(a)) return -1;
      nccl_small_algo_t algo = algo_for(choice, c->nranks, bytes);
      if (algo == NCCL_SMALL_NCCL) return -1;
      int ll = algo == NCCL_SMALL_ONESHOT && ll_fits;
      *grid = blocks_for(choice, ll, bytes);
      return ll ? NCCL_KERNEL_ALLREDUCE_ONESHOT_LL
             : algo == NCCL_SMALL_ONESHOT ? NCCL_KERNEL_ALLREDUCE_ONESHOT
                                          : NCCL_KERNEL_ALLREDUCE_TWOSHOT;
    }
    case CORE_COLL_ALLGATHER:
      if (choice->algo == NCCL_SMALL_NCCL || !ll_fits) return -1;
      *count = bytes; /* the kernel moves bytes */
      *grid = blocks_for(choice, 1, bytes);
      return NCCL_KERNEL_ALLGATHER_LL;
    case CORE_COLL_REDUCE_SCATTER:
      if (choice->algo == NCCL_SMALL_NCCL || !ll_fits || !reduces_served(a)) return -1;
      *grid = blocks_for(choice, 1, bytes);
      return NCCL_KERNEL_REDUCE_SCATTER_LL;
    default:
      return -1;
  }
}

ncore_status_t nccl_small_collective_on(nccl_comm_t *c,
                                        const core_coll_args_t *a, int *taken) {
  ncore_small_args_t args;
  memset(&args, 0, sizeof args);
  unsigned grid = 1;
  int kernel = kernel_for(c, a, &args.count, &grid);
  if (kernel < 0) return NCORE_OK;
  *taken = 1;
  args.input = a->sendbuf;
  args.output = a->recvbuf;
  args.dtype = (int)a->dtype;
  args.op = (int)a->op;
  args.rank = c->rank;
  args.nranks = c->nranks;
  memcpy(args.areas, c->small_areas, sizeof args.areas);
  void *params[] = {&args};
  /* The launch needs the communicator's context; the caller's current
   * device is left as it was, as NCCL's calls leave it. */
  CUcontext previous = NULL;
  ncore_status_t status = cu_check(cu_fn.CtxGetCurrent(&previous), "cuCtxGetCurrent");
  if (status == NCORE_OK && previous != c->ctx)
    status = cu_check(cu_fn.CtxSetCurrent(c->ctx), "cuCtxSetCurrent");
  if (status != NCORE_OK) return status;
  CUstream s = (CUstream)a->stream;
  status = order_after_last_call(c, s);
  if (status == NCORE_OK)
    status = nccl_kernel_launch((nccl_kernel_t)kernel, grid, NCORE_SMALL_THREADS, s, params);
  if (previous != c->ctx) (void)cu_fn.CtxSetCurrent(previous);
  return status;
}

void nccl_small_stream_gone(nccl_comm_t *c, CUstream stream) {
  if (!c->small_called || c->small_last_stream != stream) return;
  /* Where no event can be made, the next call's own event creation fails
   * and says so; the program is no worse off than without the order. */
  if (c->small_order == NULL &&
      cu_fn.EventCreate(&c->small_order, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
    c->small_order = NULL;
  if (c->small_order != NULL && !nccl_stream_capturing((ncore_stream_t)stream))
    (void)cu_fn.EventRecord(c->small_order, stream);
  c->small_last_stream = NULL;
}
