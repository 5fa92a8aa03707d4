/* core/nccl — ncore's own work through peers' mappings (put_signal, signal,
 * symmetric put / get): the streams it was enqueued on, and the wait for
 * it before a mapping it may still use goes away. */
#ifndef NCORE_CORE_NCCL_PEER_WORK_H
#define NCORE_CORE_NCCL_PEER_WORK_H

#include "comm.h"

/* Notes that work through a peer's mapping was enqueued on stream (any
 * handle a call accepts; the default streams count as the legacy one). The
 * stream of the last note costs a comparison; another takes a lock. */
void nccl_peer_work_note(nccl_comm_t *c, CUstream stream);

/* Waits until the work noted so far has completed, then forgets it:
 * before a window is deregistered and before a polite destroy, so that a
 * put or signal still queued (a kernel's first launch may take
 * milliseconds) does not write through a mapping NCCL has just removed,
 * and the peer waiting for it does not wait for ever. Bounded by the
 * communicator's timeout where it has one. */
void nccl_peer_work_drain(nccl_comm_t *c);

/* The program is destroying `stream` through ncore (comm_registry.c,
 * before the handle goes): work noted on it is from now on waited for
 * through an event recorded at its end, and the handle, which a new
 * stream may get, is no longer named. A stream destroyed outside ncore
 * (CuPy, the runtime) must have no put or signal of ncore pending when a
 * window of that communicator is released (README.md, "CUDA graphs"). */
void nccl_peer_work_stream_gone(nccl_comm_t *c, CUstream stream);

/* Releases the list (the communicator's end). */
void nccl_peer_work_free(nccl_comm_t *c);

#endif
