/* core/nccl — windows (window.h): ncclCommWindowRegister over the
 * communicator, or over the rank's LSA team where NCCL gives no window over
 * the whole communicator; the part sizes every rank exchanged first. */
#include "window.h"

#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "../error_clear.h"
#include "device.h"
#include "env.h"
#include "lsa_team.h"
#include "peer_work.h"
#include "wait.h"
#include "window_alias.h"

/* Exchanges part sizes with ncclAllGather over the comm's scratch into
 * sizes[nranks]. */
static ncore_status_t exchange_sizes(nccl_comm_t *c, size_t size,
                                     size_t *sizes) {
  uint64_t mine = size;
  char *slots = (char *)c->scratch + 8;
  CUstream s = c->helper_stream;
  ncore_status_t status = cu_check(
      cu_fn.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)(slots + 8 * (size_t)c->rank),
                            &mine, 8, s),
      "cuMemcpyHtoDAsync");
  if (status == NCORE_OK)
    status = nccl_settle(nccl_fn.coll_allgather(slots + 8 * (size_t)c->rank,
                                                slots, 1, ncclUint64, c->nccl,
                                                (cudaStream_t)s),
                         c, "ncclAllGather(window sizes)");
  uint64_t *exchanged = calloc((size_t)c->nranks, sizeof *exchanged);
  if (status == NCORE_OK && exchanged == NULL)
    status = core_error(NCORE_ERR_SYSTEM, "out of memory");
  if (status == NCORE_OK)
    status = cu_check(cu_fn.MemcpyDtoHAsync(exchanged,
                                            (CUdeviceptr)(uintptr_t)slots,
                                            8 * (size_t)c->nranks, s),
                      "cuMemcpyDtoHAsync");
  if (status == NCORE_OK) status = nccl_helper_sync(c);
  for (int i = 0; status == NCORE_OK && i < c->nranks; i++)
    sizes[i] = (size_t)exchanged[i];
  free(exchanged);
  return status;
}

/* A COLL_SYMMETRIC window needs one size on every rank; every rank sees the
 * same exchanged sizes, so every rank fails alike (the host backend's
 * message, so both backends read the same). */
static ncore_status_t check_symmetric_sizes(const nccl_comm_t *c, size_t size,
                                            const size_t *sizes,
                                            uint32_t flags) {
  if (!(flags & NCORE_WINDOW_COLL_SYMMETRIC)) return NCORE_OK;
  for (int r = 0; r < c->nranks; r++)
    if (sizes[r] != size)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "size: %zu differs from rank %d's %llu (COLL_SYMMETRIC)",
                        size, r, (unsigned long long)sizes[r]);
  return NCORE_OK;
}

/* A window object for [ptr, ptr+size), not registered yet. */
static nccl_window_t *window_new(nccl_comm_t *c, void *ptr, size_t size) {
  nccl_window_t *w = calloc(1, sizeof *w);
  if (w == NULL) return NULL;
  w->comm = c;
  w->ptr = ptr;
  w->size = size;
  pthread_mutex_init(&w->lock, NULL);
  w->peer_sizes = calloc((size_t)c->nranks, sizeof *w->peer_sizes);
  w->peer_base = calloc((size_t)c->nranks, sizeof *w->peer_base);
  w->peer_known = calloc((size_t)c->nranks, 1);
  w->lsa_base = calloc((size_t)c->lsa_size, sizeof *w->lsa_base);
  w->lsa_known = calloc((size_t)c->lsa_size, 1);
  if (!w->peer_sizes || !w->peer_base || !w->peer_known || !w->lsa_base ||
      !w->lsa_known) {
    nccl_window_release(w, 0);
    return NULL;
  }
  for (int i = 0; i < c->nranks; i++) w->peer_sizes[i] = size;
  return w;
}

/* 1 when NCCL may refuse a window over the whole communicator that it
 * gives over the rank's LSA team (several teams, no GIN). */
static int lsa_fallback_possible(const nccl_comm_t *c) {
  /* Blocking communicators only: on a non-blocking one (NCCL 2.30.7) the
   * team communicator's windows crashed the ranks (bench/results/gpu-results.md,
   * 2026-11-23); there windows over several LSA teams without GIN stay
   * NOT_SUPPORTED, as NCCL gives them. */
  return c->lsa_size < c->nranks && !c->nonblocking;
}

/* 1 when NCCL 2.28 would hand back no real window: without cuMem
 * (NCCL_CUMEM_ENABLE=0, or a device without virtual memory management) it
 * answers success with its buffer registration in the window's place
 * (src/dev_runtime.cc), which ncore's pointer kernels would read as a
 * window: an illegal address that poisons the context (session 18, call
 * 1). 2.29.2+ answers a NULL window there, which nccl_window_finish
 * reports. Every rank reads the same (NCCL needs the same setting on
 * every rank anyway). */
static int no_symmetric_windows(const nccl_comm_t *c) {
  if (nccl_runtime_version() >= NCORE_NCCL_VERSION(2, 29, 2)) return 0;
  if (nccl_env_long("NCCL_CUMEM_ENABLE", 1) == 0) return 1;
  CUdevice dev = 0;
  int vmm = 1;
  if (cu_fn.DeviceGet(&dev, c->device) == CUDA_SUCCESS &&
      cu_fn.DeviceGetAttribute(
          &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev) ==
          CUDA_SUCCESS &&
      !vmm)
    return 1;
  return 0;
}

ncore_status_t nccl_window_start(nccl_comm_t *c, void *ptr, size_t size,
                                 uint32_t flags, nccl_window_t **out) {
  nccl_window_t *w = window_new(c, ptr, size);
  if (w == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  w->owner = c->nccl;
  w->first_rank = 0;
  w->flags = flags;
  if (no_symmetric_windows(c)) { /* nccl_window_finish: NOT_SUPPORTED */
    w->win = NULL;
    *out = w;
    return NCORE_OK;
  }
  ncclResult_t r =
      nccl_fn.ncclCommWindowRegister(c->nccl, ptr, size, &w->win, (int)flags);
  if (r == ncclInvalidUsage && lsa_fallback_possible(c)) {
    /* NCCL 2.28 refuses a symmetric window across LSA teams without GIN
     * ("GIN not supported"), on every rank alike: nccl_window_finish
     * registers it over the LSA team instead. */
    w->win = NULL;
    *out = w;
    return NCORE_OK;
  }
  if (r != ncclSuccess && r != ncclInProgress) {
    ncore_status_t status = nccl_check(r, "ncclCommWindowRegister", c->nccl);
    nccl_window_release(w, 0);
    return status;
  }
  *out = w;
  return NCORE_OK;
}

/* LSA fallback. Without GIN, NCCL gives no window over ranks of several
 * LSA teams (2.29+: a NULL window; 2.28, symmetric windows: InvalidUsage),
 * yet a window over the rank's own team works on every version, and the
 * team is all a window without GIN can reach anyway (peer pointers, ncore's
 * one-sided path). So the window is registered over this rank's LSA team,
 * a communicator of its own made on first need (nccl_lsa_comm): every
 * rank of the world takes this path at the same registration, because
 * NCCL refuses alike on every rank. */
/* Waits until a (possibly non-blocking) communicator's pending work,
 * here a window registration, is done. */
static ncore_status_t wait_window(ncclComm_t comm, int64_t timeout_ms) {
  return nccl_wait_ready(comm, NULL, timeout_ms,
                         "ncclCommWindowRegister(LSA team)");
}

static ncore_status_t register_over_lsa_team(nccl_window_t *w) {
  nccl_comm_t *c = w->comm;
  ncore_status_t status = nccl_lsa_comm(c);
  if (status != NCORE_OK) return status;
  ncclResult_t r = nccl_fn.ncclCommWindowRegister(c->lsa_nccl, w->ptr, w->size,
                                                 &w->win, (int)w->flags);
  if (r == ncclSuccess || r == ncclInProgress)
    status = wait_window(c->lsa_nccl, c->timeout_ms);
  else
    status = nccl_check(r, "ncclCommWindowRegister(LSA team)", c->lsa_nccl);
  if (status != NCORE_OK) return status;
  w->owner = c->lsa_nccl;
  w->first_rank = c->rank - c->lsa_rank;
  return NCORE_OK;
}

ncore_status_t nccl_window_finish(nccl_window_t *w) {
  if (w->win != NULL) return NCORE_OK;
  nccl_comm_t *c = w->comm;
  /* The signal window is made during setup, before the real LSA team was
   * read (it was provisionally the world): read it now. */
  if (!c->lsa_known && nccl_read_lsa_team(c) != NCORE_OK) core_error_clear();
  ncore_status_t fallback = NCORE_OK;
  if (lsa_fallback_possible(c) && !no_symmetric_windows(c)) {
    fallback = register_over_lsa_team(w);
    if (fallback == NCORE_OK && w->win != NULL) return NCORE_OK;
  }
  nccl_window_release(w, 0);
  if (fallback != NCORE_OK) return fallback; /* its own message */
  /* NCCL makes no window, without an error, where it does not support
   * them: memory that is not cuMem (NCCL_CUMEM_ENABLE=0), or NCCL 2.29+
   * on ranks that span several LSA teams without GIN. */
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "ncclCommWindowRegister made no window: NCCL supports "
                    "windows here only over cuMem memory (ncore_mem_alloc, "
                    "NCCL_CUMEM_ENABLE not 0) and, for ranks outside one "
                    "load/store-accessible team, with GIN");
}

/* A symmetric window over ranks outside this rank's LSA team needs GIN,
 * and NCCL answers ncclInvalidUsage ("GIN not supported") where it has
 * none: a fact of the machine, not a usage error. */
static ncore_status_t gin_needed(const nccl_comm_t *c, ncore_status_t status) {
  if (status != NCORE_ERR_INVALID_USAGE || c->lsa_size >= c->nranks)
    return status;
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "comm: a window over ranks outside this rank's LSA team "
                    "(%d of %d ranks) needs GIN here, which NCCL does not "
                    "support", c->lsa_size, c->nranks);
}

ncore_status_t nccl_window_create(nccl_comm_t *c, void *ptr, size_t size,
                                  uint32_t flags, int exchange,
                                  nccl_window_t **out) {
  /* Sizes first: a symmetric mismatch then fails on every rank before
   * anything is registered. */
  size_t *sizes = NULL;
  ncore_status_t status = NCORE_OK;
  if (exchange) {
    sizes = calloc((size_t)c->nranks, sizeof *sizes);
    status = sizes ? exchange_sizes(c, size, sizes)
                   : core_error(NCORE_ERR_SYSTEM, "out of memory");
    if (status == NCORE_OK)
      status = check_symmetric_sizes(c, size, sizes, flags);
  }
  nccl_window_t *w = NULL;
  if (status == NCORE_OK)
    status = gin_needed(c, nccl_window_start(c, ptr, size, flags, &w));
  if (status == NCORE_OK && sizes != NULL)
    memcpy(w->peer_sizes, sizes, (size_t)c->nranks * sizeof *sizes);
  free(sizes);
  if (status != NCORE_OK) return status;
  status = gin_needed(c, nccl_settle(ncclSuccess, c, "ncclCommWindowRegister"));
  if (status != NCORE_OK) {
    nccl_window_release(w, w->win != NULL);
    return status;
  }
  status = nccl_window_finish(w);
  if (status == NCORE_OK) {
    nccl_window_alias_add(c, w, ptr, size, flags);
    *out = w;
  }
  return status;
}

void nccl_window_release(nccl_window_t *w, int deregister) {
  if (w == NULL) return;
  nccl_window_alias_remove(w->comm, w);
  if (deregister && w->win != NULL && !core_comm_state_aborted(w->comm->state)) {
    /* Deregistering removes this rank's mappings of the peers' parts at
     * once: a put or signal still queued through them would write nowhere
     * (and its peer wait for ever). */
    nccl_peer_work_drain(w->comm);
    (void)nccl_fn.ncclCommWindowDeregister(w->owner, w->win);
  }
  pthread_mutex_destroy(&w->lock);
  free(w->peer_sizes);
  free(w->peer_base);
  free(w->peer_known);
  free(w->lsa_base);
  free(w->lsa_known);
  free(w);
}

ncore_status_t nccl_window_register(core_backend_comm_t *comm, void *ptr,
                                    size_t size, uint32_t flags,
                                    core_backend_window_t **out,
                                    uintptr_t *native) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status == NCORE_OK && (flags & NCORE_WINDOW_STRICT_ORDERING))
    status = nccl_require_version(NCORE_NCCL_VERSION(2, 29, 7),
                                  "flags: NCORE_WINDOW_STRICT_ORDERING");
  if (status == NCORE_OK && (flags & NCORE_WINDOW_GIN_ONLY))
    status = nccl_require_version(NCORE_NCCL_VERSION(2, 32, 0),
                                  "flags: NCORE_WINDOW_GIN_ONLY");
  if (status == NCORE_OK && (flags & NCORE_WINDOW_CFT_COUNTED))
    status = nccl_require_version(NCORE_NCCL_VERSION(2, 32, 0),
                                  "flags: NCORE_WINDOW_CFT_COUNTED");
  if (status != NCORE_OK) return status;
  /* ncclCommWindowRegister needs cuMem (VMM) memory; plain cudaMalloc
   * memory fails inside NCCL with a vaguer message, so say it first. */
  CUmemorytype type = 0;
  CUresult r = cu_fn.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                         (CUdeviceptr)(uintptr_t)ptr);
  if (r != CUDA_SUCCESS || type != CU_MEMORYTYPE_DEVICE)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "ptr: not device memory of this process (allocate it "
                      "with ncore_mem_alloc)");
  /* The window must lie inside the allocation ptr belongs to: NCCL maps
   * [ptr, ptr + size) for the peers, and past the allocation it fails deep
   * inside (or maps what is not the caller's). */
  CUdeviceptr base = 0;
  size_t allocation = 0;
  status = cu_check(cu_fn.MemGetAddressRange(&base, &allocation,
                                             (CUdeviceptr)(uintptr_t)ptr),
                    "cuMemGetAddressRange");
  if (status != NCORE_OK) return status;
  size_t room = allocation - (size_t)((CUdeviceptr)(uintptr_t)ptr - base);
  if (size > room)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "size: %zu bytes from ptr run past the end of its "
                      "allocation (%zu bytes left in it)", size, room);
  nccl_window_t *w = NULL;
  status = nccl_window_create(c, ptr, size, flags, 1, &w);
  if (status != NCORE_OK) return status;
  *out = w;
  *native = (uintptr_t)w->win;
  return NCORE_OK;
}

void nccl_window_deregister(core_backend_comm_t *comm,
                            core_backend_window_t *window) {
  nccl_comm_t *c = comm;
  if (!core_comm_state_aborted(c->state)) cu_fn.CtxSetCurrent(c->ctx);
  nccl_window_release(window, 1);
}

size_t nccl_window_peer_size(core_backend_window_t *window, int peer) {
  nccl_window_t *w = window;
  return w->peer_sizes[peer];
}
