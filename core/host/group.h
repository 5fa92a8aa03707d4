/* core/host — running operations: alone (outside a group) or all the ops a
 * thread queued between group_start and group_end (group.c). */
#ifndef NCORE_CORE_HOST_GROUP_H
#define NCORE_CORE_HOST_GROUP_H

#include "op.h"

/* Runs ops (a list) until all are done or one fails (group.c). A failure
 * fails every communicator with an unfinished op (host_comm_fail). */
ncore_status_t host_run_ops(host_op_t *ops);
/* Runs one op to completion, or queues it when a group is open. */
ncore_status_t host_submit(host_op_t *op);

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_group_start(void);
ncore_status_t host_group_end(void);

#endif
