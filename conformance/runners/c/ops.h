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
ncore_status_t op_send(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_recv(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_collective(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_signal(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_wait_signal(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_put_signal(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_symmetric_put(runner_t *, const plan_step_t *, result_t *);
ncore_status_t op_symmetric_get(runner_t *, const plan_step_t *, result_t *);

#endif
