/* core — custom reduction operators by value: the values handed out, and
 * what a value passed to a reduction names on a communicator (a built-in,
 * an open custom operator of that communicator made for the dtype, or one
 * closed earlier, which is said so). */
#ifndef NCORE_CORE_REDOP_LOOKUP_H
#define NCORE_CORE_REDOP_LOOKUP_H

#include <stddef.h>

#include "comm_object_types.h"

/* Allocates the next custom-operator value (unique in the process, never
 * reused, so a stale value can never name a newer operator). */
ncore_redop_t core_next_redop_value(void);

/* core_comm_resolve_op for a value that is no built-in. */
ncore_status_t core_comm_resolve_custom_op(core_comm_object_t *comm,
                                           ncore_redop_t op,
                                           ncore_dtype_t dtype,
                                           core_resource_t **custom);
/* Looks up op for a reduction on comm with dtype: built-ins 0..4 pass with
 * *custom = NULL; a custom operator of comm must be open and made for dtype,
 * and is returned acquired in *custom (release with core_resource_release).
 * Returns NCORE_OK; INVALID_ARGUMENT; CLOSED. */
static inline ncore_status_t core_comm_resolve_op(core_comm_object_t *comm,
                                                 ncore_redop_t op,
                                                 ncore_dtype_t dtype,
                                                 core_resource_t **custom) {
  *custom = NULL;
  if (op >= NCORE_SUM && op <= NCORE_AVG) return NCORE_OK;
  return core_comm_resolve_custom_op(comm, op, dtype, custom);
}

/* The name of op for messages, written into buf (size bytes, 32 are
 * enough) and returned: "sum", "prod", "max", "min", "avg" for the
 * built-ins, "custom operator N" otherwise (any value: a peer's
 * description may hold anything). */
const char *core_redop_name(ncore_redop_t op, char *buf, size_t size);

/* Remembers value as a custom operator of comm closed explicitly, so a
 * later use says "was closed" rather than "unknown"; comm->lock must be
 * held. Out of memory, only the later message gets less precise. */
void core_comm_remember_closed_redop(core_comm_object_t *comm,
                                     ncore_redop_t value);

#endif
