/* core/host — peer liveness through open-file-description locks: each rank
 * write-locks byte `rank` of the segment file; the kernel drops the lock when
 * the process dies (even while it is a zombie), so an unlocked byte means a
 * dead rank. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include "../error.h"
#include "host.h"

ncore_status_t host_liveness_take(host_comm_t *c) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = c->rank;
  fl.l_len = 1;
  if (fcntl(c->fd, F_OFD_SETLK, &fl) != 0)
    return core_error(NCORE_ERR_SYSTEM, "liveness lock of rank %d: %s", c->rank,
                      strerror(errno));
  return NCORE_OK;
}

/* 1 if rank's process still holds its lock. */
static int host_peer_alive(host_comm_t *c, int rank) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = rank;
  fl.l_len = 1;
  if (fcntl(c->fd, F_OFD_GETLK, &fl) != 0) return 1;  /* cannot tell: assume alive */
  return fl.l_type != F_UNLCK;
}

int host_peer_died(host_comm_t *c, int rank) {
  host_rank_slot_t *s = host_rank_slot(c, rank);
  return atomic_load(&s->joined) && !atomic_load(&s->left) &&
         atomic_load(&s->pid) != 0 && !host_peer_alive(c, rank);
}
