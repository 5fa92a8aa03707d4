/* core/host — peer liveness through open-file-description locks: each rank
 * opens its own description of the segment file and write-locks byte `rank`
 * of it; the kernel drops the lock when the last reference to that
 * description goes, which is when the process dies (even while a zombie), so
 * an unlocked byte means a dead rank.
 *
 * That holds only while nobody else references the description. The segment
 * mapping references the file it was mapped from, so the lock lives on a
 * description of its own (opened through /proc/self/fd) that nothing maps;
 * and fork() would give a child a reference (a data-loader worker outliving
 * its rank would hide the rank's death), so an atfork handler closes every
 * lock in the child. The child's copy of a communicator is then inert. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "liveness.h"

#include "../error.h"

/* This process's communicators holding a lock (for the fork handler). */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static host_comm_t *live_comms;
static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;

static void before_fork(void) { pthread_mutex_lock(&live_lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&live_lock); }
/* In the child: let go of every lock and mark the copies inert. */
static void after_fork_child(void) {
  for (host_comm_t *c = live_comms; c; c = c->next_live) {
    atomic_store(&c->forked, 1);
    if (c->lock_fd >= 0) close(c->lock_fd);
    c->lock_fd = -1;
    /* Nor keep rank 0's rendezvous name bound after its parent left. */
    if (c->rendezvous_fd >= 0) close(c->rendezvous_fd);
    c->rendezvous_fd = -1;
  }
  live_comms = NULL;
  pthread_mutex_unlock(&live_lock);
}
static void register_fork_handler(void) {
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

ncore_status_t host_liveness_take(host_comm_t *c, int segment_fd) {
  pthread_once(&fork_handler_once, register_fork_handler);
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", segment_fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return core_error(NCORE_ERR_SYSTEM, "reopening the segment (%s): %s", path,
                      strerror(errno));
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = c->rank;
  fl.l_len = 1;
  if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
    int e = errno;
    close(fd);
    return core_error(NCORE_ERR_SYSTEM, "liveness lock of rank %d: %s", c->rank,
                      strerror(e));
  }
  pthread_mutex_lock(&live_lock);
  c->lock_fd = fd;
  c->next_live = live_comms;
  live_comms = c;
  pthread_mutex_unlock(&live_lock);
  return NCORE_OK;
}

void host_liveness_drop(host_comm_t *c) {
  pthread_mutex_lock(&live_lock);
  for (host_comm_t **at = &live_comms; *at; at = &(*at)->next_live)
    if (*at == c) {
      *at = c->next_live;
      break;
    }
  if (c->lock_fd >= 0) close(c->lock_fd);
  c->lock_fd = -1;
  pthread_mutex_unlock(&live_lock);
}

/* 1 if rank's process still holds its lock. */
static int host_peer_alive(host_comm_t *c, int rank) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = rank;
  fl.l_len = 1;
  if (fcntl(c->lock_fd, F_OFD_GETLK, &fl) != 0) return 1;  /* cannot tell: assume alive */
  return fl.l_type != F_UNLCK;
}

int host_peer_died(host_comm_t *c, int rank) {
  host_rank_slot_t *s = host_rank_slot(c, rank);
  if (!atomic_load(&s->joined) || atomic_load(&s->pid) == 0) return 0;
  if (host_peer_alive(c, rank)) return 0;
  /* `left` is read only after the lock was seen gone: a rank that leaves
   * marks it before it lets go of its lock (host_comm_destroy), so now it
   * tells a departure from a death. Read first, it could hold its value
   * from just before the rank left, and a polite departure passed for a
   * death (REMOTE on a peer that looked at that moment). */
  return !atomic_load(&s->left);
}
