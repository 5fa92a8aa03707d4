/* core — the collectives (ncore/coll.h): a call with a config (the
 * _config twins), out of line; every other call runs inline in its entry
 * point (coll.h). */
#include "coll.h"

#include "coll_config.h"

ncore_status_t core_collective_configured(ncore_comm_t comm,
                                         core_coll_args_t *args,
                                         const ncore_coll_config_t *config) {
  core_coll_config_t resolved;
  ncore_status_t status = core_coll_config_read(config, &resolved);
  if (status != NCORE_OK) return status;
  args->config = &resolved;
  return run_collective(comm, args);
}
