/* core/host — making communicators (comm_create.h): unique ids, init (one
 * rank, or all ranks as threads of this process), split, shrink. */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "comm_create.h"

#include "../error.h"
#include "exchange.h"
#include "keyed_hash.h"
#include "../random_bytes.h"
#include "segment.h"

/* A random token for a new unique id or init_all. */
static ncore_status_t random_token(uint64_t *out) {
  return core_random_bytes(out, sizeof *out);
}

/* The token of parent c's child number seq: every rank of the parent
 * computes the same, and nobody outside can (keyed_hash.c). */
static uint64_t child_token(host_comm_t *c, uint64_t seq, uint64_t tag) {
  return host_keyed_hash(host_header(c)->child_key, seq, tag);
}

ncore_status_t host_get_unique_id(ncore_unique_id_t *out) {
  memset(out, 0, sizeof *out);
  host_unique_id_t id;
  memset(&id, 0, sizeof id);
  memcpy(id.magic, HOST_MAGIC, 8);
  ncore_status_t s = random_token(&id.token);
  if (s != NCORE_OK) return s;
  id.creator_pid = getpid();
  id.creator = *host_identity_self();
  memcpy(out->internal, &id, sizeof id);
  return NCORE_OK;
}

ncore_status_t host_unique_id_token(const ncore_unique_id_t *id,
                                    const char *argument, uint64_t *token) {
  host_unique_id_t hid;
  memcpy(&hid, id->internal, sizeof hid);
  if (memcmp(hid.magic, HOST_MAGIC, 8) != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: not a unique id of the host backend", argument);
  ncore_status_t s = host_identity_check(&hid.creator);
  if (s != NCORE_OK) return s;
  *token = hid.token;
  return NCORE_OK;
}

/* Several ids (a scalable init) spread NCCL's bootstrap; the host's
 * rendezvous is one socket, so the first id serves every rank, and the
 * others must still be host ids. */
ncore_status_t host_comm_init_rank(core_comm_state_t *state, host_comm_t **out,
                                   int nranks, const ncore_unique_id_t *ids,
                                   int nids, int rank,
                                   const core_config_t *config) {
  uint64_t token = 0, ignored = 0;
  ncore_status_t s = host_unique_id_token(&ids[0], nids > 1 ? "ids" : "id",
                                          &token);
  for (int i = 1; i < nids && s == NCORE_OK; i++)
    s = host_unique_id_token(&ids[i], "ids", &ignored);
  if (s != NCORE_OK) return s;
  return host_segment_join(out, state, token, nranks, rank,
                           config->timeout_ms);
}

typedef struct init_job {
  core_comm_state_t *state;
  uint64_t token;
  int nranks, rank;
  int64_t timeout_ms;
  host_comm_t *comm;
  ncore_status_t status;
  char message[256];  /* the thread's error message, when it failed */
} init_job_t;

/* Thread body of init_all: one rank joins. */
static void *init_thread(void *arg) {
  init_job_t *j = arg;
  j->status = host_segment_join(&j->comm, j->state, j->token, j->nranks,
                                j->rank, j->timeout_ms);
  /* Without the "ncore: " this thread's errors start with (no entry). */
  const char *m = ncore_last_error_message();
  if (strncmp(m, "ncore: ", 7) == 0) m += 7;
  snprintf(j->message, sizeof j->message, "%s", m);
  return NULL;
}

ncore_status_t host_comm_init_all(core_comm_state_t *const *states,
                                  host_comm_t **out, int ndev,
                                  const int *devlist,
                                  const core_config_t *config) {
  (void)devlist;
  /* A rank count the host cannot hold fails before any thread is made. */
  host_layout_t layout;
  ncore_status_t fits = host_segment_layout(ndev, &layout);
  if (fits != NCORE_OK) return fits;
  init_job_t *jobs = calloc((size_t)ndev, sizeof *jobs);
  pthread_t *threads = calloc((size_t)ndev, sizeof *threads);
  if (!jobs || !threads) {
    free(jobs);
    free(threads);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  uint64_t token = 0;
  ncore_status_t s = random_token(&token);
  if (s != NCORE_OK) {
    free(jobs);
    free(threads);
    return s;
  }
  int started = 0;
  for (int r = 0; r < ndev; r++) {
    jobs[r] = (init_job_t){states[r], token, ndev, r, config->timeout_ms,
                           NULL, NCORE_OK, ""};
    if (pthread_create(&threads[r], NULL, init_thread, &jobs[r]) != 0) {
      jobs[r].status = NCORE_ERR_SYSTEM;
      break;
    }
    started++;
  }
  for (int r = 0; r < started; r++) pthread_join(threads[r], NULL);
  int failed = -1;
  for (int r = 0; r < ndev && failed < 0; r++)
    if (jobs[r].status != NCORE_OK) failed = r;
  if (failed >= 0 || started < ndev) {
    for (int r = 0; r < ndev; r++) host_segment_leave(jobs[r].comm);
    if (failed >= 0)
      s = core_error(jobs[failed].status, "rank %d: %s", failed,
                     jobs[failed].message);
    else
      s = core_error(NCORE_ERR_SYSTEM, "could not start a thread for rank %d",
                     started);
  } else {
    for (int r = 0; r < ndev; r++) out[r] = jobs[r].comm;
  }
  free(jobs);
  free(threads);
  return s;
}

ncore_status_t host_comm_split(host_comm_t *comm, int color, int key,
                               core_comm_state_t *state, host_comm_t **out,
                               const core_config_t *config) {
  host_comm_t *c = comm;
  int32_t mine[2] = {color, key};
  int32_t *all = calloc((size_t)c->nranks * 2, sizeof(int32_t));
  if (!all) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  ncore_status_t s = host_allgather_bytes(c, mine, all, sizeof mine);
  uint64_t seq = ++c->child_seq;
  if (s != NCORE_OK || color == NCORE_SPLIT_NOCOLOR) {
    free(all);
    *out = NULL;
    return s;
  }
  int newrank = 0, newsize = 0;
  for (int r = 0; r < c->nranks; r++) {
    if (all[2 * r] != color) continue;
    newsize++;
    int rk = all[2 * r + 1];
    if (rk < key || (rk == key && r < c->rank)) newrank++;
  }
  free(all);
  /* The tag keeps colors apart; NOCOLOR never reaches here. */
  return host_segment_join(out, state,
                           child_token(c, seq, (uint64_t)(uint32_t)color),
                           newsize, newrank, config->timeout_ms);
}

ncore_status_t host_comm_shrink(host_comm_t *comm, const int *exclude,
                                int count, core_comm_state_t *state,
                                host_comm_t **out, const core_config_t *config,
                                uint32_t flags) {
  (void)flags;
  host_comm_t *c = comm;
  uint64_t seq = ++c->child_seq;
  int newrank = 0, newsize = 0;
  for (int r = 0; r < c->nranks; r++) {
    int excluded = 0;
    for (int i = 0; i < count; i++) excluded |= exclude[i] == r;
    if (excluded) continue;
    if (r < c->rank) newrank++;
    newsize++;
  }
  /* A tag no split color has (colors are >= 0 as int32). */
  return host_segment_join(out, state, child_token(c, seq, UINT64_C(1) << 40),
                           newsize, newrank, config->timeout_ms);
}
