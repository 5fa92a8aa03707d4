/* core — groups. Nesting is counted here, per thread, and a backend's
 * group_start / group_end run only at the outermost level (core/backend.h).
 * A backend's group is started lazily, when the group's first call for that
 * backend arrives (core_group_join): then a group touches only the backends
 * it uses, and a backend that became usable after ncore_group_start (a
 * communicator created inside the group) still gets its calls queued.
 * Backends queue raw pointers (host ops, NCCL's own queue), so the group
 * holds a reference on everything a queued call uses until it has run. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "group.h"
#include "thread_state.h"

#define MAX_BACKENDS 2

#define HELD_INLINE 32
/* This thread's group, in one thread-local (one TLS descriptor; its
 * counters in one line). */
static __thread struct {
  /* Backends whose group this thread started, in start order. */
  const core_backend_ops_t *started[MAX_BACKENDS];
  int started_count;
  /* References the queued calls need, released after the outermost end.
   * A group of up to HELD_INLINE references (the common case: a few sends
   * and receives) lives in thread-local storage (held_inline), so a group
   * allocates nothing; larger ones move to the heap until their end. */
  core_object_t **held;
  size_t held_count, held_capacity;
  core_object_t *held_inline[HELD_INLINE];
} group;

/* Makes room for n more held references. */
static ncore_status_t reserve_held(size_t n) {
  if (group.held == NULL) {
    group.held = group.held_inline;
    group.held_capacity = HELD_INLINE;
  }
  if (group.held_capacity - group.held_count >= n) return NCORE_OK;
  size_t capacity = group.held_capacity;
  while (capacity - group.held_count < n) capacity *= 2;
  core_object_t **grown =
      group.held == group.held_inline
          ? malloc(capacity * sizeof *grown)
          : realloc(group.held, capacity * sizeof *grown);
  if (grown == NULL)
    return core_error(NCORE_ERR_SYSTEM,
                      "out of memory queueing a call in the group");
  if (group.held == group.held_inline)
    memcpy(grown, group.held_inline, group.held_count * sizeof *grown);
  group.held = grown;
  group.held_capacity = capacity;
  return NCORE_OK;
}

ncore_status_t core_group_join_queued(const core_backend_ops_t *ops,
                                      core_object_t *const *hold,
                                      size_t count) {
  ncore_status_t status = reserve_held(count);
  if (status != NCORE_OK) return status;
  int joined = 0;
  for (int i = 0; i < group.started_count; i++)
    joined |= group.started[i] == ops;
  if (!joined) {
    if (group.started_count == MAX_BACKENDS)
      return core_error(NCORE_ERR_INTERNAL, "group: too many backends");
    status = ops->group_start();
    if (status != NCORE_OK) return status;
    group.started[group.started_count++] = ops;
  }
  for (size_t i = 0; i < count; i++) {
    if (hold[i] == NULL) continue;
    core_handle_retain(hold[i]);
    group.held[group.held_count++] = hold[i];
  }
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_group_start(void) {
  CORE_ENTER("ncore_group_start");
  core_thread.group_depth++;
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_group_end(void) {
  CORE_ENTER("ncore_group_end");
  if (core_thread.group_depth == 0)
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "no group was started (ncore_group_end without "
                      "ncore_group_start)");
  if (--core_thread.group_depth > 0) return NCORE_OK;
  /* Outermost end: run every started backend's group; the first failure is
   * returned (and its message kept), the others still end theirs so that no
   * backend is left inside a group. */
  ncore_status_t first = NCORE_OK;
  int count = group.started_count;
  group.started_count = 0;
  for (int i = 0; i < count; i++) {
    ncore_status_t status = group.started[i]->group_end();
    if (status != NCORE_OK && first == NCORE_OK) first = status;
    group.started[i] = NULL;
  }
  /* Now nothing queued points at them: a communicator destroyed or an
   * operator closed during the group goes here. */
  size_t n = group.held_count;
  group.held_count = 0;
  for (size_t i = 0; i < n; i++) core_handle_release(group.held[i]);
  if (group.held != group.held_inline) {
    free(group.held);  /* a thread that ends holds nothing on the heap */
    group.held = NULL;
    group.held_capacity = 0;
  }
  return first;
}
