/* core — reading a communicator configuration (ncore_comm_config_t) into a
 * validated core_config_t (core/backend.h). */
#ifndef NCORE_CORE_CONFIG_H
#define NCORE_CORE_CONFIG_H

#include "backend.h"

/* Copies *user (NULL = defaults) into out->user under the versioned-struct
 * rules, checks every field the core understands (backend value, device >=
 * -1, timeout) and resolves the timeout. The backend is checked for being a
 * known value but not selected: out->backend = the requested value
 * (AUTO/HOST/NCCL); callers resolve it with core_config_select_backend.
 * Returns NCORE_OK or INVALID_ARGUMENT (recorded; messages start "config:"). */
ncore_status_t core_config_read(const ncore_comm_config_t *user,
                                core_config_t *out);

/* Resolves config->backend with core_backend_select and checks the fields
 * that depend on the backend (host: device must be -1). */
ncore_status_t core_config_select_backend(core_config_t *config,
                                          const core_backend_ops_t **ops);

#endif
