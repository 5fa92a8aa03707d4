/* core/host — the shared segment of a communicator: layout, creation by rank
 * 0, joining by the others, unlinking once everyone is in. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "../error.h"
#include "host.h"

/* Rounds n up to a cache line so that parts never share one. */
static size_t align_line(size_t n) {
  return (n + HOST_CACHE_LINE - 1) & ~(size_t)(HOST_CACHE_LINE - 1);
}

/* Computes where each part of a segment for nranks ranks lives. */
void host_segment_layout(int nranks, host_layout_t *out) {
  size_t n = (size_t)nranks;
  size_t at = align_line(sizeof(host_segment_header_t));
  out->ranks = at;
  at += align_line(n * sizeof(host_rank_slot_t));
  out->rings = at;
  at += align_line(n * n * sizeof(host_ring_t));
  out->signals = at;
  at += n * n * sizeof(host_counter_t);
  out->descs = at;
  at += align_line(n * sizeof(host_coll_desc_t)) * 1;
  at = (at + 4095) & ~(size_t)4095;
  out->put_rings = at;
  at += align_line(n * n * sizeof(host_ring_t));
  at = (at + 4095) & ~(size_t)4095;
  out->ring_data = at;
  at += n * n * HOST_RING_BYTES;
  out->put_ring_data = at;
  at += n * n * HOST_RING_BYTES;
  out->stages = at;
  at += n * HOST_STAGE_BYTES;
  out->total = at;
}

host_rank_slot_t *host_rank_slot(host_comm_t *c, int rank) {
  return (host_rank_slot_t *)(c->base + c->layout.ranks) + rank;
}
host_ring_t *host_ring_ctl(host_comm_t *c, int src, int dst) {
  return (host_ring_t *)(c->base + c->layout.rings) + (size_t)src * c->nranks + dst;
}
char *host_ring_bytes(host_comm_t *c, int src, int dst) {
  return c->base + c->layout.ring_data +
         ((size_t)src * c->nranks + dst) * HOST_RING_BYTES;
}
host_ring_t *host_put_ring_ctl(host_comm_t *c, int src, int dst) {
  return (host_ring_t *)(c->base + c->layout.put_rings) + (size_t)src * c->nranks + dst;
}
char *host_put_ring_bytes(host_comm_t *c, int src, int dst) {
  return c->base + c->layout.put_ring_data +
         ((size_t)src * c->nranks + dst) * HOST_RING_BYTES;
}
_Atomic uint64_t *host_signal_word(host_comm_t *c, int receiver, int sender) {
  host_counter_t *s = (host_counter_t *)(c->base + c->layout.signals);
  return &s[(size_t)receiver * c->nranks + sender].value;
}
host_coll_desc_t *host_coll_desc(host_comm_t *c, int rank) {
  return (host_coll_desc_t *)(c->base + c->layout.descs) + rank;
}
char *host_stage(host_comm_t *c, int rank) {
  return c->base + c->layout.stages + (size_t)rank * HOST_STAGE_BYTES;
}

/* The /dev/shm name of the segment with this token. */
static void segment_name(uint64_t token, char *out, size_t n) {
  snprintf(out, n, "/ncore-%016llx", (unsigned long long)token);
}

/* Rank 0: creates and sizes the segment. */
static ncore_status_t create_segment(const char *name, host_comm_t *c) {
  int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return core_error(NCORE_ERR_SYSTEM, "shm_open(%s): %s", name, strerror(errno));
  if (ftruncate(fd, (off_t)c->layout.total) != 0) {
    int e = errno;
    close(fd);
    shm_unlink(name);
    return core_error(NCORE_ERR_SYSTEM, "ftruncate(%s, %zu): %s", name,
                      c->layout.total, strerror(e));
  }
  c->fd = fd;
  return NCORE_OK;
}

/* Other ranks: opens the segment once rank 0 made it, or times out. */
static ncore_status_t open_segment(const char *name, host_comm_t *c) {
  uint64_t start = host_now_ns();
  for (;;) {
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd >= 0) {
      struct stat st;
      if (fstat(fd, &st) == 0 && (size_t)st.st_size >= c->layout.total) {
        c->fd = fd;
        return NCORE_OK;
      }
      if (fstat(fd, &st) == 0 && st.st_size > 0 &&
          (size_t)st.st_size != c->layout.total) {
        close(fd);
        return core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "nranks: %d differs from the other ranks'", c->nranks);
      }
      close(fd);
    } else if (errno != ENOENT) {
      return core_error(NCORE_ERR_SYSTEM, "shm_open(%s): %s", name, strerror(errno));
    }
    if (c->timeout_ms >= 0 &&
        host_now_ns() - start > (uint64_t)c->timeout_ms * 1000000u)
      return core_error(NCORE_ERR_TIMEOUT,
                        "rank 0 did not create the communicator within %lld ms",
                        (long long)c->timeout_ms);
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

/* Waits until all nranks registered (or a timeout / a dead joiner). */
static ncore_status_t wait_all_joined(host_comm_t *c) {
  host_segment_header_t *h = (host_segment_header_t *)c->base;
  host_waiter_t w;
  host_waiter_init(&w);
  while (atomic_load_explicit(&h->joined_count, memory_order_acquire) <
         (uint32_t)c->nranks) {
    ncore_status_t s = host_waiter_pause(&w, c, "all ranks joining");
    if (s != NCORE_OK) return s;
  }
  return NCORE_OK;
}

ncore_status_t host_segment_join(host_comm_t **out, uint64_t token, int nranks,
                                 int rank, int64_t timeout_ms) {
  host_comm_t *c = calloc(1, sizeof *c);
  if (!c) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  c->rank = rank;
  c->nranks = nranks;
  c->token = token;
  c->timeout_ms = timeout_ms;
  c->fd = -1;
  host_segment_layout(nranks, &c->layout);
  c->signals_consumed = calloc((size_t)nranks, sizeof(uint64_t));
  c->send_owner = calloc((size_t)nranks, sizeof(void *));
  c->recv_owner = calloc((size_t)nranks, sizeof(void *));
  char name[64];
  segment_name(token, name, sizeof name);
  ncore_status_t s = rank == 0 ? create_segment(name, c) : open_segment(name, c);
  if (s != NCORE_OK) goto fail;
  c->base = mmap(NULL, c->layout.total, PROT_READ | PROT_WRITE, MAP_SHARED,
                 c->fd, 0);
  if (c->base == MAP_FAILED) {
    c->base = NULL;
    s = core_error(NCORE_ERR_SYSTEM, "mmap of %zu bytes: %s", c->layout.total,
                   strerror(errno));
    goto fail;
  }
  host_segment_header_t *h = (host_segment_header_t *)c->base;
  if (rank == 0) {
    memcpy(h->magic, HOST_MAGIC, 8);
    h->nranks = nranks;
    atomic_store_explicit(&h->ready, 1, memory_order_release);
  } else {
    host_waiter_t w;
    host_waiter_init(&w);
    while (!atomic_load_explicit(&h->ready, memory_order_acquire)) {
      if (c->timeout_ms >= 0 &&
          host_now_ns() - w.start_ns > (uint64_t)c->timeout_ms * 1000000u) {
        s = core_error(NCORE_ERR_TIMEOUT, "rank 0 did not initialize in time");
        goto fail;
      }
      sched_yield();
    }
    if (h->nranks != nranks) {
      s = core_error(NCORE_ERR_INVALID_ARGUMENT,
                     "nranks: %d differs from rank 0's %d", nranks, h->nranks);
      goto fail;
    }
  }
  host_rank_slot_t *me = host_rank_slot(c, rank);
  if (atomic_exchange(&me->joined, 1)) {
    s = core_error(NCORE_ERR_INVALID_ARGUMENT, "rank: %d joined twice", rank);
    goto fail;
  }
  s = host_liveness_take(c);
  if (s != NCORE_OK) goto fail;
  atomic_store(&me->pid, (int64_t)getpid());
  atomic_fetch_add_explicit(&h->joined_count, 1, memory_order_acq_rel);
  s = wait_all_joined(c);
  if (s == NCORE_ERR_TIMEOUT) atomic_store(&me->join_timed_out, 1);
  if (rank == 0) shm_unlink(name);  /* everyone has it open: no leak */
  if (s != NCORE_OK) goto fail;
  *out = c;
  return NCORE_OK;
fail:
  if (rank == 0 && c->fd >= 0) shm_unlink(name);
  host_segment_leave(c);
  return s;
}

void host_segment_leave(host_comm_t *c) {
  if (!c) return;
  if (c->base) munmap(c->base, c->layout.total);
  if (c->fd >= 0) close(c->fd);  /* drops the liveness lock */
  free(c->signals_consumed);
  free(c->send_owner);
  free(c->recv_owner);
  free(c);
}
