/* core/nccl — is a peer still there? What each rank publishes after its
 * signal slots (its state and identity), and how a waiting rank reads its
 * LSA peers' records (core/nccl/README.md, "Peer liveness"). */
#ifndef NCORE_CORE_NCCL_LIVENESS_H
#define NCORE_CORE_NCCL_LIVENESS_H

#include "comm.h"

/* Fills *out with this process's identity. */
void nccl_identity_of_self(nccl_identity_t *out);
/* At creation, after the signal slots were zeroed and before the window is
 * registered: writes this rank's record (live, identity) on the helper
 * stream. */
ncore_status_t nccl_liveness_begin(nccl_comm_t *c);
/* Once the signal window and the LSA team are known: the probe stream and
 * the address of every LSA peer's record (pointer queries may launch
 * kernels: here, never while a kernel may be stuck). */
ncore_status_t nccl_liveness_finish(nccl_comm_t *c);
/* NCORE_ERR_REMOTE naming the rank when an LSA peer aborted (or failed) its
 * communicator or its process is gone; NCORE_OK otherwise, and at most once
 * per 100 ms (now: now_ms) it looks at all. Any thread. */
ncore_status_t nccl_liveness_check(nccl_comm_t *c, int64_t now);
/* Publishes "left politely" (a destroy without abort), on the helper
 * stream; the caller synchronises it. */
void nccl_liveness_mark_left(nccl_comm_t *c);
/* Frees the probe stream and the records' copies. */
void nccl_liveness_release(nccl_comm_t *c);

#endif
