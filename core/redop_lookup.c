/* core — custom reduction operators by value: handing values out and
 * resolving the value a reduction names (core/redop_lookup.h). */
#include <stdio.h>
#include <stdlib.h>

#include "dtype.h"
#include "error.h"
#include "error_clear.h"
#include "redop_lookup.h"

ncore_redop_t core_next_redop_value(void) {
  /* 1000 leaves room above NCCL's built-ins and its own custom range, and
   * keeps values readable in messages. */
  static atomic_int next = 1000;
  return (ncore_redop_t)atomic_fetch_add(&next, 1);
}

const char *core_redop_name(ncore_redop_t op, char *buf, size_t size) {
  /* nccl.core's and the bindings' spelling of the built-ins (NCORE_SUM is
   * ncore.SUM, RedOp::SUM, ncore.Sum). */
  static const char *const builtin[] = {"sum", "prod", "max", "min", "avg"};
  if (op >= NCORE_SUM && op <= NCORE_AVG)
    snprintf(buf, size, "%s", builtin[op - NCORE_SUM]);
  else
    snprintf(buf, size, "custom operator %d", (int)op);
  return buf;
}

ncore_status_t core_comm_resolve_custom_op(core_comm_object_t *comm,
                                           ncore_redop_t op,
                                           ncore_dtype_t dtype,
                                           core_resource_t **custom) {
  core_resource_t *found = NULL;
  int was_closed = 0;
  pthread_mutex_lock(&comm->lock);
  for (core_resource_t *r = comm->resources; r != NULL; r = r->next) {
    if (r->header.type == CORE_HANDLE_CUSTOM_REDOP && r->redop_value == op) {
      core_object_t *obj = NULL;
      if (core_handle_acquire(r->header.handle, CORE_HANDLE_CUSTOM_REDOP, "op",
                              &obj) == NCORE_OK)
        found = r;
      break;
    }
  }
  if (found == NULL)
    for (size_t i = 0; i < comm->closed_redop_count; i++)
      if (comm->closed_redops[i] == op) was_closed = 1;
  pthread_mutex_unlock(&comm->lock);
  if (found == NULL) {
    core_error_clear();
    if (was_closed)
      return core_error(NCORE_ERR_CLOSED, "op: custom operator %d was closed",
                        (int)op);
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "op: %d is neither a built-in operator (SUM 0, PROD 1, "
                      "MAX 2, MIN 3, AVG 4) nor a custom operator of this "
                      "communicator", (int)op);
  }
  if (found->dtype != dtype) {
    ncore_dtype_t made_for = found->dtype;
    core_handle_release(&found->header);
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "op: custom operator %d was made for %s, not %s",
                      (int)op, core_dtype_name(made_for),
                      core_dtype_name(dtype));
  }
  *custom = found;
  return NCORE_OK;
}

void core_comm_remember_closed_redop(core_comm_object_t *comm,
                                     ncore_redop_t value) {
  if (comm->closed_redop_count == comm->closed_redop_capacity) {
    size_t capacity =
        comm->closed_redop_capacity ? comm->closed_redop_capacity * 2 : 16;
    int32_t *grown = realloc(comm->closed_redops, capacity * sizeof *grown);
    if (grown == NULL) return; /* only the message gets less precise */
    comm->closed_redops = grown;
    comm->closed_redop_capacity = capacity;
  }
  comm->closed_redops[comm->closed_redop_count++] = value;
}
