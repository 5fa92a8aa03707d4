/* core — groups (ncore_group_start / ncore_group_end) across backends. */
#ifndef NCORE_CORE_GROUP_H
#define NCORE_CORE_GROUP_H

#include <stddef.h>

#include "backend.h"
#include "handles.h"
#include "thread_state.h"

/* core_group_join inside a group: starts ops' group where needed and
 * holds the references. */
ncore_status_t core_group_join_queued(const core_backend_ops_t *ops,
                                      core_object_t *const *hold,
                                      size_t count);

/* Called before a backend runs a call that a group defers (p2p, collectives,
 * one-sided calls, communicator creation): when this thread is inside a
 * group, starts ops' group if it has not yet, so the backend queues the
 * call, and takes a reference on each of the `count` objects the call uses
 * (its communicator, custom operator, window), held until the outermost
 * ncore_group_end has run the backends' groups: a queued call never outlives
 * what it points to, whatever another thread (ncore_comm_abort) or the
 * caller (a close between start and end) does meanwhile. Outside a group it
 * does nothing. Returns NCORE_OK, the backend's group_start error, or
 * NCORE_ERR_SYSTEM (out of memory); recorded. */
static inline ncore_status_t core_group_join(const core_backend_ops_t *ops,
                                             core_object_t *const *hold,
                                             size_t count) {
  if (core_thread.group_depth == 0) return NCORE_OK;
  return core_group_join_queued(ops, hold, count);
}

#endif
