/* core — what the collectives' entry points (coll_gen.c, generated from the
 * table of operations) call: one function for every collective (coll.c). */
#ifndef NCORE_CORE_COLL_H
#define NCORE_CORE_COLL_H

#include <ncore/coll.h>

#include "op_table.h"

/* Runs collective `kind` (a COLL row of op_table.h) as ncore_<name> (or
 * its _config twin, config non-NULL) was called: records the call for messages (CORE_ENTER), checks every argument
 * against the row (buffers, count, dtype, root where the row is rooted, op
 * where it reduces, stream, the in-place rule, the config where given:
 * coll_config.h), resolves the operator and
 * hands the call to the communicator's backend (or queues it in the open
 * group). op is ignored where the row does not reduce, root where it is not
 * rooted. Returns NCORE_OK or the first failing check's status, as
 * ncore/coll.h documents for every collective. The buffers are borrowed as
 * the public call says, config and what it points to for the call;
 * nothing is owned after return. */
ncore_status_t core_collective(core_coll_kind_t kind, ncore_comm_t comm,
                               const void *sendbuf, void *recvbuf, size_t count,
                               ncore_dtype_t dtype, ncore_redop_t op, int root,
                               ncore_stream_t stream,
                               const ncore_coll_config_t *config);

#endif
