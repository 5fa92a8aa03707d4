/* core/nccl — symmetric memory in the NVSHMEM style: ncclMemAlloc plus a
 * COLL_SYMMETRIC window; peer addresses from the window pointer kernels,
 * computed once at allocation (the query API returns no status); put/get
 * are stream-ordered copy-engine copies through those addresses. */
#include "symmetric.h"

#include <stdlib.h>

#include "../error.h"
#include "device.h"
#include "peer_work.h"
#include "window_pointer.h"

/* A symmetric allocation: the NCCL backend's core_backend_symmetric_t. */
typedef struct core_backend_symmetric {
  nccl_window_t *window;
  void *ptr;
  void **peer;  /* nranks; NULL where not load/store reachable */
} nccl_symmetric_t;

ncore_status_t nccl_symmetric_alloc(core_backend_comm_t *comm, size_t size,
                                    core_backend_symmetric_t **out) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  nccl_symmetric_t *s = calloc(1, sizeof *s);
  if (s) s->peer = calloc((size_t)c->nranks, sizeof *s->peer);
  if (s == NULL || s->peer == NULL) {
    if (s) free(s);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  status = nccl_check(nccl_fn.ncclMemAlloc(&s->ptr, size), "ncclMemAlloc",
                      c->nccl);
  if (status == NCORE_OK)
    /* With the size exchange: every PE must ask for the same size. */
    status = nccl_window_create(c, s->ptr, size, NCCL_WIN_COLL_SYMMETRIC, 1,
                                &s->window);
  for (int pe = 0; status == NCORE_OK && pe < c->nranks; pe++)
    status = nccl_window_peer_base(s->window, pe, &s->peer[pe]);
  if (status != NCORE_OK) {
    if (s->window) nccl_window_release(s->window, 1);
    if (s->ptr) nccl_fn.ncclMemFree(s->ptr);
    free(s->peer);
    free(s);
    return status;
  }
  *out = s;
  return NCORE_OK;
}

void nccl_symmetric_free(core_backend_comm_t *comm,
                         core_backend_symmetric_t *sym) {
  nccl_comm_t *c = comm;
  nccl_symmetric_t *s = sym;
  cu_fn.CtxSetCurrent(c->ctx);
  /* As ncore_mem_free: a put or get still running would fault once the
   * memory is unmapped (ncclMemFree does not wait). */
  (void)cu_fn.CtxSynchronize();
  nccl_window_release(s->window, 1);
  nccl_fn.ncclMemFree(s->ptr);
  free(s->peer);
  free(s);
}

void *nccl_symmetric_local_pointer(core_backend_symmetric_t *sym) {
  return ((nccl_symmetric_t *)sym)->ptr;
}

void *nccl_symmetric_peer_pointer(core_backend_symmetric_t *sym, int pe) {
  return ((nccl_symmetric_t *)sym)->peer[pe];
}

/* NOT_SUPPORTED for a PE outside the LSA team. */
static ncore_status_t reachable(nccl_comm_t *c, nccl_symmetric_t *s, int pe) {
  if (s->peer[pe] != NULL) return NCORE_OK;
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "pe: %d is not load/store reachable from rank %d (outside "
                    "its LSA team of %d); GIN would be needed",
                    pe, c->rank, c->lsa_size);
}

/* One copy between local memory (here) and byte offset of pe's part, ordered on
 * stream: into pe's part where to_peer (put), out of it otherwise (get). */
static ncore_status_t copy_with_peer(nccl_comm_t *c, nccl_symmetric_t *s,
                                     int pe, size_t offset, CUdeviceptr here,
                                     size_t bytes, int to_peer,
                                     ncore_stream_t stream) {
  ncore_status_t status = nccl_comm_enter(c);
  if (status == NCORE_OK) status = reachable(c, s, pe);
  if (status != NCORE_OK || bytes == 0) return status;
  nccl_peer_work_note(c, (CUstream)stream);
  CUdeviceptr remote = (CUdeviceptr)(uintptr_t)((char *)s->peer[pe] + offset);
  return cu_check(cu_fn.MemcpyAsync(to_peer ? remote : here,
                                    to_peer ? here : remote, bytes,
                                    (CUstream)stream),
                  "cuMemcpyAsync");
}

ncore_status_t nccl_symmetric_put(core_backend_comm_t *comm,
                                  core_backend_symmetric_t *sym,
                                  size_t dst_offset, const void *src,
                                  size_t bytes, int pe, ncore_stream_t stream) {
  return copy_with_peer(comm, sym, pe, dst_offset,
                        (CUdeviceptr)(uintptr_t)src, bytes, 1, stream);
}

ncore_status_t nccl_symmetric_get(core_backend_comm_t *comm, void *dst,
                                  core_backend_symmetric_t *sym,
                                  size_t src_offset, size_t bytes, int pe,
                                  ncore_stream_t stream) {
  return copy_with_peer(comm, sym, pe, src_offset,
                        (CUdeviceptr)(uintptr_t)dst, bytes, 0, stream);
}
