/* core/host — CFT: refused. CFT is a CUDA fabric's logical endpoints that
 * NCCL 2.31+ sets up between GPUs; processes on one host sharing memory
 * have nothing it could name, so no answer would be true. */
#include "cft.h"

#include "../error.h"

/* The entry point's name comes first in the message already (CORE_ENTER). */
static ncore_status_t no_cft(void) {
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "CFT (Compute Fabric Transport) needs the NCCL backend "
                    "with NCCL 2.31 or newer on GPUs and a CUDA driver with "
                    "logical endpoints; the host backend has no compute fabric");
}

ncore_status_t host_cft_team(core_backend_comm_t *comm, int multimem, int mode,
                             ncore_team_t *out) {
  (void)comm; (void)multimem; (void)mode; (void)out;
  return no_cft();
}

ncore_status_t host_window_le_info(core_backend_comm_t *comm,
                                   core_backend_window_t *window, int what,
                                   int peer, const ncore_team_t *team,
                                   size_t offset, ncore_cft_le_info_t *out) {
  (void)comm; (void)window; (void)what; (void)peer; (void)team; (void)offset;
  (void)out;
  return no_cft();
}
