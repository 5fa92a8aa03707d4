/* core/nccl — windows (ncclCommWindowRegister) and their device pointers.
 *
 * NCCL 2.29.2+ answers pointer queries on the host
 * (ncclGet{Peer,Lsa,LsaMultimem}DevicePointer). NCCL 2.28 has no host-side
 * getters, so there the pointers come from one-thread kernels
 * (kernels/ncore_kernels.cu, built against 2.28.9's device API, whose
 * window layout only 2.28 has) that call ncclGetLsaPointer /
 * ncclGetPeerPointer / ncclGetLsaMultimemPointer and store the result; the
 * backend copies it back. Either way the base address is cached per
 * (window, rank), so later queries are host arithmetic (a window's mapping
 * never moves while it is registered). */
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "../error_clear.h"
#include "nccl_internal.h"
#include "nccl_ops.h"

int nccl_peer_in_lsa(const nccl_comm_t *c, int peer) {
  /* NCCL's LSA team is the contiguous block of world ranks around this one
   * (ncclTeamLsa: stride 1). */
  int first = c->rank - c->lsa_rank;
  return peer >= first && peer < first + c->lsa_size;
}

ncore_status_t nccl_helper_sync(nccl_comm_t *c) {
  return cu_check(cu_fn.StreamSynchronize(c->helper_stream),
                  "cuStreamSynchronize");
}

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
    status = nccl_settle(nccl_fn.ncclAllGather(slots + 8 * (size_t)c->rank,
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
   * team communicator's windows crashed the ranks (docs/gpu-results.md,
   * 2026-11-23); there windows over several LSA teams without GIN stay
   * NOT_SUPPORTED, as NCCL gives them. */
  return c->lsa_size < c->nranks && !c->nonblocking;
}

ncore_status_t nccl_window_start(nccl_comm_t *c, void *ptr, size_t size,
                                 uint32_t flags, nccl_window_t **out) {
  nccl_window_t *w = window_new(c, ptr, size);
  if (w == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  w->owner = c->nccl;
  w->first_rank = 0;
  w->flags = flags;
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
  return nccl_wait_ready(comm, timeout_ms, "ncclCommWindowRegister(LSA team)");
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
  if (lsa_fallback_possible(c)) {
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
  if (status == NCORE_OK) *out = w;
  return status;
}

void nccl_window_release(nccl_window_t *w, int deregister) {
  if (w == NULL) return;
  if (deregister && w->win != NULL && !atomic_load(&w->comm->aborted))
    (void)nccl_fn.ncclCommWindowDeregister(w->owner, w->win);
  pthread_mutex_destroy(&w->lock);
  free(w->peer_sizes);
  free(w->peer_base);
  free(w->peer_known);
  free(w->lsa_base);
  free(w->lsa_known);
  free(w);
}

/* 1 when the loaded NCCL answers pointer queries on the host. */
static int host_getters(void) {
  return nccl_runtime_version() >= NCORE_NCCL_VERSION(2, 29, 2);
}

/* A host getter's answer: NULL (no pointer: not reachable) unless NCCL
 * succeeded with one. */
static ncore_status_t host_pointer(ncclResult_t r, const char *what,
                                   nccl_comm_t *c, void **out) {
  if (r != ncclSuccess) *out = NULL;
  return r == ncclSuccess || r == ncclInvalidArgument ||
                 r == ncclInvalidUsage
             ? NCORE_OK
             : nccl_check(r, what, c->nccl);
}

/* Runs a pointer kernel that stores one void* into scratch[0]; reads it. */
static ncore_status_t query_pointer(nccl_comm_t *c, nccl_kernel_t kernel,
                                    void **params, void **out) {
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  status = nccl_kernel_launch(kernel, 1, 1, c->helper_stream, params);
  uint64_t value = 0;
  if (status == NCORE_OK)
    status = cu_check(cu_fn.MemcpyDtoHAsync(&value,
                                            (CUdeviceptr)(uintptr_t)c->scratch,
                                            8, c->helper_stream),
                      "cuMemcpyDtoHAsync");
  if (status == NCORE_OK) status = nccl_helper_sync(c);
  if (status == NCORE_OK) *out = (void *)(uintptr_t)value;
  return status;
}

ncore_status_t nccl_window_peer_base(nccl_window_t *w, int peer, void **out) {
  nccl_comm_t *c = w->comm;
  *out = NULL;
  if (!nccl_peer_in_lsa(c, peer)) return NCORE_OK; /* not load/store reachable */
  pthread_mutex_lock(&w->lock);
  ncore_status_t status = NCORE_OK;
  /* The peer's rank in the communicator the window is registered on. */
  int owner_peer = peer - w->first_rank;
  if (!w->peer_known[peer]) {
    if (host_getters()) {
      status = nccl_require(nccl_fn.ncclGetPeerDevicePointer,
                            NCORE_NCCL_VERSION(2, 29, 2),
                            "ncclGetPeerDevicePointer");
      if (status == NCORE_OK)
        status = host_pointer(nccl_fn.ncclGetPeerDevicePointer(
                                  w->win, 0, owner_peer, &w->peer_base[peer]),
                              "ncclGetPeerDevicePointer", c,
                              &w->peer_base[peer]);
    } else {
      size_t zero = 0;
      void *slot = c->scratch;
      void *params[] = {&w->win, &zero, &owner_peer, &slot};
      status = query_pointer(c, NCCL_KERNEL_PEER_POINTER, params,
                             &w->peer_base[peer]);
    }
    if (status == NCORE_OK) w->peer_known[peer] = 1;
  }
  if (status == NCORE_OK) *out = w->peer_base[peer];
  pthread_mutex_unlock(&w->lock);
  return status;
}

/* ---- backend ops ---- */

ncore_status_t nccl_window_register(void *comm, void *ptr, size_t size,
                                    uint32_t flags, void **out,
                                    uintptr_t *native) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status == NCORE_OK && (flags & NCORE_WINDOW_STRICT_ORDERING))
    status = nccl_require_version(NCORE_NCCL_VERSION(2, 29, 7),
                                  "flags: NCORE_WINDOW_STRICT_ORDERING");
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

void nccl_window_deregister(void *comm, void *window) {
  nccl_comm_t *c = comm;
  if (!atomic_load(&c->aborted)) cu_fn.CtxSetCurrent(c->ctx);
  nccl_window_release(window, 1);
}

size_t nccl_window_peer_size(void *window, int peer) {
  nccl_window_t *w = window;
  return w->peer_sizes[peer];
}

ncore_status_t nccl_window_lsa_pointer(void *comm, void *window, int lsa_rank,
                                       size_t offset, void **out) {
  nccl_comm_t *c = comm;
  nccl_window_t *w = window;
  *out = NULL;
  pthread_mutex_lock(&w->lock);
  ncore_status_t status = NCORE_OK;
  if (!w->lsa_known[lsa_rank]) {
    if (host_getters()) {
      status = nccl_require(nccl_fn.ncclGetLsaDevicePointer,
                            NCORE_NCCL_VERSION(2, 29, 2),
                            "ncclGetLsaDevicePointer");
      if (status == NCORE_OK)
        status = host_pointer(nccl_fn.ncclGetLsaDevicePointer(
                                  w->win, 0, lsa_rank, &w->lsa_base[lsa_rank]),
                              "ncclGetLsaDevicePointer", c,
                              &w->lsa_base[lsa_rank]);
    } else {
      size_t zero = 0;
      void *slot = c->scratch;
      void *params[] = {&w->win, &zero, &lsa_rank, &slot};
      status = query_pointer(c, NCCL_KERNEL_LSA_POINTER, params,
                             &w->lsa_base[lsa_rank]);
    }
    if (status == NCORE_OK) w->lsa_known[lsa_rank] = 1;
  }
  if (status == NCORE_OK && w->lsa_base[lsa_rank] != NULL)
    *out = (char *)w->lsa_base[lsa_rank] + offset;
  pthread_mutex_unlock(&w->lock);
  return status;
}

ncore_status_t nccl_window_peer_pointer(void *comm, void *window, int peer,
                                        size_t offset, void **out) {
  (void)comm;
  void *base = NULL;
  ncore_status_t status = nccl_window_peer_base(window, peer, &base);
  *out = (status == NCORE_OK && base != NULL) ? (char *)base + offset : NULL;
  return status;
}

ncore_status_t nccl_window_multimem_pointer(void *comm, void *window,
                                            size_t offset, void **out) {
  nccl_comm_t *c = comm;
  nccl_window_t *w = window;
  *out = NULL;
  /* ncclGetLsaMultimemPointer needs a device communicator created with
   * lsaMultimem; without one, or when NCCL gave it no multicast object
   * (NVLS off or unsupported), there is no multimem address: NULL. Never
   * faked, and ncore never calls cuMulticastCreate itself. */
  if (host_getters()) {
    /* 2.29.2+: the window itself knows its multicast mapping, if any. */
    ncore_status_t status = nccl_require(
        nccl_fn.ncclGetLsaMultimemDevicePointer, NCORE_NCCL_VERSION(2, 29, 2),
        "ncclGetLsaMultimemDevicePointer");
    if (status != NCORE_OK) return status;
    return host_pointer(
        nccl_fn.ncclGetLsaMultimemDevicePointer(w->win, offset, out),
        "ncclGetLsaMultimemDevicePointer", c, out);
  }
  nccl_devcomm_t *d = c->multimem_devcomm;
  if (d == NULL) return NCORE_OK;
  void *mc = NULL;
  memcpy(&mc, d->storage + nccl_layout()->devcomm_lsa_multimem, sizeof mc);
  if (mc == NULL) return NCORE_OK;
  void *slot = c->scratch;
  void *params[] = {&w->win, &offset, d->storage, &slot};
  pthread_mutex_lock(&w->lock);
  ncore_status_t status = query_pointer(c, NCCL_KERNEL_MULTIMEM_POINTER, params,
                                        out);
  pthread_mutex_unlock(&w->lock);
  return status;
}
