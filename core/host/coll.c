/* core/host — the collectives over per-rank staging slots in the
 * segment, two per rank (odd and even steps). Per chunk: wait until every
 * rank consumed the step before the previous one (whose slot this step
 * reuses), stage our part (and a descriptor), publish `posted`, wait until all posted, check
 * the descriptors agree, compute our output from the peers' staging (ranks
 * reduced in order 0..N-1, so every rank gets bit-identical results), publish
 * `consumed`. Each step is a non-blocking state so groups can mix them.
 *
 * One algorithm serves every collective: what a kind stages and computes
 * follows from its row of the table of operations (op_table.h,
 * core_coll_shapes): a rank stages its sendbuf (one block per destination
 * for an nranks * count sendbuf) unless sendbuf is root's only; it takes
 * from every staging (or root's) its own block (or the whole part), and
 * reduces them, places them by sender, or copies root's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll.h"

#include "../dtype.h"
#include "../error.h"
#include "../op_table.h"
#include "../redop_lookup.h"
#include "custom_redop.h"
#include "failure.h"
#include "group.h"
#include "wait.h"

static const char *kind_name(core_coll_kind_t k) {
  return (unsigned)k < CORE_COLL_KINDS ? core_coll_shapes[k].name
                                       : "collective";
}

/* Elements in the current chunk (same on every rank that agrees). */
static size_t chunk_len(host_op_t *op) {
  size_t left = op->coll.count - op->chunk_off;
  return left < op->chunk_elems ? left : op->chunk_elems;
}

/* Copies (or, for PreMulSum, scales) n elements into the staging. */
static void stage_input(host_op_t *op, char *dst, const char *src, size_t n) {
  host_premul_t *pm = op->coll.custom_op;
  if (pm && core_coll_shapes[op->coll.kind].reduces) {
    const void *scalar = pm->residence == NCORE_SCALAR_HOST_IMMEDIATE
                             ? (const void *)pm->scalar : pm->scalar_ptr;
    core_scale(dst, src, n, op->coll.dtype, scalar);
  } else {
    memcpy(dst, src, n * op->esize);
  }
}

/* Stages this rank's part of the current chunk: nothing where sendbuf is
 * root's only and this is not root; one block per destination rank for an
 * nranks * count sendbuf; else the chunk of sendbuf. */
static void post_chunk(host_op_t *op) {
  host_comm_t *c = op->comm;
  const core_coll_args_t *a = &op->coll;
  const core_coll_shape_t *shape = &core_coll_shapes[a->kind];
  char *stage = host_stage(c, c->rank, op->step);
  size_t n = chunk_len(op), es = op->esize, off = op->chunk_off;
  const char *send = a->sendbuf;
  if (shape->send.root_only && c->rank != a->root) {
    /* nothing to stage */
  } else if (shape->send.per_rank) {
    for (int j = 0; j < c->nranks && n; j++)
      stage_input(op, stage + (size_t)j * n * es,
                  send + ((size_t)j * a->count + off) * es, n);
  } else if (n) {
    stage_input(op, stage, send + off * es, n);
  }
  host_coll_desc_t *d = host_coll_desc(c, c->rank, op->step);
  d->kind = (int32_t)a->kind;
  d->dtype = (int32_t)a->dtype;
  d->op = a->custom_op ? -1 : (int32_t)a->op;
  d->root = a->root;
  d->count = a->count;
}

/* Reduces the block at byte offset `at` of every rank's staging into out. */
static void reduce_block(host_op_t *op, char *out, size_t at, size_t n) {
  host_comm_t *c = op->comm;
  ncore_redop_t rop = op->coll.custom_op ? NCORE_SUM : op->coll.op;
  memcpy(out, host_stage(c, 0, op->step) + at, n * op->esize);
  for (int r = 1; r < c->nranks; r++)
    core_reduce_into(out, host_stage(c, r, op->step) + at, n, op->coll.dtype, rop);
  core_reduce_finish(out, n, op->coll.dtype, rop, c->nranks);
}

/* Computes this rank's output for the current chunk from all stagings:
 * nothing where recvbuf is root's only and this is not root; else this
 * rank's block of each staging (the whole of it for a count sendbuf),
 * reduced over ranks, or placed at block `sender` of an nranks * count
 * recvbuf, or root's copied. */
static void compute_chunk(host_op_t *op) {
  host_comm_t *c = op->comm;
  const core_coll_args_t *a = &op->coll;
  const core_coll_shape_t *shape = &core_coll_shapes[a->kind];
  size_t n = chunk_len(op), es = op->esize, off = op->chunk_off;
  char *recv = a->recvbuf;
  if (!n || (shape->recv.root_only && c->rank != a->root)) return;
  size_t at = shape->send.per_rank ? (size_t)c->rank * n * es : 0;
  if (shape->reduces) {
    reduce_block(op, recv + off * es, at, n);
  } else if (shape->recv.per_rank) {
    for (int r = 0; r < c->nranks; r++)
      memcpy(recv + ((size_t)r * a->count + off) * es,
             host_stage(c, r, op->step) + at, n * es);
  } else {
    memcpy(recv + off * es, host_stage(c, a->root, op->step) + at, n * es);
  }
}

/* A staged collective as a message shows it: its name, count and dtype,
 * and its operator and root where its kind takes them, e.g.
 * "allreduce(count 4, int32, op max)". The descriptor may be a peer's: any
 * value is named, none trusted. */
static const char *describe_coll(const host_coll_desc_t *d, char *buf,
                                 size_t size) {
  int known = (unsigned)d->kind < CORE_COLL_KINDS;
  const core_coll_shape_t *shape = known ? &core_coll_shapes[d->kind] : NULL;
  char op[32] = "", root[24] = "";
  if (shape == NULL || shape->reduces) {
    char name[32];
    snprintf(op, sizeof op, ", op %s",
             core_redop_name((ncore_redop_t)d->op, name, sizeof name));
  }
  if (shape == NULL || shape->rooted)
    snprintf(root, sizeof root, ", root %d", (int)d->root);
  snprintf(buf, size, "%s(count %llu, %s%s%s)",
           kind_name((core_coll_kind_t)d->kind), (unsigned long long)d->count,
           core_dtype_name((ncore_dtype_t)d->dtype), op, root);
  return buf;
}

/* Checks that every rank staged the same collective as this one. */
static int check_descs(host_op_t *op) {
  host_comm_t *c = op->comm;
  host_coll_desc_t *mine = host_coll_desc(c, c->rank, op->step);
  const core_coll_shape_t *shape = &core_coll_shapes[op->coll.kind];
  for (int r = 0; r < c->nranks; r++) {
    host_coll_desc_t *d = host_coll_desc(c, r, op->step);
    if (d->kind != mine->kind || d->dtype != mine->dtype || d->count != mine->count ||
        (shape->reduces && d->op != mine->op) ||
        (shape->rooted && d->root != mine->root)) {
      /* Read once: a peer may still be writing its descriptor. */
      host_coll_desc_t theirs = *d;
      char mine_text[128], theirs_text[128];
      op->status = core_error(
          NCORE_ERR_INVALID_USAGE,
          "collective mismatch: rank %d called %s but rank %d called %s; every "
          "rank must call the same collective with the same %s",
          c->rank, describe_coll(mine, mine_text, sizeof mine_text), r,
          describe_coll(&theirs, theirs_text, sizeof theirs_text),
          shape->reduces && shape->rooted ? "count, dtype, operator and root"
          : shape->reduces               ? "count, dtype and operator"
          : shape->rooted                ? "count, dtype and root"
                                         : "count and dtype");
      return -1;
    }
  }
  return 0;
}

/* A rank that gives up on step s writes, with its failure, s's low bits
 * (bits 40..62 of the state word; the status and rank keep theirs). */
#define ABANDONED_SHIFT 40
#define ABANDONED_MASK ((UINT64_C(1) << 23) - 1)

static uint64_t abandoned_state(ncore_status_t status, int rank,
                                uint64_t step) {
  return host_state_failure(status, rank) |
         (step & ABANDONED_MASK) << ABANDONED_SHIFT;
}

/* 1 if the state word `seen` says step was committed: it is at step, or a
 * rank gave up on step + 1, which it can only do from step. (A rank that
 * finished step posts step + 1 at once, so it may give that up while a
 * slower rank still completes step.) */
static int step_committed(uint64_t seen, uint64_t step) {
  if (seen == step) return 1;
  return (seen & HOST_STATE_FAILED) &&
         ((seen >> ABANDONED_SHIFT) & ABANDONED_MASK) ==
             ((step + 1) & ABANDONED_MASK);
}

/* Completing step `step` once every rank posted it: the first rank to get
 * here commits it in the state word (step - 1 -> step), so that a rank
 * giving up meanwhile (coll_abandon) cannot, and the others follow.
 * Returns 0, or -1 when the communicator failed first (error recorded). */
static int commit_step(host_op_t *op) {
  host_comm_t *c = op->comm;
  _Atomic uint64_t *state = &host_header(c)->coll_state;
  uint64_t seen = op->step - 1;
  if (atomic_compare_exchange_strong(state, &seen, op->step) ||
      step_committed(seen, op->step))
    return 0;
  if (seen & HOST_STATE_FAILED) {
    char why[400];
    host_comm_peer_failure(c, seen, why, sizeof why);
    op->status = core_error(host_state_status(seen),
                            "%s: given up before every rank could complete it: "
                            "%s", op->what, why);
    return -1;
  }
  op->status = core_error(NCORE_ERR_INTERNAL,
                          "%s: step %llu found the communicator at step %llu",
                          op->what, (unsigned long long)op->step,
                          (unsigned long long)seen);
  return -1;
}

static int coll_progress(host_op_t *op);

/* op->abandon of a collective: 0 if op is a step that every rank posted
 * and some rank already completed (it must be finished), else 1 — and a
 * step waiting for its peers is then abandoned, so that no rank can
 * complete it. */
static int coll_abandon(host_op_t *op, ncore_status_t status) {
  /* Not a posted step, or our own abort: no decision to take for the
   * others (they see the abort flag, and may still complete a step we
   * posted, as a dead rank's). */
  if (op->progress != coll_progress || op->phase != 1 ||
      status == NCORE_ERR_CLOSED)
    return 1;
  host_comm_t *c = op->comm;
  uint64_t seen = op->step - 1;
  /* Every rank completed step - 1 before we could post step: none needs
   * to see it committed any more. */
  if (atomic_compare_exchange_strong(&host_header(c)->coll_state, &seen,
                                     abandoned_state(status, c->rank, op->step)))
    return 1;
  return !step_committed(seen, op->step);
}

/* The state machine: phase 0 = waiting to stage, 1 = waiting for peers. */
static int coll_progress(host_op_t *op) {
  host_comm_t *c = op->comm;
  if (c->coll_owner && c->coll_owner != op) return 0;  /* one at a time */
  int posted_now = 0;
  if (op->phase == 0) {
    uint64_t step = c->coll_step + 1;
    /* Step s uses the staging of step s - 2: every rank must be done
     * reading it. (Not s - 1: a rank that finished a step posts the next
     * at once, without waiting for the slowest rank to finish it too.) */
    for (int r = 0; r < c->nranks; r++)
      if (atomic_load_explicit(&host_rank_slot(c, r)->consumed.value,
                               memory_order_acquire) + 2 < step)
        return 0;
    c->coll_owner = op;
    c->coll_step = op->step = step;
    post_chunk(op);
    atomic_store_explicit(&host_rank_slot(c, c->rank)->posted.value, step,
                          memory_order_release);
    op->phase = 1;
    posted_now = 1;
  }
  for (int r = 0; r < c->nranks; r++)
    if (atomic_load_explicit(&host_rank_slot(c, r)->posted.value,
                             memory_order_acquire) < op->step)
      return posted_now ? 2 : 0;  /* waiting for peers is not progress */
  /* Every rank sees every descriptor, so all detect a mismatch alike and
   * none commits the step. */
  if (check_descs(op) != 0 || commit_step(op) != 0) {
    host_op_release(op);
    return -1;
  }
  compute_chunk(op);
  atomic_store_explicit(&host_rank_slot(c, c->rank)->consumed.value, op->step,
                        memory_order_release);
  op->chunk_off += chunk_len(op);
  op->phase = 0;
  if (op->chunk_off >= op->coll.count) {
    c->coll_owner = NULL;
    return 1;
  }
  return 2;
}

void host_coll_init(host_op_t *op, host_comm_t *comm,
                    const core_coll_args_t *args) {
  memset(op, 0, sizeof *op);
  op->progress = coll_progress;
  op->abandon = coll_abandon;
  op->comm = comm;
  op->coll = *args;
  op->coll.config = NULL; /* the call's only: a queued op outlives it */
  op->esize = core_dtype_size(args->dtype);
  size_t per = HOST_STAGE_BYTES / op->esize;
  /* a staging holds one block per destination for an nranks * count sendbuf */
  if (core_coll_shapes[args->kind].send.per_rank) per /= (size_t)comm->nranks;
  op->chunk_elems = per ? per : 1;
  op->what = kind_name(args->kind);
}

ncore_status_t host_collective(core_backend_comm_t *comm,
                               const core_coll_args_t *args) {
  /* Fails fast on an aborted communicator before queueing anything. */
  ncore_status_t s = host_comm_health(comm, 0);
  if (s != NCORE_OK) return s;
  /* The config's tuning fields are hints for NCCL's kernels, and this
   * backend has one algorithm: accepted and ignored (ncore/coll.h). */
  if (args->config != NULL && args->config->user.launch_completion_event != NULL)
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "config.launch_completion_event: a CUDA event, and "
                      "the host backend runs no CUDA: pass NULL there");
  host_op_t op;
  host_coll_init(&op, comm, args);
  return host_submit(&op);
}
