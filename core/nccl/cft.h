/* core/nccl — CFT teams and logical endpoint addresses (ncore/cft.h),
 * asked of NCCL 2.31+'s host calls (cft.c). */
#ifndef NCORE_CORE_NCCL_CFT_H
#define NCORE_CORE_NCCL_CFT_H

#include "comm.h"

/* The first NCCL with the CFT host calls (ncclTeamCft, ncclTeamCftMultimem,
 * ncclGet{Multimem,Cft,Peer}DeviceLeInfo): nccl4py 0.5.0, generated from
 * 2.31.2's headers, is the first to bind them. */
#define NCCL_CFT_SINCE NCORE_NCCL_VERSION(2, 31, 0)

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_cft_team(core_backend_comm_t *comm, int multimem, int mode,
                             ncore_team_t *out);
ncore_status_t nccl_window_le_info(core_backend_comm_t *comm,
                                   core_backend_window_t *window, int what,
                                   int peer, const ncore_team_t *team,
                                   size_t offset, ncore_cft_le_info_t *out);

#endif
