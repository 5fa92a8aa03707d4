/* core/host — CFT: refused. CFT is a CUDA fabric's logical endpoints that
 * NCCL 2.31+ sets up between GPUs; processes on one host sharing memory
 * have nothing it could name, so no answer would be true. */
#include "cft.h"

#include "../error.h"

static ncore_status_t no_cft(const char *call) {
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "%s: CFT (Compute Fabric Transport) needs the NCCL backend "
                    "with NCCL 2.31 or newer on GPUs and a CUDA driver with "
                    "logical endpoints; the host backend has no compute fabric",
                    call);
}

ncore_status_t host_cft_team(core_backend_comm_t *comm, int multimem, int mode,
                             ncore_team_t *out) {
  (void)comm; (void)mode; (void)out;
  return no_cft(multimem ? "ncore_comm_team_cft_multimem" : "ncore_comm_team_cft");
}

ncore_status_t host_window_le_info(core_backend_comm_t *comm,
                                   core_backend_window_t *window, int what,
                                   int peer, const ncore_team_t *team,
                                   size_t offset, ncore_cft_le_info_t *out) {
  (void)comm; (void)window; (void)peer; (void)team; (void)offset; (void)out;
  return no_cft(what == CORE_CFT_LE_MULTIMEM ? "ncore_window_multimem_le_info"
                : what == CORE_CFT_LE_PEER   ? "ncore_window_peer_le_info"
                                             : "ncore_window_cft_le_info");
}
