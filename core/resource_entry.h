/* core — the shapes every communicator resource's public entry points share
 * (registered buffers, windows, custom operators, device communicators,
 * symmetric memory): a query that reads one value of the resource, and the
 * close / is_valid pair. One definition each, so the resources cannot drift
 * apart in how they check out, name their handle or release it. */
#ifndef NCORE_CORE_RESOURCE_ENTRY_H
#define NCORE_CORE_RESOURCE_ENTRY_H

#include "error.h"
#include "resource_object.h"

/* Defines NCORE_API ncore_status_t FUNCTION(HANDLE_T ARG, OUT_T *out):
 * checks out, acquires ARG (a TYPE handle), sets *out = VALUE (an expression
 * of `res`, the acquired core_resource_t) and releases it. */
#define CORE_RESOURCE_QUERY(FUNCTION, HANDLE_T, ARG, TYPE, OUT_T, VALUE)     \
  NCORE_API ncore_status_t FUNCTION(HANDLE_T ARG, OUT_T *out) {              \
    CORE_ENTER(#FUNCTION);                                                   \
    core_resource_t *res = NULL;                                             \
    ncore_status_t status =                                                  \
        core_resource_query_begin(ARG, TYPE, #ARG, out, &res);               \
    if (status != NCORE_OK) return status;                                   \
    *out = (VALUE);                                                          \
    core_resource_release(res);                                              \
    return NCORE_OK;                                                         \
  }

/* Defines CLOSE (explicit, idempotent close; NCORE_OK for an already closed
 * handle) and IS_VALID (1 while open, else 0; records nothing) of a TYPE
 * handle named ARG. */
#define CORE_RESOURCE_CLOSE_AND_IS_VALID(CLOSE, IS_VALID, HANDLE_T, ARG, TYPE) \
  NCORE_API ncore_status_t CLOSE(HANDLE_T ARG) {                               \
    CORE_ENTER(#CLOSE);                                                        \
    return core_resource_close(ARG, TYPE, #ARG);                               \
  }                                                                            \
  NCORE_API int IS_VALID(HANDLE_T ARG) {                                       \
    CORE_ENTER(#IS_VALID);                                                     \
    return core_resource_is_valid(ARG, TYPE);                                  \
  }

#endif
