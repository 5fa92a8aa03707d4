/* core/host — the shared segment of a communicator: its creation by rank
 * 0 as a memfd (no name anywhere: nothing for another user to open or
 * pre-create, nothing left behind when a rank dies), handing it to the other
 * ranks (rendezvous.c), and waiting until every rank joined. Where its
 * parts lie is layout.c's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "segment.h"

#include "../error.h"
#include "../error_clear.h"
#include "failure.h"
#include "keyed_hash.h"
#include "../random_bytes.h"
#include "liveness.h"
#include "p2p_direct.h"
#include "registered_buffer.h"
#include "rendezvous.h"
#include "wait.h"

ncore_status_t host_comm_new(host_comm_t **out, core_comm_state_t *state,
                             int rank, int nranks, int64_t timeout_ms) {
  host_layout_t layout;
  ncore_status_t s = host_segment_layout(nranks, &layout);
  if (s != NCORE_OK) return s;
  host_comm_t *c = calloc(1, sizeof *c);
  if (c) {
    c->signals_consumed = calloc((size_t)nranks, sizeof(uint64_t));
    c->send_owner = calloc((size_t)nranks, sizeof(void *));
    c->recv_owner = calloc((size_t)nranks, sizeof(void *));
    c->offers_made = calloc((size_t)nranks, sizeof(uint64_t));
    c->tails_seen = calloc((size_t)nranks, sizeof(uint64_t));
    c->peer_maps = calloc((size_t)nranks * HOST_PEER_MAPS, sizeof(host_peer_map_t));
  }
  if (!c || !c->signals_consumed || !c->send_owner || !c->recv_owner ||
      !c->offers_made || !c->tails_seen || !c->peer_maps) {
    if (c) {
      free(c->signals_consumed);
      free(c->send_owner);
      free(c->recv_owner);
      free(c->offers_made);
      free(c->tails_seen);
      free(c->peer_maps);
    }
    free(c);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  c->state = state;
  c->rank = rank;
  c->nranks = nranks;
  c->timeout_ms = timeout_ms;
  cpu_set_t cpus;
  c->oversubscribed = sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
                      nranks > CPU_COUNT(&cpus);
  c->lock_fd = -1;
  c->rendezvous_fd = -1;
  c->layout = layout;
  pthread_mutex_init(&c->windows_lock, NULL);
  pthread_mutex_init(&c->registrations_lock, NULL);
  *out = c;
  return NCORE_OK;
}

/* Rank 0: a sealed memfd of the segment's size, mode 0600, with the header
 * written. The seals stop any process (a buggy peer) from shrinking it under
 * the others' mappings. */
static ncore_status_t create_segment(host_comm_t *c, int *fd_out) {
  int fd = memfd_create("ncore-segment", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return core_error(NCORE_ERR_SYSTEM, "memfd_create: %s", strerror(errno));
  if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)c->layout.total) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    int e = errno;
    close(fd);
    return core_error(NCORE_ERR_SYSTEM, "a shared segment of %zu bytes: %s",
                      c->layout.total, strerror(e));
  }
  *fd_out = fd;
  return NCORE_OK;
}

/* Maps the segment file (which the mapping then keeps open). */
static ncore_status_t map_segment(host_comm_t *c, int fd) {
  void *p = mmap(NULL, c->layout.total, PROT_READ | PROT_WRITE, MAP_SHARED,
                 fd, 0);
  if (p == MAP_FAILED)
    return core_error(NCORE_ERR_SYSTEM, "mmap of %zu bytes: %s",
                      c->layout.total, strerror(errno));
  c->base = p;
  return NCORE_OK;
}

/* A joiner's checks of what rank 0 handed over: our own, private file of
 * exactly this nranks' size, with rank 0's header. */
static ncore_status_t check_segment(host_comm_t *c, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return core_error(NCORE_ERR_SYSTEM, "fstat of the segment: %s",
                      strerror(errno));
  if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
    return core_error(NCORE_ERR_SYSTEM,
                      "the shared segment rank 0 handed over is not a private "
                      "file of this user (owner %u, mode %o)",
                      (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
  if ((size_t)st.st_size != c->layout.total)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "nranks: %d differs from rank 0's (its segment has %lld "
                      "bytes, %d ranks need %zu)", c->nranks,
                      (long long)st.st_size, c->nranks, c->layout.total);
  return NCORE_OK;
}

ncore_status_t host_segment_attach(host_comm_t *c, int fd) {
  ncore_status_t s = check_segment(c, fd);
  if (s == NCORE_OK) s = map_segment(c, fd);
  if (s != NCORE_OK) return s;
  host_segment_header_t *h = host_header(c);
  if (memcmp(h->magic, HOST_MAGIC, 8) != 0 || h->nranks != c->nranks)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "nranks: %d differs from rank 0's %d", c->nranks, h->nranks);
  return NCORE_OK;
}

/* Waits until all nranks registered (or a timeout / a dead joiner); rank 0
 * hands the segment to each joiner meanwhile. */
static ncore_status_t wait_all_joined(host_comm_t *c, int listen_fd,
                                      int segment_fd) {
  host_segment_header_t *h = host_header(c);
  host_waiter_t w;
  host_waiter_init(&w);
  uint32_t seen = 0;
  for (;;) {
    if (listen_fd >= 0) host_rendezvous_serve(c, listen_fd, segment_fd);
    uint32_t joined = atomic_load_explicit(&h->joined_count, memory_order_acquire);
    if (joined >= (uint32_t)c->nranks) {
      /* Claims already queued are second claimants: refused before any
       * rank's first call can complete (that call then fails). */
      if (listen_fd >= 0) host_rendezvous_serve(c, listen_fd, -1);
      return NCORE_OK;
    }
    if (joined != seen) {
      seen = joined;
      host_waiter_init(&w);  /* a rank joining is progress */
    }
    ncore_status_t s = host_waiter_pause(&w, c, "all ranks joining", 0);
    /* Once everyone joined, the communicator exists for the others: a
     * failure after that (their first call's) is its first call's to see. */
    if (s != NCORE_OK &&
        atomic_load_explicit(&h->joined_count, memory_order_acquire) >=
            (uint32_t)c->nranks) {
      core_error_clear();
      return NCORE_OK;
    }
    if (s != NCORE_OK) return s;
  }
}

/* Rank 0 finding its rendezvous name taken: a communicator of this id
 * exists (another job's, or a squatter's). Claiming its rank 0 makes that
 * communicator fail too (its id is used twice) and tells us so; any other
 * outcome is the taken name's error, with why. */
static ncore_status_t rank_0_of_a_taken_name(uint64_t token, int nranks,
                                             int64_t timeout_ms) {
  char taken[200];
  snprintf(taken, sizeof taken, "%s", ncore_last_error_message());
  ncore_status_t s = host_rendezvous_claim_taken(token, nranks, timeout_ms);
  if (s == NCORE_ERR_INVALID_USAGE || s == NCORE_ERR_INVALID_ARGUMENT) return s;
  char why[200];
  snprintf(why, sizeof why, "%s", s == NCORE_OK ? "" : ncore_last_error_message());
  /* Without "ncore_comm_init_rank: " twice. */
  const char *t = strstr(taken, "id: "), *w = strstr(why, ": ");
  return core_error(NCORE_ERR_SYSTEM, "%s%s%s", t ? t : taken, w ? ";" : "",
                    w ? w + 1 : "");
}

ncore_status_t host_segment_join(host_comm_t **out, core_comm_state_t *state,
                                 uint64_t token, int nranks, int rank,
                                 int64_t timeout_ms) {
  host_comm_t *c = NULL;
  ncore_status_t s = host_comm_new(&c, state, rank, nranks, timeout_ms);
  if (s != NCORE_OK) return s;
  int fd = -1, listen_fd = -1;
  if (rank == 0) {
    c->claim_pids = calloc((size_t)nranks, sizeof *c->claim_pids);
    if (!c->claim_pids) s = core_error(NCORE_ERR_SYSTEM, "out of memory");
    else c->claim_pids[0] = (long long)getpid();
    if (s == NCORE_OK) s = create_segment(c, &fd);
    if (s == NCORE_OK) s = map_segment(c, fd);
    if (s == NCORE_OK) {
      host_segment_header_t *h = host_header(c);
      memcpy(h->magic, HOST_MAGIC, 8);
      h->nranks = nranks;
      s = core_random_bytes(h->child_key, sizeof h->child_key);
    }
    /* Listening last: nobody can get the segment before it is ready. */
    int name_taken = 0;
    if (s == NCORE_OK) s = host_rendezvous_listen(token, &listen_fd, &name_taken);
    if (name_taken) s = rank_0_of_a_taken_name(token, nranks, timeout_ms);
  } else {
    s = host_rendezvous_fetch(token, rank, nranks, timeout_ms, &fd);
    if (s == NCORE_OK) s = host_segment_attach(c, fd);
  }
  struct stat st;
  if (s == NCORE_OK && fstat(fd, &st) != 0)
    s = core_error(NCORE_ERR_SYSTEM, "fstat of the segment: %s", strerror(errno));
  if (s == NCORE_OK) {
    c->segment_ino = (uint64_t)st.st_ino;
    /* Message tags' mask (p2p.c), secret as the children's key is. */
    c->ring_key = host_keyed_hash(host_header(c)->child_key, UINT64_MAX, UINT64_MAX);
    host_rank_slot_t *me = host_rank_slot(c, rank);
    if (atomic_exchange(&me->joined, 1))
      s = core_error(NCORE_ERR_INVALID_ARGUMENT, "rank: %d joined twice", rank);
  }
  if (s == NCORE_OK) s = host_liveness_take(c, fd);
  if (s == NCORE_OK) {
    atomic_store(&host_rank_slot(c, rank)->pid, (int64_t)getpid());
    atomic_fetch_add_explicit(&host_header(c)->joined_count, 1,
                              memory_order_acq_rel);
    s = wait_all_joined(c, listen_fd, fd);
    /* The ranks that did join then fail the same way, not by a death. */
    if (s != NCORE_OK) host_comm_fail_current(c, s);
  }
  /* Rank 0 keeps listening while the communicator lives (rendezvous.c). */
  c->rendezvous_fd = listen_fd;
  if (fd >= 0) close(fd);  /* the mapping and the lock keep the file */
  if (s != NCORE_OK) {
    host_segment_leave(c);
    return s;
  }
  *out = c;
  return NCORE_OK;
}

void host_segment_leave(host_comm_t *c) {
  if (!c) return;
  host_liveness_drop(c);
  if (c->rendezvous_fd >= 0) close(c->rendezvous_fd);
  free(c->claim_pids);
  if (c->base) munmap(c->base, c->layout.total);
  pthread_mutex_destroy(&c->windows_lock);
  host_registrations_free(c);
  pthread_mutex_destroy(&c->registrations_lock);
  free(c->signals_consumed);
  free(c->send_owner);
  free(c->recv_owner);
  free(c->offers_made);
  free(c->tails_seen);
  host_direct_maps_free(c);
  free(c);
}
