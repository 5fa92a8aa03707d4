/* core — memory another process of this machine maps: a memfd, sealed at
 * its size and mode 0600, that a peer opens through /proc/<pid>/fd/<fd>
 * (same user, same pid namespace) after checking it is the file claimed.
 * The host backend's allocations are such files, and so is the NCCL
 * backend's liveness page (core/nccl/liveness.c). */
#ifndef NCORE_CORE_PEER_MEMFD_H
#define NCORE_CORE_PEER_MEMFD_H

#include <stddef.h>
#include <stdint.h>

#include <ncore/errors.h>

typedef struct core_memfd {
  void *ptr;     /* mapped read-write, shared */
  size_t mapped; /* bytes mapped: the size rounded up to whole pages */
  int fd;        /* the memfd (close-on-exec) */
  uint64_t ino;  /* its inode, which a peer checks */
} core_memfd_t;

/* Creates a memfd named name of at least size bytes (whole pages, at
 * least one), mode 0600, sealed against growing and shrinking, and maps it
 * into *out. Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (size too large
 * to round up to whole pages) or NCORE_ERR_SYSTEM (with the reason, size
 * named), and nothing made. */
ncore_status_t core_memfd_create(const char *name, size_t size,
                                 core_memfd_t *out);
/* Unmaps and closes what core_memfd_create made (no-op on a zeroed one). */
void core_memfd_close(core_memfd_t *m);
/* Maps [offset, offset + size) of process pid's memfd fd (offset whole
 * pages), read-only or read-write; NULL on failure, or when the file is not
 * the inode ino, is smaller than offset + size, or is not sealed against
 * shrinking (a peer's claim is checked, never trusted). Unmap with munmap
 * (size bytes). */
void *core_memfd_map_peer(int64_t pid, int fd, uint64_t ino, uint64_t offset,
                          size_t size, int writable);

#endif
