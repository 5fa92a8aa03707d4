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
/* After this rank's work on a stream completed: NCORE_ERR_REMOTE naming
 * the rank when an LSA peer aborted (or failed) its communicator, whose
 * NCCL kernels, ended early, may have completed this rank's with what they
 * held (an allreduce whose third rank had died answered NCORE_OK on 3
 * GPUs); NCORE_OK otherwise. Every time: a load from each peer's mapped
 * liveness page, one small copy from its GPU only for a peer whose page
 * could not be mapped. Any thread. */
ncore_status_t nccl_liveness_check_completed(nccl_comm_t *c);
/* Publishes "left politely" (a destroy without abort): in the liveness
 * page at once, in the record on the helper stream (the caller
 * synchronises it). */
void nccl_liveness_mark_left(nccl_comm_t *c);
/* Writes state into this rank's liveness page (the peers of this machine
 * read it there; the record in the signal window is the caller's). */
void nccl_liveness_publish(nccl_comm_t *c, uint64_t state);
/* Unmaps the liveness pages (host memory only: a fork() child's copy). */
void nccl_liveness_forget(nccl_comm_t *c);
/* Frees the probe stream, the records' copies and the liveness pages. */
void nccl_liveness_release(nccl_comm_t *c);

#endif
