/* core — memory another process of this machine maps (peer_memfd.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "peer_memfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

#define PAGE 4096u

ncore_status_t core_memfd_create(const char *name, size_t size,
                                 core_memfd_t *out) {
  memset(out, 0, sizeof *out);
  out->fd = -1;
  /* Callers bound size far below this; rounding up must never wrap. */
  if (size > SIZE_MAX - (PAGE - 1))
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "size: %zu bytes is too large",
                      size);
  size_t mapped = (size + PAGE - 1) & ~(size_t)(PAGE - 1);
  if (!mapped) mapped = PAGE;
  int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return core_error(NCORE_ERR_SYSTEM, "memfd_create: %s", strerror(errno));
  /* Sealed at its size: a mapping past a file's end would be SIGBUS. Mode
   * 0600: a memfd is born 0777, and nobody but this user (and root) has any
   * business opening it (docs/reliability.md, the trust model). */
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
  out->ptr = p;
  out->mapped = mapped;
  out->fd = fd;
  out->ino = (uint64_t)st.st_ino;
  return NCORE_OK;
}

void core_memfd_close(core_memfd_t *m) {
  if (m->ptr != NULL) munmap(m->ptr, m->mapped);
  if (m->fd >= 0 && m->ptr != NULL) close(m->fd);
  m->ptr = NULL;
  m->fd = -1;
}

void *core_memfd_map_peer(int64_t pid, int fd, uint64_t ino, uint64_t offset,
                          size_t size, int writable) {
  if (size == 0 || offset % PAGE != 0 || offset > UINT64_MAX - size)
    return NULL;
  char path[64];
  snprintf(path, sizeof path, "/proc/%lld/fd/%d", (long long)pid, fd);
  int f = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (f < 0) return NULL;
  /* The file must be the one the peer names (its inode), as large as
   * claimed (touching a mapping past a file's end is SIGBUS) and sealed
   * against shrinking (so it stays so). */
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
