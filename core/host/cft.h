/* core/host — CFT (ncore/cft.h): the host backend has no compute fabric,
 * so every CFT call is refused, saying where CFT exists (cft.c). */
#ifndef NCORE_CORE_HOST_CFT_H
#define NCORE_CORE_HOST_CFT_H

#include "comm.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_cft_team(core_backend_comm_t *comm, int multimem, int mode,
                             ncore_team_t *out);
ncore_status_t host_window_le_info(core_backend_comm_t *comm,
                                   core_backend_window_t *window, int what,
                                   int peer, const ncore_team_t *team,
                                   size_t offset, ncore_cft_le_info_t *out);

#endif
