/* ncore — CFT (Compute Fabric Transport): the CFT teams of a communicator
 * and the logical endpoint (LE) addresses of a window's memory, as NCCL
 * 2.31+ answers them on the host (nccl_device/core.h: ncclTeamCft,
 * ncclTeamCftMultimem, ncclGetMultimemDeviceLeInfo, ncclGetCftDeviceLeInfo,
 * ncclGetPeerDeviceLeInfo; nccl4py 0.5.0+: Communicator.team_cft,
 * team_cft_multimem, RegisteredWindowHandle.get_*_le_info, CftLeInfo).
 *
 * CFT addresses memory by an (LE id, offset) pair that a kernel's CFT
 * operations use instead of a pointer. It exists where the GPUs and the
 * CUDA driver give logical endpoints (CUDA 13.3+), through NCCL: every call
 * here answers NCORE_ERR_NOT_SUPPORTED on the host backend (one host has no
 * compute fabric) and on NCCL older than 2.31, naming NCCL 2.31; where NCCL
 * has the calls but the communicator has no CFT support, NCCL's own refusal
 * comes back (NCORE_ERR_INVALID_ARGUMENT or NCORE_ERR_INVALID_USAGE with
 * NCCL's message). */
#ifndef NCORE_CFT_H
#define NCORE_CFT_H

#include <stddef.h>
#include <stdint.h>
#include "errors.h"
#include "export.h"
#include "team.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* Layout of the CFT team ncore_comm_team_cft answers (ncclCftTeamMode_t). */
typedef enum ncore_cft_team_mode {
  /* Every rank of the CFT unicast group. */
  NCORE_CFT_TEAM_FLAT = 0,
  /* The ranks of the CFT unicast group with this rank's index in every
   * multicast CFT group. */
  NCORE_CFT_TEAM_HIER_MULTIMEM = 1,
  /* The ranks of the CFT unicast group with this rank's index in every LSA
   * team. */
  NCORE_CFT_TEAM_HIER_LSA = 2
} ncore_cft_team_mode_t;

/* Bits of a device communicator's CFT capabilities (ncclCftCap_t; the
 * values ncore_dev_comm_requirements_t's cft_caps or's together). */
typedef enum ncore_cft_cap {
  NCORE_CFT_CAP_NONE = 0,
  /* CFT unicast logical endpoints. */
  NCORE_CFT_CAP_CFT = 1,
  /* CFT multicast logical endpoints. */
  NCORE_CFT_CAP_MULTIMEM = 2
} ncore_cft_cap_t;

/* A logical endpoint address: the LE id (NCCL's ncclCftLeId) and the byte
 * offset inside that endpoint. A plain value, written by the calls below. */
typedef struct ncore_cft_le_info {
  uint32_t le_id;
  uint64_t le_offset;
} ncore_cft_le_info_t;

/* Writes into *out this rank's CFT team in the layout mode (an
 * ncore_cft_team_mode_t): NCCL's ncclTeamCft.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, comm not a
 * communicator handle, mode not an ncore_cft_team_mode_t);
 * NCORE_ERR_CLOSED (comm destroyed or aborted); NCORE_ERR_NOT_SUPPORTED
 * (host backend, NCCL older than 2.31). */
NCORE_API ncore_status_t ncore_comm_team_cft(ncore_comm_t comm, int mode,
                                             ncore_team_t *out);
/* Writes into *out this rank's CFT multimem team: NCCL's
 * ncclTeamCftMultimem. Returns as ncore_comm_team_cft (no mode). */
NCORE_API ncore_status_t ncore_comm_team_cft_multimem(ncore_comm_t comm,
                                                      ncore_team_t *out);

/* Writes into *out the multicast logical endpoint address of byte offset
 * of this rank's part of window: NCCL's ncclGetMultimemDeviceLeInfo.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, window not a
 * window handle, offset beyond this rank's part); NCORE_ERR_CLOSED (window
 * or its communicator closed); NCORE_ERR_NOT_SUPPORTED (host backend, NCCL
 * older than 2.31); NCCL's refusal (no CFT support on the communicator, a
 * window not registered for CFT) as NCCL's status with its message. */
NCORE_API ncore_status_t ncore_window_multimem_le_info(
    ncore_window_t window, size_t offset, ncore_cft_le_info_t *out);
/* Writes into *out the logical endpoint address of byte offset of the part
 * of window that belongs to member peer_cft of *team, a CFT team from
 * ncore_comm_team_cft / _multimem: NCCL's ncclGetCftDeviceLeInfo. *team is
 * read during the call only.
 * Returns as ncore_window_multimem_le_info, and NCORE_ERR_INVALID_ARGUMENT
 * when team is NULL or malformed (n_ranks < 1, rank outside [0, n_ranks),
 * stride < 1) or peer_cft is outside [0, team->n_ranks); on NCCL,
 * NCORE_ERR_NOT_SUPPORTED also where the window could only be registered
 * on this rank's LSA team (NCCL gives no window over the whole
 * communicator there, so no team of it addresses the window). */
NCORE_API ncore_status_t ncore_window_cft_le_info(ncore_window_t window,
                                                  size_t offset, int peer_cft,
                                                  const ncore_team_t *team,
                                                  ncore_cft_le_info_t *out);
/* Writes into *out the logical endpoint address of byte offset of world
 * rank peer's part of window: NCCL's ncclGetPeerDeviceLeInfo.
 * Returns as ncore_window_multimem_le_info, and NCORE_ERR_INVALID_ARGUMENT
 * when peer is outside [0, nranks) or offset beyond peer's part; on NCCL,
 * NCORE_ERR_NOT_SUPPORTED for a peer outside the LSA team a window
 * registered on that team only covers. */
NCORE_API ncore_status_t ncore_window_peer_le_info(ncore_window_t window,
                                                   size_t offset, int peer,
                                                   ncore_cft_le_info_t *out);

NCORE_END_DECLS

#endif /* NCORE_CFT_H */
