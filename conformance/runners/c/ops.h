/* Conformance runner (C): the step implementations. Each runs one step
 * through the public C API and returns the status; a step that produces a
 * value stores it in the result. */
#ifndef NCORE_CONFORMANCE_OPS_H
#define NCORE_CONFORMANCE_OPS_H

#include <ncore.h>

#include "objects.h"
#include "plan.h"

typedef struct runner {
  int rank;
  int nranks;
  ncore_comm_t world;
  ncore_backend_t backend;
  int device; /* named in every config the runner makes (-1: none) */
  int timeout_ms; /* the case's */
  /* The stream of the calls that take one: NULL (the default stream), or
   * capture_stream between capture_begin and capture_end (capture.c). */
  ncore_stream_t stream;
  ncore_stream_t capture_stream; /* made by the case's first capture_begin */
} runner_t;

typedef struct result {
  int has_value;
  long long value;
  char *hex; /* check steps: the bytes, malloc'ed */
} result_t;

typedef ncore_status_t (*op_fn)(runner_t *, const plan_step_t *, result_t *);

/* The implementation of a step's op, or NULL for an unknown op. */
op_fn ops_find(const char *op);
ncore_dtype_t op_dtype(const plan_step_t *step, const char *key);

ncore_status_t op_buffer(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_check(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_sync(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_p2p(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_collective(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_signal(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_wait_signal(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_put_signal(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_symmetric_put(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_symmetric_get(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_capture_begin(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_capture_end(runner_t *, const plan_step_t *, result_t *);
/* At the end of a case: a capture still open is ended and dropped, the
 * capture stream destroyed. */
void capture_release(runner_t *r);

/* The collective and point-to-point rows of the table of operations
 * (core/op_table.h): op_table_gen.c, generated from it, calls each. */
typedef enum op_table_kind {
  OP_TABLE_NONE,
  OP_TABLE_COLLECTIVE,
  OP_TABLE_P2P
} op_table_kind_t;

/* A collective's or point-to-point call's arguments, read from its step. */
typedef struct op_call {
  const plan_step_t *step; /* for the operator, read where one is taken */
  ncore_comm_t comm;
  const void *send; /* collectives */
  void *recv;
  void *buf; /* point-to-point */
  size_t count;
  ncore_dtype_t dtype;
  int root;
  int peer;
  ncore_stream_t stream; /* the runner's (NULL outside a capture) */
  /* The step's `config` (a collective's _config twin), NULL without one. */
  const ncore_coll_config_t *config;
} op_call_t;

/* What op is: a collective, a point-to-point call or neither. */
op_table_kind_t op_table_kind(const char *op);
/* Calls op (a row of the table) with a's arguments. */
ncore_status_t op_table_call(const char *op, const op_call_t *a);
/* The step's `redop` argument (default sum). */
ncore_redop_t op_redop(const plan_step_t *step);

#endif
