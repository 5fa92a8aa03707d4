/* core/host — windows: a collective registration that tells every rank each
 * part's size and, for parts in ncore_mem_alloc memory, maps them so that
 * peer pointers are real and put_signal is a memcpy. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "window.h"

#include "../error.h"
#include "exchange.h"
#include "failure.h"
#include "memory.h"
#include "put_ring.h"

/* This rank's part [ptr, ptr + size): inside one ncore_mem_alloc
 * allocation (then peers map it), or else memory of this process (peers'
 * puts land in it through the put rings); never beyond either, or a peer's
 * put would write past the caller's memory. */
static ncore_status_t describe_part(void *ptr, size_t size,
                                    host_window_part_t *mine) {
  memset(mine, 0, sizeof *mine);
  mine->size = size;
  mine->pid = getpid();
  host_allocation_t a;
  if (host_memory_lookup(ptr, &a) == 0) {
    if (size > a.mapped - a.offset)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "size: %zu bytes at ptr run past the end of its "
                        "ncore_mem_alloc allocation (%zu bytes from ptr)",
                        size, a.mapped - a.offset);
    mine->shared = 1;
    mine->fd = a.fd;
    mine->offset = a.offset;
    mine->total = a.mapped;
    mine->ino = a.ino;
    return NCORE_OK;
  }
  /* msync checks that every page of the range is mapped (ENOMEM if not). */
  uintptr_t first = (uintptr_t)ptr & ~(uintptr_t)4095;
  uintptr_t end = ((uintptr_t)ptr + size + 4095) & ~(uintptr_t)4095;
  if (msync((void *)first, end - first, MS_ASYNC) != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "size: [ptr, ptr + %zu) is not all memory of this "
                      "process", size);
  return NCORE_OK;
}

int host_window_part_is_sane(const host_window_part_t *p) {
  return !p->shared || (p->offset <= p->total && p->size <= p->total - p->offset);
}

/* The pages of a (sane) shared part, which is all a peer maps of the
 * allocation: the rest of it is not the window's. */
static void part_pages(const host_window_part_t *p, uint64_t *first,
                       size_t *bytes) {
  *first = p->offset & ~(HOST_PAGE - 1);
  uint64_t end = (p->offset + p->size + HOST_PAGE - 1) & ~(HOST_PAGE - 1);
  *bytes = (size_t)(end - *first);
}

/* Unmaps what register mapped of the peers' parts. */
static void unmap_parts(host_window_t *w) {
  for (int r = 0; r < w->nranks; r++)
    if (w->mappings[r]) {
      uint64_t first;
      size_t bytes;
      part_pages(&w->parts[r], &first, &bytes);
      munmap(w->mappings[r], bytes);
      w->mappings[r] = NULL;
    }
}

/* Frees w (unlisted, nothing mapped). */
static void window_free(host_window_t *w) {
  free(w->parts);
  free(w->peer_base);
  free(w->mappings);
  free(w);
}

/* Takes w off c's list of windows. */
static void window_unlist(host_comm_t *c, host_window_t *w) {
  pthread_mutex_lock(&c->windows_lock);
  for (host_window_t **at = &c->windows; *at; at = &(*at)->next)
    if (*at == w) {
      *at = w->next;
      break;
    }
  pthread_mutex_unlock(&c->windows_lock);
}

/* Checks the parts every rank published (w->parts): each fits its
 * allocation, and a COLL_SYMMETRIC window has one size everywhere. */
static ncore_status_t check_parts(host_comm_t *c, host_window_t *w,
                                  size_t size, uint32_t flags) {
  for (int r = 0; r < c->nranks; r++)
    if (!host_window_part_is_sane(&w->parts[r])) {
      ncore_status_t s = core_error(NCORE_ERR_REMOTE,
                                    "rank %d published a window part that "
                                    "does not fit its allocation", r);
      host_comm_fail_current(c, s);
      return s;
    }
  if (flags & NCORE_WINDOW_COLL_SYMMETRIC) {
    for (int r = 0; r < c->nranks; r++)
      if (w->parts[r].size != size)
        return core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "size: %zu differs from rank %d's %llu "
                          "(COLL_SYMMETRIC)",
                          size, r, (unsigned long long)w->parts[r].size);
  }
  return NCORE_OK;
}

/* Maps the peers' shared parts (the pages of each part only); this rank's
 * own part is ptr. A part that cannot be mapped stays unreachable. */
static void map_parts(host_comm_t *c, host_window_t *w, void *ptr) {
  for (int r = 0; r < c->nranks; r++) {
    host_window_part_t *p = &w->parts[r];
    if (r == c->rank) {
      w->peer_base[r] = ptr;
    } else if (p->shared && p->size > 0) {
      uint64_t first;
      size_t bytes;
      part_pages(p, &first, &bytes);
      char *m = core_memfd_map_peer(p->pid, p->fd, p->ino, first, bytes, 1);
      if (m) {
        w->mappings[r] = m;
        w->peer_base[r] = m + (p->offset - first);
      }
    }
  }
}

ncore_status_t host_window_register(core_backend_comm_t *comm, void *ptr,
                                    size_t size, uint32_t flags,
                                    core_backend_window_t **out,
                                    uintptr_t *native) {
  host_comm_t *c = comm;
  if (flags & NCORE_WINDOW_CFT_COUNTED)
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "flags: NCORE_WINDOW_CFT_COUNTED needs NCCL's Compute "
                      "Fabric Transport; the host backend has none (leave "
                      "the flag out, or use the NCCL backend, 2.32+)");
  host_window_part_t mine;
  ncore_status_t s = describe_part(ptr, size, &mine);
  if (s != NCORE_OK) return s;
  host_window_t *w = calloc(1, sizeof *w);
  if (!w) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  w->nranks = c->nranks;
  w->seq = c->window_seq++;
  w->local = ptr;
  w->local_size = size;
  w->parts = calloc((size_t)c->nranks, sizeof *w->parts);
  w->peer_base = calloc((size_t)c->nranks, sizeof(char *));
  w->mappings = calloc((size_t)c->nranks, sizeof(char *));
  if (!w->parts || !w->peer_base || !w->mappings) {
    window_free(w);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  /* Listed before the exchange: a peer that finishes it first may put at
   * once, and we land its puts while we still wait in the exchange. */
  pthread_mutex_lock(&c->windows_lock);
  w->next = c->windows;
  c->windows = w;
  pthread_mutex_unlock(&c->windows_lock);
  s = host_allgather_bytes(c, &mine, w->parts, sizeof mine);
  if (s == NCORE_OK) s = check_parts(c, w, size, flags);
  if (s == NCORE_OK) {
    map_parts(c, w, ptr);
    /* Nobody may return (and maybe exit, closing its memfd) before every
     * rank has opened the parts it maps. */
    s = host_barrier(c);
    if (s != NCORE_OK) unmap_parts(w);
  }
  if (s != NCORE_OK) {
    window_unlist(c, w);
    window_free(w);
    return s;
  }
  *out = w;
  if (native) *native = (uintptr_t)w;
  return NCORE_OK;
}

void host_window_deregister(core_backend_comm_t *comm,
                            core_backend_window_t *window) {
  host_comm_t *c = comm;
  host_window_t *w = window;
  /* Puts already queued for this window land before it goes; the lock
   * waits out a thread landing into it (a wait, while an abort on another
   * thread tears the communicator down). */
  pthread_mutex_lock(&c->windows_lock);
  host_puts_drain_locked(c);
  for (host_window_t **at = &c->windows; *at; at = &(*at)->next)
    if (*at == w) {
      *at = w->next;
      break;
    }
  pthread_mutex_unlock(&c->windows_lock);
  unmap_parts(w);
  window_free(w);
}

size_t host_window_peer_size(core_backend_window_t *window, int peer) {
  return ((host_window_t *)window)->parts[peer].size;
}

ncore_status_t host_window_peer_pointer(core_backend_comm_t *comm,
                                        core_backend_window_t *window, int peer,
                                        size_t offset, void **out) {
  (void)comm;
  host_window_t *w = window;
  *out = w->peer_base[peer] ? w->peer_base[peer] + offset : NULL;
  return NCORE_OK;
}

ncore_status_t host_window_multimem_pointer(core_backend_comm_t *comm,
                                            core_backend_window_t *window,
                                            size_t offset, void **out) {
  (void)comm; (void)window; (void)offset;
  *out = NULL;  /* no multicast memory on the host */
  return NCORE_OK;
}

/* Every rank sees all others' memory directly: lsa == peer. */
ncore_status_t host_window_lsa_pointer(core_backend_comm_t *comm,
                                       core_backend_window_t *window,
                                       int lsa_rank, size_t offset,
                                       void **out) {
  return host_window_peer_pointer(comm, window, lsa_rank, offset, out);
}
