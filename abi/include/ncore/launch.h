/* ncore — programs started by the launcher, ncore-run (ABI 1.1).
 *
 * ncore-run -n N PROGRAM makes one unique id and starts N copies of PROGRAM,
 * giving each in its environment:
 *   NCORE_RANK        this rank, in [0, NCORE_NRANKS)
 *   NCORE_NRANKS      the number of ranks
 *   NCORE_LOCAL_RANK  the rank on this machine
 *   NCORE_UNIQUE_ID   the ncore_unique_id_t as 256 hex characters
 * (python -m ncore.run and the bindings' launchers set the same). One call
 * reads them and makes the rank's communicator, so a program needs no code
 * of its own to decode them. */
#ifndef NCORE_LAUNCH_H
#define NCORE_LAUNCH_H

#include "comm.h"
#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* Creates this rank's communicator from the launcher's environment:
 * ncore_comm_init_rank(out, NCORE_NRANKS, NCORE_UNIQUE_ID, NCORE_RANK,
 * config). Collective like ncore_comm_init_rank.
 * The device rule (NCCL backend): unless config names a device
 * (config->device != -1), the rank runs on GPU
 * NCORE_LOCAL_RANK % (number of visible devices), so one rank per GPU is
 * what a launched program gets with no device call of its own; the device
 * is current on the calling thread when this returns. The host backend has
 * no devices.
 * out: receives the new communicator; the caller owns it and releases it
 *   with ncore_comm_destroy or ncore_comm_abort.
 * config: NULL for defaults, or a versioned config (borrowed).
 * Returns what ncore_comm_init_rank returns; NCORE_ERR_INVALID_ARGUMENT also
 * when a variable is missing or malformed (NCORE_RANK or NCORE_NRANKS not a
 * non-negative integer, NCORE_RANK not below NCORE_NRANKS, NCORE_UNIQUE_ID
 * not 256 hex characters, NCORE_LOCAL_RANK set but not a non-negative
 * integer): the message names the variable; NCORE_ERR_UNAVAILABLE also when
 * the NCCL backend sees no device. */
NCORE_API ncore_status_t ncore_comm_init_from_env(
    ncore_comm_t *out, const ncore_comm_config_t *config);

NCORE_END_DECLS

#endif /* NCORE_LAUNCH_H */
