/* core/nccl — is a peer still there? (the NCCL backend's peer liveness)
 *
 * NCCL notices a dead or aborted peer only where a socket connects them
 * (its network and socket transports, and ranks oversubscribed on one GPU).
 * Between GPUs of one machine (NVLink, PCIe: NCCL's P2P and SHM transports)
 * nothing connects the processes once the communicator is set up: a kernel
 * waiting for a peer that died or aborted waits forever, and a wait ended
 * only by ncore's timeout says TIMEOUT where the truth is "rank 3 died".
 *
 * So each rank publishes, in its signal window (the memory every LSA peer
 * already maps, onesided.c), after its nranks signal slots:
 *   - a state word: 0 while the communicator lives, NCCL_PEER_LEFT once the
 *     rank destroyed it politely, anything else once it aborted or failed
 *     (abort fills the slots and the state word with 0x7f bytes);
 *   - its identity: process id, the process's start time, the boot id and
 *     the pid namespace, so that a peer of the same machine and pid
 *     namespace can tell whether that process still exists.
 * A rank whose wait lasts reads its LSA peers' records (one small copy
 * each, on a stream of its own) and /proc/<pid>/stat: a peer that aborted
 * or whose process is gone (or a zombie) makes the wait fail with
 * NCORE_ERR_REMOTE naming the rank. A peer that left politely is not taken
 * for dead (its work with this rank is over). Peers outside the LSA team are
 * NCCL's to report (sockets), and a peer in another pid namespace can be
 * seen aborting but not dying: its death ends in the timeout.
 *
 * A completed stream is checked too (nccl_liveness_check_completed): a
 * peer's abort ends its NCCL kernels early, and they may complete this
 * rank's with what they held. That look happens on every synchronisation,
 * so each rank also keeps its state word in a liveness page of host memory
 * (a memfd; its fd and inode are in the identity), which the LSA peers of
 * the same machine and pid namespace map read-only at setup: a load, not a
 * copy from a GPU. */
#include "liveness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../error.h"
#include "../error_clear.h"
#include "window_pointer.h"

#define NCCL_IDENTITY_MAGIC 0x6e636f72656c6976ull /* "ncoreliv" */

/* FNV-1a of a file's first line: the boot id names the running kernel. */
static uint64_t boot_hash(void) {
  char text[64] = "";
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f != NULL) {
    if (fgets(text, sizeof text, f) == NULL) text[0] = '\0';
    fclose(f);
  }
  uint64_t h = 1469598103934665603ull;
  for (const char *p = text; *p && *p != '\n'; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

/* Field 22 (start time in clock ticks) and field 3 (state) of
 * /proc/<pid>/stat; -1 when the process does not exist. */
static int read_proc_stat(uint64_t pid, uint64_t *start, char *state) {
  char path[64], text[1024];
  snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return -1;
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  /* The command name (field 2) may hold spaces and parentheses: fields
   * are counted from its last ')'. */
  char *p = strrchr(text, ')');
  if (p == NULL || p[1] != ' ') return -1;
  *state = p[2];
  p += 2;
  unsigned long long value = 0;
  for (int field = 3; field <= 22; field++) {
    if (field == 22 && sscanf(p, "%llu", &value) != 1) return -1;
    p = strchr(p, ' ');
    if (p == NULL && field < 22) return -1;
    if (p != NULL) p++;
  }
  *start = value;
  return 0;
}

void nccl_identity_of_self(nccl_identity_t *out) {
  memset(out, 0, sizeof *out);
  char state = 0;
  uint64_t start = 0;
  out->pid = (uint64_t)getpid();
  if (read_proc_stat(out->pid, &start, &state) != 0) return; /* no /proc */
  struct stat ns;
  if (stat("/proc/self/ns/pid", &ns) != 0) return;
  out->start_ticks = start;
  out->boot_hash = boot_hash();
  out->pid_namespace = (uint64_t)ns.st_ino ^ ((uint64_t)ns.st_dev << 32);
  out->magic = NCCL_IDENTITY_MAGIC;
}

/* 1 when peer names a process of this machine and pid namespace. */
static int same_namespace(const nccl_identity_t *self,
                          const nccl_identity_t *peer) {
  return self->magic == NCCL_IDENTITY_MAGIC &&
         peer->magic == NCCL_IDENTITY_MAGIC &&
         peer->boot_hash == self->boot_hash &&
         peer->pid_namespace == self->pid_namespace;
}

/* 1 when identity names a process of this machine and pid namespace that
 * is gone (or a zombie); 0 when it lives or cannot be judged from here. */
static int process_gone(const nccl_identity_t *self,
                        const nccl_identity_t *peer) {
  if (!same_namespace(self, peer)) return 0;
  uint64_t start = 0;
  char state = 0;
  if (read_proc_stat(peer->pid, &start, &state) != 0) return 1;
  /* Same pid, another start time: the pid was reused by a new process. */
  return start != peer->start_ticks || state == 'Z' || state == 'X';
}

/* The first world rank of this rank's LSA team (teams are contiguous). */
static int lsa_first(const nccl_comm_t *c) { return c->rank - c->lsa_rank; }

/* Copies every LSA peer's state word and identity into c->peer_records
 * (indexed by LSA rank), on the communicator's probe stream. Only copies:
 * the addresses were resolved at setup (nccl_liveness_finish), since a
 * pointer query may launch a kernel, and loading a module waits for the
 * device, which a kernel stuck on a dead peer never frees. */
static ncore_status_t read_peer_records(nccl_comm_t *c) {
  ncore_status_t status = NCORE_OK;
  /* Relaxed capture mode for this thread while it copies: these copies
   * are on ncore's own stream, never captured, but in the default (global)
   * mode CUDA refuses them while any stream of the process is being
   * captured, and the refusal failed the communicator (an asynchronous-error
   * poll during a program's capture, session 18 on 4 x H100). NCCL does
   * the same around its own work (src/dev_runtime.cc). */
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  int relaxed = cu_fn.ThreadExchangeStreamCaptureMode != NULL &&
                cu_fn.ThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS;
  for (int l = 0; status == NCORE_OK && l < c->lsa_size; l++) {
    if (c->peer_record_addr[l] == NULL) continue;
    status = cu_check(cu_fn.MemcpyDtoHAsync(
                          &c->peer_records[l],
                          (CUdeviceptr)(uintptr_t)c->peer_record_addr[l],
                          sizeof c->peer_records[l], c->probe_stream),
                      "cuMemcpyDtoHAsync(peer state)");
  }
  if (status == NCORE_OK)
    status = cu_check(cu_fn.StreamSynchronize(c->probe_stream),
                      "cuStreamSynchronize(peer state)");
  if (relaxed) (void)cu_fn.ThreadExchangeStreamCaptureMode(&mode);
  return status;
}

/* Maps the liveness page of every LSA peer that is a process of this
 * machine and pid namespace, read-only, from the identity in its record
 * (written before the collective window registration that precedes this,
 * so it is there). Best effort: a peer without one is read from its GPU. */
static void map_peer_pages(nccl_comm_t *c) {
  c->peer_pages = calloc((size_t)c->lsa_size, sizeof *c->peer_pages);
  if (c->peer_pages == NULL || read_peer_records(c) != NCORE_OK) {
    core_error_clear();
    return;
  }
  for (int l = 0; l < c->lsa_size; l++) {
    const nccl_identity_t *peer = &c->peer_records[l].identity;
    if (c->peer_record_addr[l] == NULL || peer->page_fd < 0 ||
        peer->page_fd > INT32_MAX || !same_namespace(&c->identity, peer))
      continue;
    c->peer_pages[l] = core_memfd_map_peer((int64_t)peer->pid, (int)peer->page_fd,
                                           peer->page_ino, 0, sizeof(uint64_t), 0);
  }
}

ncore_status_t nccl_liveness_finish(nccl_comm_t *c) {
  if (c->signals_status != NCORE_OK || c->signal_window == NULL ||
      c->lsa_size <= 1)
    return NCORE_OK;
  c->peer_record_addr = calloc((size_t)c->lsa_size, sizeof *c->peer_record_addr);
  if (c->peer_record_addr == NULL)
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  ncore_status_t status = cu_check(
      cu_fn.StreamCreate(&c->probe_stream, CU_STREAM_NON_BLOCKING),
      "cuStreamCreate");
  size_t offset = NCCL_SIGNAL_STATE_OFFSET(c->nranks);
  for (int l = 0; status == NCORE_OK && l < c->lsa_size; l++) {
    int peer = lsa_first(c) + l;
    if (peer == c->rank) continue;
    void *base = NULL;
    status = nccl_window_peer_base(c->signal_window, peer, &base);
    if (status == NCORE_OK && base != NULL)
      c->peer_record_addr[l] = (char *)base + offset;
  }
  if (status == NCORE_OK) map_peer_pages(c);
  return status;
}

/* How often a waiting rank looks at its peers, at most. */
#define LIVENESS_PERIOD_MS 100

/* A peer's state word says it aborted or failed: neither alive nor gone
 * by a clean destroy. */
static int state_failed(uint64_t state) {
  return state != NCCL_PEER_LIVE && state != NCCL_PEER_LEFT;
}

/* Reads the LSA peers' records and names the first peer that aborted or
 * failed (*aborted) or, when processes is set, whose process is gone
 * (*dead, *dead_pid); -1 where none. Holds the liveness lock. */
static ncore_status_t find_failed_peer(nccl_comm_t *c, int processes,
                                       int *aborted, int *dead,
                                       uint64_t *dead_pid) {
  *aborted = *dead = -1;
  CUcontext previous = NULL;
  cu_fn.CtxGetCurrent(&previous);
  if (previous != c->ctx) cu_fn.CtxSetCurrent(c->ctx);
  ncore_status_t status = read_peer_records(c);
  if (previous != c->ctx) cu_fn.CtxSetCurrent(previous);
  for (int l = 0; status == NCORE_OK && l < c->lsa_size; l++) {
    const nccl_peer_record_t *r = &c->peer_records[l];
    if (lsa_first(c) + l == c->rank) continue;
    if (state_failed(r->state)) {
      *aborted = lsa_first(c) + l;
      break;
    }
    if (r->state == NCCL_PEER_LEFT) continue;
    if (processes && process_gone(&c->identity, &r->identity)) {
      *dead = lsa_first(c) + l;
      *dead_pid = r->identity.pid;
      break;
    }
  }
  return status;
}

ncore_status_t nccl_liveness_check(nccl_comm_t *c, int64_t now) {
  if (c->peer_record_addr == NULL || c->peer_records == NULL) return NCORE_OK;
  pthread_mutex_lock(&c->liveness_lock);
  if (now - c->liveness_checked_ms < LIVENESS_PERIOD_MS) {
    pthread_mutex_unlock(&c->liveness_lock);
    return NCORE_OK;
  }
  c->liveness_checked_ms = now;
  int dead, aborted;
  uint64_t dead_pid = 0;
  ncore_status_t status = find_failed_peer(c, 1, &aborted, &dead, &dead_pid);
  pthread_mutex_unlock(&c->liveness_lock);
  if (status != NCORE_OK) return status;
  if (aborted >= 0)
    return core_error(NCORE_ERR_REMOTE, "comm: rank %d aborted the "
                      "communicator (or it failed there); abort this one too",
                      aborted);
  if (dead >= 0)
    return core_error(NCORE_ERR_REMOTE, "comm: rank %d died (its process %llu "
                      "is gone); abort the communicator or shrink the rank away",
                      dead, (unsigned long long)dead_pid);
  return NCORE_OK;
}

ncore_status_t nccl_liveness_check_completed(nccl_comm_t *c) {
  if (c->peer_record_addr == NULL || c->peer_records == NULL) return NCORE_OK;
  /* Not the processes: a peer that dies takes its kernels with it, and
   * they write nothing more; only an abort lets them run on. The peers'
   * pages first (a load each); a copy from the GPUs only for a peer
   * without one. */
  int aborted = -1, unmapped = 0;
  for (int l = 0; aborted < 0 && l < c->lsa_size; l++) {
    if (lsa_first(c) + l == c->rank || c->peer_record_addr[l] == NULL) continue;
    const uint64_t *page = c->peer_pages ? c->peer_pages[l] : NULL;
    if (page == NULL) {
      unmapped = 1;
      continue;
    }
    uint64_t state = __atomic_load_n(page, __ATOMIC_ACQUIRE);
    if (state_failed(state)) aborted = lsa_first(c) + l;
  }
  ncore_status_t status = NCORE_OK;
  if (aborted < 0 && unmapped) {
    int dead;
    uint64_t dead_pid = 0;
    pthread_mutex_lock(&c->liveness_lock);
    status = find_failed_peer(c, 0, &aborted, &dead, &dead_pid);
    pthread_mutex_unlock(&c->liveness_lock);
  }
  if (status != NCORE_OK) return status;
  if (aborted >= 0)
    return core_error(NCORE_ERR_REMOTE, "comm: rank %d aborted the "
                      "communicator (or it failed there) while this rank's "
                      "work was on the stream: the stream completed, but "
                      "NCCL's kernels end early when a peer aborts and pass "
                      "on what they hold, so the results cannot be trusted; "
                      "abort this communicator too", aborted);
  return NCORE_OK;
}

ncore_status_t nccl_liveness_begin(nccl_comm_t *c) {
  c->peer_records = calloc((size_t)c->nranks, sizeof *c->peer_records);
  if (c->peer_records == NULL)
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  nccl_identity_of_self(&c->identity);
  c->identity.page_fd = -1;
  if (core_memfd_create("ncore-liveness", sizeof(uint64_t), &c->liveness_page) ==
      NCORE_OK) {
    c->identity.page_fd = c->liveness_page.fd;
    c->identity.page_ino = c->liveness_page.ino;
  } else {
    core_error_clear(); /* the peers read this rank's GPU instead */
  }
  nccl_peer_record_t mine = {.state = NCCL_PEER_LIVE, .identity = c->identity};
  return cu_check(cu_fn.MemcpyHtoDAsync(
                      (CUdeviceptr)(uintptr_t)((char *)c->signal_slots +
                                               NCCL_SIGNAL_STATE_OFFSET(c->nranks)),
                      &mine, sizeof mine, c->helper_stream),
                  "cuMemcpyHtoDAsync(identity)");
}

void nccl_liveness_mark_left(nccl_comm_t *c) {
  /* Static: the copy may read its source after the call returned. */
  static const uint64_t left = NCCL_PEER_LEFT;
  nccl_liveness_publish(c, NCCL_PEER_LEFT);
  if (c->signal_slots == NULL || c->helper_stream == NULL) return;
  (void)cu_fn.MemcpyHtoDAsync(
      (CUdeviceptr)(uintptr_t)((char *)c->signal_slots +
                               NCCL_SIGNAL_STATE_OFFSET(c->nranks)),
      &left, sizeof left, c->helper_stream);
}

void nccl_liveness_publish(nccl_comm_t *c, uint64_t state) {
  if (c->liveness_page.ptr != NULL)
    __atomic_store_n((uint64_t *)c->liveness_page.ptr, state, __ATOMIC_RELEASE);
}

void nccl_liveness_forget(nccl_comm_t *c) {
  for (int l = 0; c->peer_pages != NULL && l < c->lsa_size; l++)
    if (c->peer_pages[l] != NULL)
      munmap((void *)c->peer_pages[l], sizeof(uint64_t));
  free(c->peer_pages);
  c->peer_pages = NULL;
  core_memfd_close(&c->liveness_page);
}

void nccl_liveness_release(nccl_comm_t *c) {
  nccl_liveness_forget(c);
  if (c->probe_stream != NULL) cu_fn.StreamDestroy(c->probe_stream);
  c->probe_stream = NULL;
  free(c->peer_records);
  c->peer_records = NULL;
  free(c->peer_record_addr);
  c->peer_record_addr = NULL;
}
