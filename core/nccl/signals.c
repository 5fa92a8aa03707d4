/* core/nccl — the signal window of a communicator (signals.h): nranks
 * 64-bit slots in this rank's memory (ncclMemAlloc + ncclCommWindowRegister
 * at init, where every rank is, since registration is collective), then
 * this rank's liveness record, then the consumed counters of its wait
 * kernels; slot s counts the signals sender s sent to this rank, and only
 * s ever writes it. Also how signals are sent and waited for on this
 * communicator (the environment knobs, what the device supports). */
#include "signals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "../error_clear.h"
#include "allocations.h"
#include "env.h"
#include "liveness.h"
#include "properties.h"
#include "../../kernels/small_coll.h"
#include "small_coll.h"
#include "window.h"

ncore_status_t nccl_signals_begin(nccl_comm_t *c) {
  c->native_onesided = nccl_fn.ncclPutSignal && nccl_fn.ncclSignal &&
                       nccl_fn.ncclWaitSignal &&
                       nccl_runtime_version() >= NCORE_NCCL_VERSION(2, 29, 2) &&
                       nccl_env_long("NCORE_NCCL_NATIVE_ONESIDED", 1) != 0;
  /* From 2.29.5 NCCL says whether its host one-sided calls can reach peers
   * outside the LSA team at all (hostRmaSupport); where not, ncore's own
   * path is the only one. */
  if (c->native_onesided &&
      nccl_layout()->properties_size != 0 &&
      !nccl_layout()->properties_gin_type_byte &&
      nccl_fn.ncclCommQueryProperties != NULL) {
    ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
    ncore_status_t status = nccl_query_properties(c, &props);
    if (status != NCORE_OK) return status;
    c->native_onesided = props.host_rma_support;
  }
  const char *mode = getenv("NCORE_NCCL_SIGNAL_MODE");
  c->signal_mode = (mode && strcmp(mode, "write") == 0) ? NCCL_SIGNAL_WRITE_VALUE
                                                        : NCCL_SIGNAL_ADD_KERNEL;
  const char *wait = getenv("NCORE_NCCL_WAIT");
  c->wait_mode = !wait ? NCCL_WAIT_SPIN
                 : strcmp(wait, "stream") == 0 ? NCCL_WAIT_STREAM
                 : strcmp(wait, "hybrid") == 0 ? NCCL_WAIT_HYBRID
                                                : NCCL_WAIT_SPIN;
  c->wait_spin_ns =
      (uint64_t)nccl_env_long("NCORE_NCCL_WAIT_SPIN_US", 50) * 1000;
  /* FLUSH makes remote (peer) writes that landed before the wait was
   * satisfied visible to the work after it, where the device supports it. */
  c->wait_flags = CU_STREAM_WAIT_VALUE_GEQ;
  CUdevice dev = 0;
  int can_flush = 0;
  if (cu_fn.DeviceGet(&dev, c->device) == CUDA_SUCCESS &&
      cu_fn.DeviceGetAttribute(&can_flush,
                               CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES,
                               dev) == CUDA_SUCCESS &&
      can_flush)
    c->wait_flags |= CU_STREAM_WAIT_VALUE_FLUSH;
  /* Without 64-bit stream memory operations, wait and signal with kernels. */
  int memops64 = 0;
  if (cu_fn.DeviceGetAttribute(&memops64,
                               CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
                               dev) != CUDA_SUCCESS || !memops64) {
    c->wait_mode = NCCL_WAIT_SPIN;
    c->signal_mode = NCCL_SIGNAL_ADD_KERNEL;
  }
  c->put_kernel_max = (size_t)nccl_env_long("NCORE_NCCL_PUT_KERNEL_MAX", 16384);
  c->put_sm_max = (size_t)nccl_env_long("NCORE_NCCL_PUT_SM_MAX", 4 << 20);
  c->signals_sent = calloc((size_t)c->nranks, sizeof *c->signals_sent);
  c->signals_consumed = calloc((size_t)c->nranks, sizeof *c->signals_consumed);
  if (!c->signals_sent || !c->signals_consumed)
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  c->signals_status = NCORE_OK;
  /* The slots, this rank's liveness record (liveness.c), the consumed
   * counters (all zero to begin with), then the area of the small-message
   * allreduce (small_coll.c). */
  size_t bytes = nccl_small_area_offset(c->nranks) +
                 nccl_small_area_bytes(c->nranks);
  /* Windows are registered in 4 KiB granules; ask for at least one. */
  size_t alloc = bytes < 4096 ? 4096 : (bytes + 4095) & ~(size_t)4095;
  ncore_status_t status = nccl_check(nccl_fn.ncclMemAlloc(&c->signal_slots, alloc),
                                     "ncclMemAlloc(signal slots)", c->nccl);
  /* Zero before registering: no peer can know the address before the
   * (collective) registration completes, so no signal can be lost. */
  if (status == NCORE_OK)
    status = cu_check(cu_fn.MemsetD8Async((CUdeviceptr)(uintptr_t)c->signal_slots,
                                          0, alloc, c->helper_stream),
                      "cuMemsetD8Async");
  if (status == NCORE_OK) status = nccl_liveness_begin(c);
  if (status == NCORE_OK) status = nccl_helper_sync(c);
  if (status == NCORE_OK)
    status = nccl_window_start(c, c->signal_slots, alloc,
                               NCCL_WIN_COLL_SYMMETRIC, &c->signal_window);
  return status;
}

ncore_status_t nccl_signals_finish(nccl_comm_t *c) {
  ncore_status_t status = nccl_window_finish(c->signal_window);
  /* On any failure finish has released the window: forget it, or the
   * communicator's release frees it a second time (a failed LSA-team split
   * during init did, on NCCL 2.30.7: "double free detected"). */
  if (status != NCORE_OK) c->signal_window = NULL;
  if (status == NCORE_ERR_NOT_SUPPORTED) {
    /* No window on this topology: the communicator works, signals do not. */
    c->signals_status = status;
    snprintf(c->signals_reason, sizeof c->signals_reason,
             "signals need a window over every rank's signal slots, and NCCL "
             "%s made none for this communicator (it supports windows only "
             "within one load/store-accessible team, or with GIN)",
             nccl_version_text(nccl_runtime_version()));
    core_error_clear();
    return NCORE_OK;
  }
  return status;
}

void nccl_signals_release(nccl_comm_t *c, int retire) {
  nccl_liveness_release(c);
  if (c->signal_window != NULL) nccl_window_release(c->signal_window, 1);
  c->signal_window = NULL;
  if (c->signal_slots != NULL && retire) nccl_retire(c->signal_slots, c->ctx);
  else if (c->signal_slots != NULL) nccl_fn.ncclMemFree(c->signal_slots);
  c->signal_slots = NULL;
  free(c->signals_sent);
  free(c->signals_consumed);
  c->signals_sent = c->signals_consumed = NULL;
}

void nccl_signals_abandon(nccl_comm_t *c) {
  /* Data after a wait released this way is meaningless, but the stream no
   * longer hangs; the communicator answers NCORE_ERR_CLOSED from now on. */
  nccl_liveness_publish(c, NCCL_PEER_ABORTED);
  if (c->signal_slots == NULL || c->helper_stream == NULL) return;
  (void)cu_fn.MemsetD8Async((CUdeviceptr)(uintptr_t)c->signal_slots, 0x7f,
                            NCCL_SIGNAL_STATE_OFFSET(c->nranks) + 8,
                            c->helper_stream);
  /* The small-message kernels' flags too: their waits end the same way. */
  if (nccl_small_area_bytes(c->nranks) != 0)
    (void)cu_fn.MemsetD8Async(
        (CUdeviceptr)(uintptr_t)c->signal_slots + nccl_small_area_offset(c->nranks),
        0x7f, NCORE_SMALL_EPOCH_OFFSET, c->helper_stream);
  (void)cu_fn.StreamSynchronize(c->helper_stream);
}
