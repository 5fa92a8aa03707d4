/* core/nccl — signal / wait_signal / put_signal (ncore/onesided.h).
 *
 * Two paths, chosen per peer (the same on both sides of a pair):
 * - NCCL 2.29.2+ has ncclSignal / ncclWaitSignal / ncclPutSignal, which also
 *   reach peers outside the LSA team through NCCL's RMA proxy (where the
 *   communicator has host RMA support). They serve peers outside this
 *   rank's LSA team, and every peer when ncore's own signal window could
 *   not be made. ncclPutSignal's source must lie in a window registered
 *   with NCORE_WINDOW_COLL_SYMMETRIC (NCCL's rule; NCCL refuses others).
 * - For LSA peers ncore keeps its own path, which NCCL 2.28 needs anyway
 *   and which takes any source buffer (README.md, "signal protocol"):
 * - each communicator owns a signal window: nranks 64-bit slots in its
 *   rank's memory (ncclMemAlloc + ncclCommWindowRegister at init, where every
 *   rank is, since registration is collective); slot s counts the signals
 *   sender s sent to this rank, and only s ever writes it;
 * - signal(peer): add 1 to slot `rank` of peer's window through its LSA
 *   pointer (ncore_signal_add: system-scope fence, then atomic add), or, in
 *   NCORE_NCCL_SIGNAL_MODE=write, cuStreamWriteValue64 of this rank's
 *   running count to peer (its default fence orders earlier stream work);
 * - wait_signal(peer, n): a one-thread kernel that takes the next n of
 *   peer's signals from this rank's consumed counter (on the GPU: an
 *   atomic add of n) and reads local slot `peer` with ld.acquire.sys until
 *   it holds that many (sleeping longer between reads once the wait is
 *   long), or, NCORE_NCCL_WAIT=stream / hybrid, cuStreamWaitValue64(GEQ)
 *   on it for a count the host keeps;
 * - put_signal: a copy into the peer's part of the window through its LSA
 *   pointer (copy engine; or, up to NCORE_NCCL_PUT_KERNEL_MAX bytes, one
 *   fused kernel that copies and then signals with a release), then signal.
 * In a CUDA graph (README.md, "CUDA graphs") the default modes replay
 * correctly, since no count is baked in; the modes whose values come from
 * the host are refused while their stream is being captured. */
#include "onesided.h"

#include <stdlib.h>

#include "../error.h"
#include "device.h"
#include "kernels.h"
#include "peer_work.h"
#include "stream.h"
#include "wait.h"
#include "window_pointer.h"

/* Why signals cannot be used, recorded again for the current call. */
static ncore_status_t signals_unusable(nccl_comm_t *c) {
  return core_error(c->signals_status, "%s", c->signals_reason);
}

/* 1 when the calls for peer go to NCCL's own one-sided calls. */
static int native_peer(const nccl_comm_t *c, int peer) {
  return c->native_onesided &&
         (!nccl_peer_in_lsa(c, peer) || c->signals_status != NCORE_OK);
}

/* NOT_SUPPORTED unless peer is load/store reachable (inside this rank's LSA
 * team): ncore's own protocol reaches peers only through LSA pointers. */
static ncore_status_t require_lsa_peer(nccl_comm_t *c, int peer) {
  if (nccl_peer_in_lsa(c, peer)) return NCORE_OK;
  return core_error(
      NCORE_ERR_NOT_SUPPORTED,
      "peer: rank %d is not load/store reachable from rank %d (outside its "
      "LSA team of %d ranks); reaching it needs NCCL 2.29.2 or newer (its "
      "one-sided calls over the RMA proxy), and the loaded NCCL is %s",
      peer, c->rank, c->lsa_size, nccl_version_text(nccl_runtime_version()));
}

/* Address of this rank's slot in peer's signal window, or NOT_SUPPORTED. */
static ncore_status_t peer_slot(nccl_comm_t *c, int peer, uint64_t **out) {
  ncore_status_t status = require_lsa_peer(c, peer);
  if (status != NCORE_OK) return status;
  void *base = NULL;
  status = nccl_window_peer_base(c->signal_window, peer, &base);
  if (status != NCORE_OK) return status;
  if (base == NULL) /* inside the LSA team, yet no pointer: NCCL's call */
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "peer: NCCL gives no load/store pointer to rank %d's "
                      "signal slots", peer);
  *out = (uint64_t *)base + c->rank;
  return NCORE_OK;
}

/* Why NCORE_NCCL_SIGNAL_MODE=write is refused in a CUDA graph. */
static const char *const write_mode_in_capture =
    "NCORE_NCCL_SIGNAL_MODE=write stores the signal count the host holds "
    "now, which every replay of the graph would store again (the peer "
    "would miss every signal after the first replay's); capture signals in "
    "the default mode (an atomic add on the GPU)";

/* NCORE_ERR_INVALID_USAGE when a signal of this communicator's mode on
 * stream would be captured wrong: only the write mode carries a host
 * count (and pays the question). */
static ncore_status_t signal_capturable(const nccl_comm_t *c, CUstream stream) {
  if (c->signal_mode != NCCL_SIGNAL_WRITE_VALUE) return NCORE_OK;
  return nccl_refuse_capture((ncore_stream_t)stream, write_mode_in_capture);
}

/* Why NCORE_NCCL_WAIT=stream and hybrid are refused in a CUDA graph. */
static const char *const host_count_wait_in_capture =
    "NCORE_NCCL_WAIT=stream and hybrid wait for a signal count the host "
    "computes now, which every replay of the graph would wait for again "
    "(from the second replay on the wait would not wait); capture waits "
    "with the default NCORE_NCCL_WAIT=spin, whose kernel keeps the count "
    "on the GPU";

/* This rank's counter of peer's signals its wait kernels consumed. */
static unsigned long long *consumed_counter(const nccl_comm_t *c, int peer) {
  return (unsigned long long *)((char *)c->signal_slots +
                                NCCL_SIGNAL_CONSUMED_OFFSET(c->nranks)) +
         peer;
}

/* Enqueues the signal to peer on stream (slot known reachable; the
 * caller noted the stream, nccl_peer_work_note). */
static ncore_status_t emit_signal(nccl_comm_t *c, uint64_t *slot, int peer,
                                  CUstream stream) {
  c->signals_sent[peer]++;
  if (c->signal_mode == NCCL_SIGNAL_WRITE_VALUE)
    return cu_check(cu_fn.StreamWriteValue64(stream, (CUdeviceptr)(uintptr_t)slot,
                                             c->signals_sent[peer], 0),
                    "cuStreamWriteValue64");
  unsigned long long one = 1;
  void *params[] = {&slot, &one};
  return nccl_kernel_launch(NCCL_KERNEL_SIGNAL_ADD, 1, 1, stream, params);
}

ncore_status_t nccl_signal(core_backend_comm_t *comm, int peer,
                           ncore_stream_t stream) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  if (native_peer(c, peer))
    return nccl_enqueued(c, nccl_fn.ncclSignal(peer, 0, 0, 0, c->nccl,
                                               (cudaStream_t)stream),
                         "ncclSignal");
  if (c->signals_status != NCORE_OK) return signals_unusable(c);
  uint64_t *slot = NULL;
  status = peer_slot(c, peer, &slot);
  if (status == NCORE_OK) status = signal_capturable(c, (CUstream)stream);
  if (status != NCORE_OK) return status;
  nccl_peer_work_note(c, (CUstream)stream);
  status = emit_signal(c, slot, peer, (CUstream)stream);
  if (status != NCORE_OK) c->signals_sent[peer]--;
  return status;
}

ncore_status_t nccl_wait_signal(core_backend_comm_t *comm,
                                const core_wait_t *waits, size_t count,
                                ncore_stream_t stream) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  /* Waits for native peers go to ncclWaitSignal in one call, the others
   * to ncore's slots, all on the same stream. A peer that can never signal
   * this rank is refused before anything is enqueued (a wait that never
   * ends otherwise). */
  size_t native = 0;
  for (size_t i = 0; i < count && status == NCORE_OK; i++) {
    if (native_peer(c, waits[i].peer)) {
      native++;
      continue;
    }
    status = c->signals_status != NCORE_OK ? signals_unusable(c)
                                           : require_lsa_peer(c, waits[i].peer);
  }
  /* Before anything is enqueued: a refusal leaves the capture as it was. */
  if (status == NCORE_OK && native < count && c->wait_mode != NCCL_WAIT_SPIN)
    status = nccl_refuse_capture(stream, host_count_wait_in_capture);
  if (status != NCORE_OK) return status;
  if (native > 0) {
    nccl_wait_signal_desc_t *d = calloc(native, sizeof *d);
    if (d == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
      if (!native_peer(c, waits[i].peer)) continue;
      d[n].opCnt = (int)waits[i].op_count;
      d[n].peer = waits[i].peer;
      n++;
    }
    status = nccl_enqueued(c, nccl_fn.ncclWaitSignal((int)n, d, c->nccl,
                                                     (cudaStream_t)stream),
                           "ncclWaitSignal");
    free(d);
    if ((status != NCORE_OK && status != NCORE_IN_PROGRESS) || native == count)
      return status;
  }
  ncore_status_t enqueued = status; /* NCORE_OK or NCORE_IN_PROGRESS */
  status = NCORE_OK;
  for (size_t i = 0; i < count && status == NCORE_OK; i++) {
    int peer = waits[i].peer;
    if (native_peer(c, peer)) continue;
    uint64_t *slot = (uint64_t *)c->signal_slots + peer;
    unsigned long long poll_ns = c->wait_spin_ns;
    if (c->wait_mode == NCCL_WAIT_SPIN) {
      /* The kernel takes op_count signals from the consumed counter on the
       * GPU and waits until they are there (reading often for
       * wait_spin_ns, then sleeping longer between reads). */
      unsigned long long *consumed = consumed_counter(c, peer);
      unsigned long long n = waits[i].op_count;
      int give_up = 0;
      void *params[] = {&slot, &consumed, &n, &poll_ns, &give_up};
      status = nccl_kernel_launch(NCCL_KERNEL_WAIT_GEQ, 1, 1, (CUstream)stream,
                                  params);
      continue;
    }
    uint64_t expected = c->signals_consumed[peer] + waits[i].op_count;
    if (c->wait_mode == NCCL_WAIT_HYBRID) {
      /* The kernel waits for the host's count at most wait_spin_ns, then
       * the stream wait below takes over (at once satisfied if the value
       * came in time). */
      unsigned long long *no_counter = NULL;
      unsigned long long value = expected;
      int give_up = 1;
      void *params[] = {&slot, &no_counter, &value, &poll_ns, &give_up};
      status = nccl_kernel_launch(NCCL_KERNEL_WAIT_GEQ, 1, 1, (CUstream)stream,
                                  params);
    }
    if (status == NCORE_OK)
      status = cu_check(cu_fn.StreamWaitValue64((CUstream)stream,
                                                (CUdeviceptr)(uintptr_t)slot,
                                                expected, c->wait_flags),
                        "cuStreamWaitValue64");
    if (status == NCORE_OK) c->signals_consumed[peer] = expected;
  }
  return status == NCORE_OK ? enqueued : status;
}

ncore_status_t nccl_put_signal(core_backend_comm_t *comm, const void *buf,
                               size_t bytes, int peer,
                               core_backend_window_t *window,
                               size_t byte_offset, ncore_stream_t stream) {
  nccl_comm_t *c = comm;
  nccl_window_t *w = window;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  CUstream s = (CUstream)stream;
  if (native_peer(c, peer) && w->owner != c->nccl)
    /* The window exists over this rank's LSA team only (window.c, "LSA
     * fallback"): NCCL cannot put into it from outside. */
    return require_lsa_peer(c, peer);
  if (native_peer(c, peer))
    return nccl_enqueued(c, nccl_fn.ncclPutSignal(buf, bytes, ncclUint8, peer,
                                                  w->win, byte_offset, 0, 0, 0,
                                                  c->nccl, (cudaStream_t)stream),
                         "ncclPutSignal");
  if (c->signals_status != NCORE_OK) return signals_unusable(c);
  uint64_t *slot = NULL;
  status = peer_slot(c, peer, &slot);
  if (status != NCORE_OK) return status;
  void *base = NULL;
  status = nccl_window_peer_base(w, peer, &base);
  if (status != NCORE_OK) return status;
  if (base == NULL) /* same LSA test as the signal window: defensive */
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "peer: rank %d's part of the window is not load/store "
                      "reachable (GIN would be needed)", peer);
  status = signal_capturable(c, s);
  if (status != NCORE_OK) return status;
  char *dst = (char *)base + byte_offset;
  int device_source = bytes > 0 && nccl_is_device_pointer(buf);
  nccl_peer_work_note(c, s);
  if (device_source && bytes <= c->put_kernel_max) {
    /* Small: one fused kernel copies and signals with a release, faster
     * than the copy engine and a stream write (core/nccl/README.md;
     * docs/performance.md, put_signal). */
    c->signals_sent[peer]++;
    unsigned long long value =
        c->signal_mode == NCCL_SIGNAL_WRITE_VALUE ? c->signals_sent[peer] : 1;
    int store = c->signal_mode == NCCL_SIGNAL_WRITE_VALUE;
    unsigned long long n = bytes;
    void *params[] = {&dst, &buf, &n, &slot, &value, &store};
    status = nccl_kernel_launch(NCCL_KERNEL_PUT_SIGNAL, 1, 256, s, params);
    if (status != NCORE_OK) c->signals_sent[peer]--;
    return status;
  }
  if (device_source && bytes <= c->put_sm_max) {
    /* Medium: the SMs copy (a grid of up to 64 blocks; the copy engine
     * starts too slowly for these sizes), then the signal kernel. */
    unsigned long long n = bytes;
    unsigned long long *none = NULL, zero = 0;
    int no_store = 0;
    size_t per_block = 256 * 16 * 8; /* 8 vectors per thread */
    unsigned grid = (unsigned)((bytes + per_block - 1) / per_block);
    if (grid > 64) grid = 64;
    void *params[] = {&dst, &buf, &n, &none, &zero, &no_store};
    status = nccl_kernel_launch(NCCL_KERNEL_PUT_SIGNAL, grid, 256, s, params);
    if (status != NCORE_OK) return status;
  } else if (bytes > 0) {
    /* Large: the copy engine over NVLink; cuMemcpyAsync infers the kind so
     * a host source also works. */
    status = cu_check(cu_fn.MemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                                        (CUdeviceptr)(uintptr_t)buf, bytes, s),
                      "cuMemcpyAsync");
    if (status != NCORE_OK) return status;
  }
  status = emit_signal(c, slot, peer, s);
  if (status != NCORE_OK) c->signals_sent[peer]--;
  return status;
}
