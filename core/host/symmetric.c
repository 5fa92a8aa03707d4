/* core/host — symmetric memory: a collective allocation, each rank's part its
 * own ncore_mem_alloc memfd, every part mapped by every rank; put/get are
 * memcpy through the peer mapping. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "symmetric.h"

#include "../error.h"
#include "comm.h"
#include "exchange.h"
#include "memory.h"

typedef struct sym_part {
  uint64_t size, total, ino;
  int64_t pid;
  int32_t fd, pad;
} sym_part_t;

/* The host backend's core_backend_symmetric_t. */
typedef struct core_backend_symmetric {
  int nranks, rank;
  size_t size, total;
  char **parts;  /* parts[rank] is our own allocation */
} host_symmetric_t;

ncore_status_t host_symmetric_alloc(core_backend_comm_t *comm, size_t size,
                                    core_backend_symmetric_t **out) {
  host_comm_t *c = comm;
  void *mine;
  ncore_status_t s = host_mem_alloc(&mine, size);
  if (s != NCORE_OK) return s;
  sym_part_t info = {size, 0, 0, getpid(), 0, 0};
  host_allocation_t a;
  host_memory_lookup(mine, &a);
  info.fd = a.fd;
  info.total = a.mapped;
  info.ino = a.ino;
  sym_part_t *all = calloc((size_t)c->nranks, sizeof *all);
  host_symmetric_t *m = calloc(1, sizeof *m);
  if (m) m->parts = calloc((size_t)c->nranks, sizeof(char *));
  if (!all || !m || !m->parts) {
    free(all);
    if (m) free(m->parts);
    free(m);
    host_mem_free(mine);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  m->nranks = c->nranks;
  m->rank = c->rank;
  m->size = size;
  m->total = a.mapped;
  s = host_allgather_bytes(c, &info, all, sizeof info);
  /* Every rank sees the same sizes, so all of them fail alike. */
  int sizes_agree = 1;
  for (int r = 1; r < c->nranks && s == NCORE_OK; r++)
    if (all[r].size != all[0].size) sizes_agree = 0;
  for (int r = 0; r < c->nranks && s == NCORE_OK; r++)
    if (all[r].size != size)
      s = core_error(NCORE_ERR_INVALID_ARGUMENT,
                     "size: %zu differs from rank %d's %llu (symmetric memory "
                     "has one size on every rank)",
                     size, r, (unsigned long long)all[r].size);
  for (int r = 0; r < c->nranks && s == NCORE_OK; r++) {
    if (r == c->rank) {
      m->parts[r] = mine;
      continue;
    }
    /* Every part is mapped with our own rounded size (equal sizes round
     * alike); map_peer refuses a file smaller than that. */
    m->parts[r] = core_memfd_map_peer(all[r].pid, all[r].fd, all[r].ino, 0,
                                       m->total, 1);
    if (!m->parts[r])
      s = core_error(NCORE_ERR_SYSTEM, "cannot map rank %d's symmetric part", r);
  }
  if (sizes_agree) {
    /* Agree on the outcome before anyone frees its part: a rank that could
     * not map makes everyone fail, and nobody unmaps under a peer. */
    int32_t ok = s == NCORE_OK, *oks = calloc((size_t)c->nranks, sizeof *oks);
    ncore_status_t agreed = oks ? host_allgather_bytes(c, &ok, oks, sizeof ok)
                                : core_error(NCORE_ERR_SYSTEM, "out of memory");
    for (int r = 0; agreed == NCORE_OK && s == NCORE_OK && r < c->nranks; r++)
      if (!oks[r])
        s = core_error(NCORE_ERR_SYSTEM, "rank %d could not map the symmetric parts", r);
    if (s == NCORE_OK) s = agreed;
    free(oks);
  }
  free(all);
  if (s != NCORE_OK) {
    for (int r = 0; r < c->nranks; r++)
      if (r != c->rank && m->parts[r]) munmap(m->parts[r], m->total);
    host_mem_free(mine);
    free(m->parts);
    free(m);
    return s;
  }
  *out = m;
  return NCORE_OK;
}

void host_symmetric_free(core_backend_comm_t *comm,
                         core_backend_symmetric_t *sym) {
  (void)comm;
  host_symmetric_t *m = sym;
  for (int r = 0; r < m->nranks; r++)
    if (r != m->rank && m->parts[r]) munmap(m->parts[r], m->total);
  host_mem_free(m->parts[m->rank]);
  free(m->parts);
  free(m);
}

void *host_symmetric_local_pointer(core_backend_symmetric_t *sym) {
  host_symmetric_t *m = sym;
  return m->parts[m->rank];
}

void *host_symmetric_peer_pointer(core_backend_symmetric_t *sym, int pe) {
  return ((host_symmetric_t *)sym)->parts[pe];
}

ncore_status_t host_symmetric_put(core_backend_comm_t *comm,
                                  core_backend_symmetric_t *sym,
                                  size_t dst_offset, const void *src,
                                  size_t bytes, int pe, ncore_stream_t stream) {
  (void)comm; (void)stream;
  memcpy(((host_symmetric_t *)sym)->parts[pe] + dst_offset, src, bytes);
  return NCORE_OK;
}

ncore_status_t host_symmetric_get(core_backend_comm_t *comm, void *dst,
                                  core_backend_symmetric_t *sym,
                                  size_t src_offset, size_t bytes, int pe,
                                  ncore_stream_t stream) {
  (void)comm; (void)stream;
  memcpy(dst, ((host_symmetric_t *)sym)->parts[pe] + src_offset, bytes);
  return NCORE_OK;
}
