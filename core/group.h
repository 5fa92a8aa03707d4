/* core — groups (ncore_group_start / ncore_group_end) across backends. */
#ifndef NCORE_CORE_GROUP_H
#define NCORE_CORE_GROUP_H

#include "backend.h"

/* Called before a backend runs a call that a group defers (p2p, collectives,
 * communicator creation): when this thread is inside a group and has not yet
 * started ops' group, starts it, so the backend queues the call. Returns
 * NCORE_OK or the backend's group_start error (recorded). */
ncore_status_t core_group_join(const core_backend_ops_t *ops);

#endif
