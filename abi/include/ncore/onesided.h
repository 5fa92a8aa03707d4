/* ncore — one-sided communication: signal, wait_signal, put_signal
 * (nccl.core Communicator.signal / wait_signal / put_signal; the host calls
 * ncclSignal / ncclWaitSignal / ncclPutSignal of NCCL 2.29, built from the
 * device API on NCCL 2.28).
 *
 * Signals count: each signal or put_signal from rank s to rank d adds one to
 * d's counter for s. A wait for op_count signals from s completes when d has
 * received op_count more signals from s than earlier waits consumed, and
 * consumes them. A put_signal's data is visible to the waiter once the wait
 * that consumes its signal completes. On NCCL "earlier" is the order the
 * waits run on the GPU: on one stream the order of the calls; waits for one
 * peer on two streams share its signals in the order they run.
 *
 * CUDA graphs (NCCL): the three calls may be captured on the stream they
 * are given; each replay signals again and waits for the next signals,
 * counted with the eager calls. The tuning modes that keep the count on the
 * host cannot be replayed and are refused while stream is being captured
 * (NCORE_ERR_INVALID_USAGE): NCORE_NCCL_SIGNAL_MODE=write for signal and
 * put_signal, NCORE_NCCL_WAIT=stream or hybrid for wait_signal. */
#ifndef NCORE_ONESIDED_H
#define NCORE_ONESIDED_H

#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* One wait-signal request (nccl.core WaitSignalDesc). Versioned. */
typedef struct ncore_wait_signal_desc {
  uint32_t struct_size;
  /* Rank whose signals to wait for, in [0, nranks). */
  int32_t peer;
  /* Number of signals to wait for; >= 1 (default 1). */
  uint32_t op_count;
  /* Signal index; must be 0 (default 0). */
  int32_t signal_index;
  /* Context; must be 0 (default 0). */
  int32_t context;
} ncore_wait_signal_desc_t;

#define NCORE_WAIT_SIGNAL_DESC_INIT                                     \
  {                                                                     \
    (uint32_t)sizeof(ncore_wait_signal_desc_t), /* struct_size */       \
    0,                                          /* peer */              \
    1,                                          /* op_count */          \
    0,                                          /* signal_index */      \
    0                                           /* context */           \
  }

/* Fills *desc with the defaults of NCORE_WAIT_SIGNAL_DESC_INIT, writing
 * exactly struct_size bytes and setting desc->struct_size to struct_size;
 * see ncore_comm_config_init for the rules.
 * desc: caller-owned, at least struct_size bytes; must not be NULL.
 * struct_size: sizeof(ncore_wait_signal_desc_t) as the caller was compiled;
 *   at least offsetof(peer) + 4, at most 4096 (a page).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (desc NULL, struct_size too
 * small or too large), nothing written. */
NCORE_API ncore_status_t ncore_wait_signal_desc_init(
    ncore_wait_signal_desc_t *desc, size_t struct_size);

/* Sends one signal to peer, ordered on stream after earlier work.
 * signal_index, context, flags: must be 0 (reserved, as in nccl.core).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (peer out of range, non-zero
 * signal_index / context / flags, bad stream); NCORE_ERR_CLOSED;
 * NCORE_ERR_INVALID_USAGE, NCORE_ERR_TIMEOUT (comm not fit for a
 * communicating call: ncore/comm.h; NCCL: stream being captured into a CUDA
 * graph under NCORE_NCCL_SIGNAL_MODE=write); NCORE_ERR_NOT_SUPPORTED (NCCL: peer
 * neither LSA-reachable nor reachable through GIN; the message says why);
 * NCORE_ERR_REMOTE; NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_signal(ncore_comm_t comm, int peer,
                                      int signal_index, int context,
                                      uint32_t flags, ncore_stream_t stream);

/* Waits, ordered on stream, until every descriptor's signals arrived.
 * Host backend: blocks the caller. NCCL: later work on stream waits.
 * descs: ndescs descriptors, borrowed; the stride between them is
 *   descs[0].struct_size, and every element must carry the same struct_size.
 * ndescs: >= 1.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (descs NULL, ndescs 0, bad
 * struct_size, peer out of range, op_count 0, non-zero signal_index or
 * context); NCORE_ERR_CLOSED (also when the communicator is aborted while
 * waiting); NCORE_ERR_INVALID_USAGE (comm not fit for a communicating call:
 * ncore/comm.h; NCCL: stream being captured into a CUDA graph under
 * NCORE_NCCL_WAIT=stream or hybrid); NCORE_ERR_NOT_SUPPORTED (NCCL: a peer this rank's
 * signals cannot come from — outside the LSA team without host RMA
 * support, see ncore_signal — nothing is enqueued then);
 * NCORE_ERR_REMOTE (the peer died or aborted before signalling);
 * NCORE_ERR_TIMEOUT; NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_wait_signal(ncore_comm_t comm,
                                           const ncore_wait_signal_desc_t *descs,
                                           size_t ndescs,
                                           ncore_stream_t stream);

/* Copies count elements of dtype from local_buf into peer's part of
 * peer_window at element offset peer_window_offset, then signals peer, ordered
 * on stream (ncclPutSignal).
 * local_buf: borrowed until the operation completes; NULL only if count is 0.
 * peer_window: this rank's handle of the collectively registered window.
 * peer_window_offset: in elements of dtype (as nccl.core).
 * signal_index, context, flags: must be 0.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL buffer, unknown dtype,
 * peer out of range, the put does not fit in the peer's part of the window,
 * window of another communicator, non-zero reserved arguments);
 * NCORE_ERR_CLOSED (comm or window closed); NCORE_ERR_INVALID_USAGE (comm
 * not fit for a communicating call: ncore/comm.h; as ncore_signal under
 * NCORE_NCCL_SIGNAL_MODE=write); NCORE_ERR_NOT_SUPPORTED
 * (as ncore_signal); NCORE_ERR_REMOTE; NCORE_ERR_TIMEOUT;
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_put_signal(ncore_comm_t comm,
                                          const void *local_buf, size_t count,
                                          ncore_dtype_t dtype, int peer,
                                          ncore_window_t peer_window,
                                          size_t peer_window_offset,
                                          int signal_index, int context,
                                          uint32_t flags,
                                          ncore_stream_t stream);

NCORE_END_DECLS

#endif /* NCORE_ONESIDED_H */
