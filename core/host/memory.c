/* core/host — ncore_mem_alloc memory: each allocation is its own memfd,
 * mapped shared, so that windows and peers can map it too (peers open
 * /proc/<pid>/fd/<fd>). A process-wide registry finds allocations by pointer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "memory.h"

#include "../error.h"
#include "../peer_memfd.h"

typedef struct allocation {
  core_memfd_t memfd;
  struct allocation *next;
} allocation_t;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static allocation_t *registry;

/* mem_alloc: a fresh memfd of `size` bytes, mapped read-write shared
 * (sealed at its size: peers map it, windows and the one-copy send path). */
ncore_status_t host_mem_alloc(void **out, size_t size) {
  core_memfd_t m;
  ncore_status_t status = core_memfd_create("ncore-mem", size, &m);
  if (status != NCORE_OK) return status;
  allocation_t *a = malloc(sizeof *a);
  if (!a) {
    core_memfd_close(&m);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  a->memfd = m;
  pthread_mutex_lock(&registry_lock);
  a->next = registry;
  registry = a;
  pthread_mutex_unlock(&registry_lock);
  *out = m.ptr;
  return NCORE_OK;
}

/* mem_free: only pointers that mem_alloc returned and that are still live. */
ncore_status_t host_mem_free(void *ptr) {
  pthread_mutex_lock(&registry_lock);
  allocation_t **at = &registry;
  while (*at && (*at)->memfd.ptr != ptr) at = &(*at)->next;
  allocation_t *a = *at;
  if (a) *at = a->next;
  pthread_mutex_unlock(&registry_lock);
  if (!a)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "ptr: not allocated by ncore_mem_alloc (or already freed)");
  /* Freed means freed now, for every process: a peer's mapping (a window,
   * a one-copy receive's cache) would otherwise keep the pages resident
   * until it goes. The file keeps its size, so such a mapping
   * reads zeros, never SIGBUS. */
  fallocate(a->memfd.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
            (off_t)a->memfd.mapped);
  core_memfd_close(&a->memfd);
  free(a);
  return NCORE_OK;
}

int host_memory_lookup(const void *ptr, host_allocation_t *out) {
  int found = -1;
  uintptr_t p = (uintptr_t)ptr;
  pthread_mutex_lock(&registry_lock);
  for (allocation_t *a = registry; a; a = a->next) {
    const core_memfd_t *m = &a->memfd;
    uintptr_t start = (uintptr_t)m->ptr;
    if (p >= start && p - start < m->mapped) {
      out->fd = m->fd;
      out->offset = (size_t)(p - start);
      out->mapped = m->mapped;
      out->ino = m->ino;
      found = 0;
      break;
    }
  }
  pthread_mutex_unlock(&registry_lock);
  return found;
}
