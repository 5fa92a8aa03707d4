/* core/nccl — ncore's communicator config as NCCL's ncclConfig_t. */
#ifndef NCORE_CORE_NCCL_CONFIG_H
#define NCORE_CORE_NCCL_CONFIG_H

#include "../backend.h"
#include "nccl_lib.h"

/* Maps the validated ncore config (NULL: NCCL's defaults) to NCCL's, field
 * for field, in the 2.30.7 layout with `version` saying which fields the
 * loaded NCCL reads; a field newer than the loaded NCCL that the config
 * sets is NOT_SUPPORTED, naming it. */
ncore_status_t nccl_config_map(const core_config_t *config,
                               nccl_config_t *out);
/* 1 when the config asks for a non-blocking communicator (blocking = 0). */
int nccl_config_nonblocking(const core_config_t *config);

#endif
