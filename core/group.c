/* core — groups. Nesting is counted here, per thread, and a backend's
 * group_start / group_end run only at the outermost level (core/backend.h).
 * A backend's group is started lazily, when the group's first call for that
 * backend arrives (core_group_join): then a group touches only the backends
 * it uses, and a backend that became usable after ncore_group_start (a
 * communicator created inside the group) still gets its calls queued. */
#include "error.h"
#include "group.h"

#define MAX_BACKENDS 2

static __thread int group_depth;
/* Backends whose group this thread started, in start order. */
static __thread const core_backend_ops_t *started[MAX_BACKENDS];
static __thread int started_count;

ncore_status_t core_group_join(const core_backend_ops_t *ops) {
  if (group_depth == 0) return NCORE_OK;
  for (int i = 0; i < started_count; i++)
    if (started[i] == ops) return NCORE_OK;
  if (started_count == MAX_BACKENDS)
    return core_error(NCORE_ERR_INTERNAL, "group: too many backends");
  ncore_status_t status = ops->group_start();
  if (status != NCORE_OK) return status;
  started[started_count++] = ops;
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_group_start(void) {
  CORE_ENTER("ncore_group_start");
  group_depth++;
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_group_end(void) {
  CORE_ENTER("ncore_group_end");
  if (group_depth == 0)
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "no group was started (ncore_group_end without "
                      "ncore_group_start)");
  if (--group_depth > 0) return NCORE_OK;
  /* Outermost end: run every started backend's group; the first failure is
   * returned (and its message kept), the others still end theirs so that no
   * backend is left inside a group. */
  ncore_status_t first = NCORE_OK;
  int count = started_count;
  started_count = 0;
  for (int i = 0; i < count; i++) {
    ncore_status_t status = started[i]->group_end();
    if (status != NCORE_OK && first == NCORE_OK) first = status;
    started[i] = NULL;
  }
  return first;
}
