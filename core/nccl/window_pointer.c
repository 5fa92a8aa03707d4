/* core/nccl — window pointers (window_pointer.h). */
#include "window_pointer.h"

#include <string.h>

#include "devcomm.h"
#include "device.h"
#include "kernels.h"

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

/* The base address of rank's part of w (w->lock held): by world rank
 * (lsa 0; rank in the communicator the window is registered on) or by LSA
 * rank (lsa 1), from NCCL's host getter (2.29.2+) or a pointer kernel. */
static ncore_status_t base_of(nccl_window_t *w, int lsa, int rank,
                              void **out) {
  nccl_comm_t *c = w->comm;
  if (host_getters()) {
    const char *what =
        lsa ? "ncclGetLsaDevicePointer" : "ncclGetPeerDevicePointer";
    __typeof__(nccl_fn.ncclGetLsaDevicePointer) getter =
        lsa ? nccl_fn.ncclGetLsaDevicePointer : nccl_fn.ncclGetPeerDevicePointer;
    ncore_status_t status =
        nccl_require(getter, NCORE_NCCL_VERSION(2, 29, 2), what);
    if (status != NCORE_OK) return status;
    return host_pointer(getter(w->win, 0, rank, out), what, c, out);
  }
  size_t zero = 0;
  void *slot = c->scratch;
  void *params[] = {&w->win, &zero, &rank, &slot};
  return query_pointer(c,
                       lsa ? NCCL_KERNEL_WINDOW_LSA_POINTER
                           : NCCL_KERNEL_WINDOW_PEER_POINTER,
                       params, out);
}

ncore_status_t nccl_window_peer_base(nccl_window_t *w, int peer, void **out) {
  *out = NULL;
  if (!nccl_peer_in_lsa(w->comm, peer))
    return NCORE_OK; /* not load/store reachable */
  pthread_mutex_lock(&w->lock);
  ncore_status_t status = NCORE_OK;
  if (!w->peer_known[peer]) {
    /* The peer's rank in the communicator the window is registered on. */
    status = base_of(w, 0, peer - w->first_rank, &w->peer_base[peer]);
    if (status == NCORE_OK) w->peer_known[peer] = 1;
  }
  if (status == NCORE_OK) *out = w->peer_base[peer];
  pthread_mutex_unlock(&w->lock);
  return status;
}

ncore_status_t nccl_window_map_lsa_team(nccl_window_t *w) {
  nccl_comm_t *c = w->comm;
  int first = c->rank - c->lsa_rank;
  ncore_status_t status = NCORE_OK;
  void *base = NULL;
  for (int peer = first; status == NCORE_OK && peer < first + c->lsa_size;
       peer++)
    status = nccl_window_peer_base(w, peer, &base);
  return status;
}

ncore_status_t nccl_window_register_mapped(core_backend_comm_t *comm,
                                           void *ptr, size_t size,
                                           uint32_t flags,
                                           core_backend_window_t **out,
                                           uintptr_t *native) {
  ncore_status_t status =
      nccl_window_register(comm, ptr, size, flags, out, native);
  if (status != NCORE_OK) return status;
  status = nccl_window_map_lsa_team(*out);
  if (status != NCORE_OK) {
    nccl_window_deregister(comm, *out);
    *out = NULL;
  }
  return status;
}

ncore_status_t nccl_window_lsa_pointer(core_backend_comm_t *comm,
                                       core_backend_window_t *window,
                                       int lsa_rank, size_t offset,
                                       void **out) {
  (void)comm;
  nccl_window_t *w = window;
  *out = NULL;
  pthread_mutex_lock(&w->lock);
  ncore_status_t status = NCORE_OK;
  if (!w->lsa_known[lsa_rank]) {
    status = base_of(w, 1, lsa_rank, &w->lsa_base[lsa_rank]);
    if (status == NCORE_OK) w->lsa_known[lsa_rank] = 1;
  }
  if (status == NCORE_OK && w->lsa_base[lsa_rank] != NULL)
    *out = (char *)w->lsa_base[lsa_rank] + offset;
  pthread_mutex_unlock(&w->lock);
  return status;
}

ncore_status_t nccl_window_peer_pointer(core_backend_comm_t *comm,
                                        core_backend_window_t *window, int peer,
                                        size_t offset, void **out) {
  (void)comm;
  void *base = NULL;
  ncore_status_t status = nccl_window_peer_base(window, peer, &base);
  *out = (status == NCORE_OK && base != NULL) ? (char *)base + offset : NULL;
  return status;
}

ncore_status_t nccl_window_multimem_pointer(core_backend_comm_t *comm,
                                            core_backend_window_t *window,
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
  ncore_status_t status =
      query_pointer(c, NCCL_KERNEL_WINDOW_MULTIMEM_POINTER, params, out);
  pthread_mutex_unlock(&w->lock);
  return status;
}

ncore_status_t nccl_window_team_multimem_pointer(core_backend_comm_t *comm,
                                                 core_backend_window_t *window,
                                                 void *mc_base_pointer,
                                                 size_t offset, void **out) {
  nccl_comm_t *c = comm;
  nccl_window_t *w = window;
  *out = NULL;
  /* Before 2.29.2 only a kernel (ncclGetMultimemPointer) answers this. */
  ncore_status_t status = nccl_require(
      nccl_fn.ncclGetMultimemDevicePointer, NCORE_NCCL_VERSION(2, 29, 2),
      "ncore_window_multimem_device_pointer (ncclGetMultimemDevicePointer)");
  if (status != NCORE_OK) return status;
  nccl_multimem_handle_t handle = {mc_base_pointer};
  return host_pointer(
      nccl_fn.ncclGetMultimemDevicePointer(w->win, offset, handle, out),
      "ncclGetMultimemDevicePointer", c, out);
}
