/* core/nccl — windows (ncclCommWindowRegister): registration, with the
 * part-size exchange and the fallback over the LSA team, and release. */
#ifndef NCORE_CORE_NCCL_WINDOW_H
#define NCORE_CORE_NCCL_WINDOW_H

#include "comm.h"

/* One window: the NCCL backend's core_backend_window_t. */
typedef struct core_backend_window {
  nccl_comm_t *comm;
  ncclWindow_t win;
  /* The NCCL communicator the window is registered on: comm->nccl, or the
   * rank's LSA team (comm->lsa_nccl) where NCCL gives no window over the
   * whole communicator (window.c, "LSA fallback"); first_rank is the world
   * rank of that communicator's rank 0 (peer ranks are relative to it). */
  ncclComm_t owner;
  int first_rank;
  uint32_t flags;
  void *ptr;
  size_t size;
  size_t *peer_sizes;  /* nranks */
  void **peer_base;    /* per world rank: base pointer, cached */
  unsigned char *peer_known;
  void **lsa_base;     /* per LSA rank: base pointer, cached */
  unsigned char *lsa_known;
  pthread_mutex_t lock; /* guards the caches */
} nccl_window_t;

/* Registers [ptr, ptr+size) as a window; with exchange_sizes, first
 * exchanges part sizes (a COLL_SYMMETRIC window with differing sizes fails
 * on every rank). Waits for a non-blocking communicator. */
ncore_status_t nccl_window_create(nccl_comm_t *c, void *ptr, size_t size,
                                  uint32_t flags, int exchange_sizes,
                                  nccl_window_t **out);
/* The two halves of nccl_window_create without the size exchange, for
 * callers that must not block (a non-blocking communicator's setup):
 * start issues ncclCommWindowRegister; finish, once NCCL completed it,
 * checks NCCL made a window (NCORE_ERR_NOT_SUPPORTED where NCCL does not
 * support windows). finish releases w on failure. */
ncore_status_t nccl_window_start(nccl_comm_t *c, void *ptr, size_t size,
                                 uint32_t flags, nccl_window_t **out);
ncore_status_t nccl_window_finish(nccl_window_t *w);
/* Deregisters (unless the communicator was aborted) and frees. */
void nccl_window_release(nccl_window_t *w, int deregister);

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_window_register(core_backend_comm_t *comm, void *ptr,
                                    size_t size, uint32_t flags,
                                    core_backend_window_t **out,
                                    uintptr_t *native);
void nccl_window_deregister(core_backend_comm_t *comm,
                            core_backend_window_t *window);
size_t nccl_window_peer_size(core_backend_window_t *window, int peer);

#endif
