/* core/host — ncore_mem_alloc memory: each allocation is its own memfd,
 * mapped shared, so that windows and peers can map it too (peers open
 * /proc/<pid>/fd/<fd>). A process-wide registry finds allocations by pointer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "memory.h"

#include "../error.h"
#include "layout.h"

typedef struct allocation {
  char *ptr;
  size_t size, mapped;
  int fd;
  uint64_t ino;
  struct allocation *next;
} allocation_t;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static allocation_t *registry;

/* mem_alloc: a fresh memfd of `size` bytes, mapped read-write shared. */
ncore_status_t host_mem_alloc(void **out, size_t size) {
  /* The core bounds size far below this; rounding up must never wrap. */
  if (size > SIZE_MAX - 4095)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "size: %zu bytes is too large",
                      size);
  size_t mapped = (size + 4095) & ~(size_t)4095;
  if (!mapped) mapped = 4096;
  int fd = memfd_create("ncore-mem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return core_error(NCORE_ERR_SYSTEM, "memfd_create: %s", strerror(errno));
  /* Sealed at its size: peers map it (windows, the one-copy send path),
   * and a mapping past a file's end would be SIGBUS. Mode 0600, as the
   * segments are: a memfd is born 0777, and nobody but this user (and root)
   * has any business opening it (docs/reliability.md, the trust model). */
  struct stat st;
  if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)mapped) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
      fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return core_error(NCORE_ERR_SYSTEM, "size: %zu bytes: %s", size, strerror(e));
  }
  void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    close(fd);
    return core_error(NCORE_ERR_SYSTEM, "size: %zu bytes: %s", size, strerror(e));
  }
  allocation_t *a = malloc(sizeof *a);
  if (!a) {
    munmap(p, mapped);
    close(fd);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  a->ptr = p;
  a->size = size;
  a->mapped = mapped;
  a->fd = fd;
  a->ino = (uint64_t)st.st_ino;
  pthread_mutex_lock(&registry_lock);
  a->next = registry;
  registry = a;
  pthread_mutex_unlock(&registry_lock);
  *out = p;
  return NCORE_OK;
}

/* mem_free: only pointers that mem_alloc returned and that are still live. */
ncore_status_t host_mem_free(void *ptr) {
  pthread_mutex_lock(&registry_lock);
  allocation_t **at = &registry;
  while (*at && (*at)->ptr != ptr) at = &(*at)->next;
  allocation_t *a = *at;
  if (a) *at = a->next;
  pthread_mutex_unlock(&registry_lock);
  if (!a)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "ptr: not allocated by ncore_mem_alloc (or already freed)");
  munmap(a->ptr, a->mapped);
  /* Freed means freed now, for every process: a peer's mapping (a window,
   * a one-copy receive's cache) would otherwise keep the pages resident
   * until it goes (issue 27). The file keeps its size, so such a mapping
   * reads zeros, never SIGBUS. */
  fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)a->mapped);
  close(a->fd);
  free(a);
  return NCORE_OK;
}

int host_memory_lookup(const void *ptr, host_allocation_t *out) {
  int found = -1;
  uintptr_t p = (uintptr_t)ptr;
  pthread_mutex_lock(&registry_lock);
  for (allocation_t *a = registry; a; a = a->next) {
    uintptr_t start = (uintptr_t)a->ptr;
    if (p >= start && p - start < a->mapped) {
      out->fd = a->fd;
      out->offset = (size_t)(p - start);
      out->mapped = a->mapped;
      out->ino = a->ino;
      found = 0;
      break;
    }
  }
  pthread_mutex_unlock(&registry_lock);
  return found;
}

void *host_memory_map_peer(int64_t pid, int fd, uint64_t ino, uint64_t offset,
                           size_t size, int writable) {
  if (size == 0 || offset % HOST_PAGE != 0 || offset > UINT64_MAX - size)
    return NULL;
  char path[64];
  snprintf(path, sizeof path, "/proc/%lld/fd/%d", (long long)pid, fd);
  int f = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (f < 0) return NULL;
  /* The file must be the allocation the peer names (its inode), as large
   * as claimed (touching a mapping past a file's end is SIGBUS) and sealed
   * against shrinking (so it stays so): an ncore_mem_alloc memfd. */
  struct stat st;
  int seals = fcntl(f, F_GET_SEALS);
  void *p = MAP_FAILED;
  if (fstat(f, &st) == 0 && (uint64_t)st.st_ino == ino && st.st_size >= 0 &&
      (uint64_t)st.st_size >= offset + size && seals >= 0 &&
      (seals & F_SEAL_SHRINK))
    p = mmap(NULL, size, writable ? PROT_READ | PROT_WRITE : PROT_READ,
             MAP_SHARED, f, (off_t)offset);
  close(f);
  return p == MAP_FAILED ? NULL : p;
}
