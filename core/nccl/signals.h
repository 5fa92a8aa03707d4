/* core/nccl — each communicator's signal window, which ncore's own
 * one-sided protocol (onesided.c) and peer liveness (liveness.c) use:
 * made at creation, released at destroy, abandoned at abort. */
#ifndef NCORE_CORE_NCCL_SIGNALS_H
#define NCORE_CORE_NCCL_SIGNALS_H

#include "comm.h"

/* At creation: the signal window and counters. begin issues the window's
 * (collective) registration; finish, once it completed, records whether
 * signals are usable (signals_status / signals_reason): a topology where
 * NCCL makes no window leaves them NOT_SUPPORTED, not the communicator
 * broken. */
ncore_status_t nccl_signals_begin(nccl_comm_t *c);
ncore_status_t nccl_signals_finish(nccl_comm_t *c);
/* Frees the signal window; retire: its slots may still be read by stream
 * waits (a communicator that failed or was aborted): nccl_retire them. */
void nccl_signals_release(nccl_comm_t *c, int retire);
/* Fills this rank's slots and liveness state with 0x7f bytes on the helper
 * stream, and waits for it: every stream wait on the slots is satisfied (no
 * revoke reaches them) and LSA peers read "aborted" before this rank's
 * NCCL kernels are ended early (abort, revoke, a shrink that aborts), which
 * may complete the peers' own with what they held
 * (nccl_liveness_check_completed). Under abort_lock. */
void nccl_signals_abandon(nccl_comm_t *c);

#endif
