/* core/nccl — setting a communicator up (comm_setup.h).
 *
 * A communicator is usable once NCCL made it AND ncore's own setup ran
 * (helper stream, scratch, the signal window: a collective registration).
 * Blocking configs do both before returning. Non-blocking configs
 * (blocking = 0) return NCORE_IN_PROGRESS at once, as NCCL does; each
 * ncore_comm_async_error then advances the setup one step without ever
 * blocking (nccl_comm_advance_setup), so one thread can bring up several
 * communicators that need each other. */
#include "comm_setup.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "comm_registry.h"
#include "config.h"
#include "kernels.h"
#include "liveness.h"
#include "lsa_team.h"
#include "peer_work.h"
#include "signals.h"
#include "small_coll.h"
#include "wait.h"
#include "window_alias.h"
#include "window_pointer.h"

/* A new, not yet set up communicator around nc, on the core's state. */
static nccl_comm_t *comm_new(core_comm_state_t *state, ncclComm_t nc,
                             CUcontext ctx, const core_config_t *config) {
  /* Aligned as its type says: a call reads its first line only. */
  _Static_assert(
      offsetof(nccl_comm_t, alias_windows_live) + sizeof(atomic_int) <= 64,
      "what a call reads of nccl_comm_t must fit its first line");
  nccl_comm_t *c = aligned_alloc(_Alignof(nccl_comm_t), sizeof *c);
  if (c != NULL) memset(c, 0, sizeof *c);
  if (c == NULL) return NULL;
  c->state = state;
  c->nccl = nc;
  c->ctx = ctx;
  c->nonblocking = nccl_config_nonblocking(config);
  c->legacy_stream_detour =
      config->user.cta_policy != NCORE_CONFIG_UNDEF_INT &&
      (config->user.cta_policy & NCCL_CTA_POLICY_ZERO) != 0 &&
      nccl_runtime_version() < NCORE_NCCL_VERSION(2, 29, 7);
  c->timeout_ms = config->timeout_ms;
  c->rank = c->nranks = -1;
  c->device = -1;
  atomic_init(&c->in_progress, 0);
  atomic_init(&c->peer_work_last, NULL);
  pthread_mutex_init(&c->peer_work_lock, NULL);
  nccl_comm_registry_add(c);
  pthread_mutex_init(&c->abort_lock, NULL);
  pthread_mutex_init(&c->liveness_lock, NULL);
  pthread_mutex_init(&c->alias_lock, NULL);
  atomic_init(&c->alias_windows_live, 0);
  return c;
}

void nccl_comm_free(nccl_comm_t *c) {
  nccl_comm_registry_remove(c);
  if (c->helper_stream) cu_fn.StreamDestroy(c->helper_stream);
  if (c->small_order) cu_fn.EventDestroy(c->small_order);
  pthread_mutex_destroy(&c->abort_lock);
  pthread_mutex_destroy(&c->liveness_lock);
  pthread_mutex_destroy(&c->peer_work_lock);
  nccl_peer_work_free(c);
  nccl_window_alias_free(c);
  free(c);
}

void nccl_comm_discard(nccl_comm_t *c) {
  core_comm_state_abort(c->state); /* no window is deregistered */
  if (c->helper_stream) (void)cu_fn.StreamSynchronize(c->helper_stream);
  /* ncclCommAbort first: it stops kernels that may still touch the signal
   * window and scratch; then ncore's memory goes. */
  nccl_fn.ncclCommAbort(c->nccl);
  if (c->lsa_nccl) nccl_fn.ncclCommAbort(c->lsa_nccl);
  nccl_signals_release(c, 1);
  if (c->scratch) nccl_fn.ncclMemFree(c->scratch);
  nccl_comm_free(c);
}

/* First half of ncore's setup, once NCCL's communicator is ready: queries,
 * helper stream, scratch, and the start of the signal window's (collective)
 * registration. Never blocks on peers. */
static ncore_status_t setup_begin(nccl_comm_t *c) {
  ncclComm_t nc = c->nccl;
  ncore_status_t status =
      nccl_check(nccl_fn.ncclCommUserRank(nc, &c->rank), "ncclCommUserRank", nc);
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclCommCount(nc, &c->nranks), "ncclCommCount",
                        nc);
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclCommCuDevice(nc, &c->device),
                        "ncclCommCuDevice", nc);
  /* Provisional LSA team (the whole world: an upper bound that sizes the
   * signal window's caches); the real one is read in setup_finish. */
  c->lsa_rank = c->rank;
  c->lsa_size = c->nranks;
  if (status == NCORE_OK)
    status = cu_check(cu_fn.StreamCreate(&c->helper_stream,
                                         CU_STREAM_NON_BLOCKING),
                      "cuStreamCreate");
  if (status == NCORE_OK) status = nccl_kernels_load();
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclMemAlloc(&c->scratch,
                                             8 * (2 * (size_t)c->nranks + 1)),
                        "ncclMemAlloc", nc);
  if (status == NCORE_OK) status = nccl_signals_begin(c);
  return status;
}

/* Second half, once the signal window's registration completed. */
static ncore_status_t setup_finish(nccl_comm_t *c) {
  ncore_status_t status = nccl_signals_finish(c);
  if (status == NCORE_OK) status = nccl_read_lsa_team(c);
  /* Every LSA peer's slots, this rank's own included, resolved now: no
   * signal asks for them later (window_pointer.h). */
  if (status == NCORE_OK && c->signal_window != NULL)
    status = nccl_window_map_lsa_team(c->signal_window);
  if (status == NCORE_OK) status = nccl_liveness_finish(c);
  if (status != NCORE_OK) return status;
  nccl_small_setup(c);
  c->stage = NCCL_STAGE_READY;
  return NCORE_OK;
}

ncore_status_t nccl_comm_wrap(core_comm_state_t *state, ncclComm_t nc,
                              CUcontext ctx, const core_config_t *config,
                              nccl_comm_t **out) {
  nccl_comm_t *c = comm_new(state, nc, ctx, config);
  if (c == NULL) {
    nccl_fn.ncclCommAbort(nc);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  if (c->nonblocking) {
    c->stage = NCCL_STAGE_NCCL;
    c->stage_started_ms = nccl_now_ms();
    *out = c;
    return NCORE_IN_PROGRESS;
  }
  ncore_status_t status = setup_begin(c);
  if (status == NCORE_OK) status = setup_finish(c);
  if (status != NCORE_OK) {
    nccl_comm_discard(c);
    return status;
  }
  *out = c;
  return NCORE_OK;
}

ncore_status_t nccl_comm_advance_setup(nccl_comm_t *c, ncore_status_t *out) {
  ncclResult_t state = ncclSuccess;
  ncore_status_t status = nccl_check(
      nccl_fn.ncclCommGetAsyncError(c->nccl, &state), "ncclCommGetAsyncError",
      c->nccl);
  if (status != NCORE_OK) return status;
  if (state == ncclInProgress) {
    if (c->timeout_ms >= 0 &&
        nccl_now_ms() - c->stage_started_ms > c->timeout_ms) {
      char message[160];
      snprintf(message, sizeof message, "comm: the communicator's "
               "non-blocking creation did not complete within %lld ms",
               (long long)c->timeout_ms);
      core_comm_state_fail(c->state, NCORE_ERR_TIMEOUT, message);
      *out = NCORE_ERR_TIMEOUT;
    } else {
      *out = NCORE_IN_PROGRESS;
    }
    return NCORE_OK;
  }
  if (state != ncclSuccess) {
    *out = nccl_comm_fail(c, nccl_check(state, "creating the communicator",
                                        c->nccl));
    return NCORE_OK;
  }
  status = cu_check(cu_fn.CtxSetCurrent(c->ctx), "cuCtxSetCurrent");
  if (status == NCORE_OK && c->stage == NCCL_STAGE_NCCL) {
    status = setup_begin(c);
    if (status == NCORE_OK) {
      c->stage = NCCL_STAGE_SIGNALS; /* the registration runs on NCCL's thread */
      *out = NCORE_IN_PROGRESS;
      return NCORE_OK;
    }
  } else if (status == NCORE_OK) {
    status = setup_finish(c);
  }
  if (status != NCORE_OK) nccl_comm_fail(c, status);
  *out = status;
  return NCORE_OK;
}
