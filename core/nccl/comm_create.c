/* core/nccl — making communicators (comm_create.h). A blocking
 * ncclCommInitRank runs on a helper thread so that a rank that never joins
 * costs timeout_ms, not a hang (init_bounded); every new ncclComm_t is then
 * set up by comm_setup.c. */
#include "comm_create.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../error.h"
#include "comm_lifecycle.h"
#include "comm_setup.h"
#include "config.h"
#include "device.h"
#include "signals.h"
#include "wait.h"

ncore_status_t nccl_get_unique_id(ncore_unique_id_t *out) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  ncclUniqueId id;
  _Static_assert(sizeof id == sizeof *out, "ncclUniqueId is 128 bytes");
  status = nccl_check(nccl_fn.ncclGetUniqueId(&id), "ncclGetUniqueId", NULL);
  if (status == NCORE_OK) memcpy(out, &id, sizeof id);
  return status;
}

/* ---- blocking init, bounded by the timeout ----
 * ncclCommInitRankConfig blocks until every rank joined, and NCCL cannot
 * stop it (no handle exists yet). It runs on a helper thread; if it does
 * not finish within timeout_ms the caller gets NCORE_ERR_TIMEOUT and the
 * thread is abandoned: should NCCL ever finish, the thread aborts the
 * communicator nobody owns. The job holds copies of everything the call
 * reads, since the caller's strings may be gone by then. */
typedef struct init_job {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int done, abandoned;
  CUcontext ctx;
  int nranks, rank, nids;
  ncclUniqueId *ids; /* nids ids: a scalable init when nids > 1 */
  nccl_config_t cfg;
  char net_name[256], comm_name[256];
  ncclComm_t comm;
  ncclResult_t result;
  char last_error[512]; /* ncclGetLastError is per thread: read it there */
} init_job_t;

static void init_job_free(init_job_t *job) {
  pthread_cond_destroy(&job->changed);
  pthread_mutex_destroy(&job->lock);
  free(job->ids);
  free(job);
}

static const char *init_call_name(int nids) {
  return nids > 1 ? "ncclCommInitRankScalable" : "ncclCommInitRankConfig";
}

/* One id: ncclCommInitRankConfig; several: ncclCommInitRankScalable. */
static ncclResult_t init_call(ncclComm_t *nc, int nranks, ncclUniqueId *ids,
                              int nids, int rank, nccl_config_t *cfg) {
  if (nids > 1)
    return nccl_fn.ncclCommInitRankScalable(nc, nranks, rank, nids, ids, cfg);
  return nccl_fn.ncclCommInitRankConfig(nc, nranks, ids[0], rank, cfg);
}

static void *init_thread(void *arg) {
  init_job_t *job = arg;
  ncclComm_t nc = NULL;
  ncclResult_t r = ncclSystemError;
  if (cu_fn.CtxSetCurrent(job->ctx) == CUDA_SUCCESS)
    r = init_call(&nc, job->nranks, job->ids, job->nids, job->rank,
                  &job->cfg);
  const char *last = nccl_fn.ncclGetLastError(NULL);
  pthread_mutex_lock(&job->lock);
  job->comm = nc;
  job->result = r;
  snprintf(job->last_error, sizeof job->last_error, "%s", last ? last : "");
  job->done = 1;
  int abandoned = job->abandoned;
  pthread_cond_signal(&job->changed);
  pthread_mutex_unlock(&job->lock);
  if (abandoned) { /* the caller gave up: nobody else will free these */
    if (nc != NULL) nccl_fn.ncclCommAbort(nc);
    init_job_free(job);
  }
  return NULL;
}

/* A job for init_thread holding its own copies of everything the call
 * reads; NULL when out of memory. */
static init_job_t *init_job_new(CUcontext ctx, int nranks,
                                const ncclUniqueId *ids, int nids, int rank,
                                const nccl_config_t *cfg) {
  init_job_t *job = calloc(1, sizeof *job);
  if (job != NULL) job->ids = malloc((size_t)nids * sizeof *ids);
  if (job == NULL || job->ids == NULL) {
    free(job);
    return NULL;
  }
  memcpy(job->ids, ids, (size_t)nids * sizeof *ids);
  job->nids = nids;
  pthread_mutex_init(&job->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&job->changed, &attr);
  pthread_condattr_destroy(&attr);
  job->ctx = ctx;
  job->nranks = nranks;
  job->rank = rank;
  job->cfg = *cfg;
  if (cfg->netName != NULL) {
    snprintf(job->net_name, sizeof job->net_name, "%s", cfg->netName);
    job->cfg.netName = job->net_name;
  }
  if (cfg->commName != NULL) {
    snprintf(job->comm_name, sizeof job->comm_name, "%s", cfg->commName);
    job->cfg.commName = job->comm_name;
  }
  return job;
}

/* Waits (job->lock held) until the job is done or timeout_ms passed;
 * wakes every second to say what it waits on when that is due
 * (nccl_waiting_note). */
static void init_job_await(init_job_t *job, int64_t timeout_ms) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  if (timeout_ms >= 0) {
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000;
    }
  }
  nccl_waiting_t waiting;
  nccl_waiting_start(&waiting);
  char what[224];
  snprintf(what, sizeof what, "%s of rank %d of %d (NCCL's bootstrap: every "
           "rank must call it with the same id and nranks)",
           init_call_name(job->nids), job->rank, job->nranks);
  while (!job->done) {
    struct timespec wake;
    clock_gettime(CLOCK_MONOTONIC, &wake);
    wake.tv_sec += 1;
    int last = timeout_ms >= 0 && (deadline.tv_sec < wake.tv_sec ||
                                   (deadline.tv_sec == wake.tv_sec &&
                                    deadline.tv_nsec <= wake.tv_nsec));
    int rc = pthread_cond_timedwait(&job->changed, &job->lock,
                                    last ? &deadline : &wake);
    if (rc == ETIMEDOUT && !job->done) {
      if (last) break;
      nccl_waiting_note(&waiting, timeout_ms, what);
    }
  }
}

/* Runs ncclCommInitRankConfig on a helper thread within timeout_ms. */
static ncore_status_t init_bounded(ncclComm_t *out, CUcontext ctx, int nranks,
                                   const ncclUniqueId *ids, int nids, int rank,
                                   const nccl_config_t *cfg,
                                   int64_t timeout_ms) {
  init_job_t *job = init_job_new(ctx, nranks, ids, nids, rank, cfg);
  if (job == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  pthread_t thread;
  pthread_attr_t tattr;
  pthread_attr_init(&tattr);
  pthread_attr_setdetachstate(&tattr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &tattr, init_thread, job);
  pthread_attr_destroy(&tattr);
  if (rc != 0) {
    init_job_free(job);
    return core_error(NCORE_ERR_SYSTEM, "pthread_create: %s", strerror(rc));
  }
  pthread_mutex_lock(&job->lock);
  init_job_await(job, timeout_ms);
  if (!job->done) {
    job->abandoned = 1; /* the thread frees the job when NCCL returns */
    pthread_mutex_unlock(&job->lock);
    return core_error(NCORE_ERR_TIMEOUT,
                      "%s did not complete within %lld ms (did every rank "
                      "call it with the same id and nranks?)",
                      init_call_name(nids), (long long)timeout_ms);
  }
  pthread_mutex_unlock(&job->lock);
  ncore_status_t status = NCORE_OK;
  if (job->result != ncclSuccess) {
    const char *text = nccl_fn.ncclGetErrorString(job->result);
    status = nccl_status_of(job->result);
    status = core_error(status, "%s failed: %s%s%s%s", init_call_name(nids),
                        text ? text : "?", job->last_error[0] ? " (" : "",
                        job->last_error, job->last_error[0] ? ")" : "");
    if (job->comm != NULL) nccl_fn.ncclCommAbort(job->comm);
  } else {
    *out = job->comm;
  }
  init_job_free(job);
  return status;
}

ncore_status_t nccl_comm_init_rank(core_comm_state_t *state, nccl_comm_t **out,
                                   int nranks, const ncore_unique_id_t *ids,
                                   int nids, int rank,
                                   const core_config_t *config) {
  CUcontext ctx = NULL;
  ncore_status_t status = nccl_device_enter(config->user.device, NULL, &ctx);
  if (status == NCORE_OK && nids > 1)
    status = nccl_require(nccl_fn.ncclCommInitRankScalable,
                          NCORE_NCCL_VERSION(2, 23, 0),
                          "ncore_comm_init_rank_scalable "
                          "(ncclCommInitRankScalable)");
  nccl_config_t cfg;
  if (status == NCORE_OK) status = nccl_config_map(config, &cfg);
  if (status != NCORE_OK) return status;
  _Static_assert(sizeof(ncclUniqueId) == sizeof(ncore_unique_id_t),
                 "ncclUniqueId is 128 bytes");
  ncclUniqueId *nids_copy = malloc((size_t)nids * sizeof *nids_copy);
  if (nids_copy == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  memcpy(nids_copy, ids, (size_t)nids * sizeof *nids_copy);
  ncclComm_t nc = NULL;
  if (nccl_config_nonblocking(config)) {
    ncclResult_t r = init_call(&nc, nranks, nids_copy, nids, rank, &cfg);
    if (r != ncclSuccess && r != ncclInProgress) {
      status = nccl_check(r, init_call_name(nids), nc);
      if (nc != NULL) nccl_fn.ncclCommAbort(nc);
    }
  } else {
    status = init_bounded(&nc, ctx, nranks, nids_copy, nids, rank, &cfg,
                          config->timeout_ms);
  }
  free(nids_copy);
  if (status != NCORE_OK) return status;
  status = nccl_comm_wrap(state, nc, ctx, config, out);
  if (status == NCORE_IN_PROGRESS) {
    nccl_comm_t *c = *out;
    c->rank = rank; /* known now; the rest once ready */
    c->nranks = nranks;
  }
  return status;
}

/* One communicator's setup in init_all, on its own thread. */
typedef struct setup_job {
  core_comm_state_t *state;
  ncclComm_t nc;
  int device;
  const core_config_t *config;
  nccl_comm_t *out;
  ncore_status_t status;
  char message[512];
} setup_job_t;

/* Thread body: makes the device current and wraps the communicator. */
static void *setup_thread(void *arg) {
  setup_job_t *job = arg;
  char name[32];
  snprintf(name, sizeof name, "device %d", job->device);
  core_error_enter(name);
  CUcontext ctx = NULL;
  job->status = nccl_device_enter(job->device, NULL, &ctx);
  if (job->status == NCORE_OK)
    job->status =
        nccl_comm_wrap(job->state, job->nc, ctx, job->config, &job->out);
  else
    nccl_fn.ncclCommAbort(job->nc);
  if (job->status != NCORE_OK)
    snprintf(job->message, sizeof job->message, "%s",
             ncore_last_error_message());
  return NULL;
}

ncore_status_t nccl_comm_init_all(core_comm_state_t *const *states,
                                  nccl_comm_t **out, int ndev,
                                  const int *devlist,
                                  const core_config_t *config) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  ncclComm_t *ncs = calloc((size_t)ndev, sizeof *ncs);
  setup_job_t *jobs = calloc((size_t)ndev, sizeof *jobs);
  pthread_t *threads = calloc((size_t)ndev, sizeof *threads);
  if (!ncs || !jobs || !threads) {
    free(ncs);
    free(jobs);
    free(threads);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  /* ncclCommInitAll has no config; blocking communicators result. */
  core_config_t blocking = *config;
  blocking.user.blocking = 1;
  status = nccl_check(nccl_fn.ncclCommInitAll(ncs, ndev, devlist),
                      "ncclCommInitAll", NULL);
  if (status == NCORE_OK) {
    /* nccl_comm_wrap() registers the signal window, a blocking collective:
     * with one thread per communicator every rank reaches it at once (one
     * thread doing them in turn would deadlock on the first). */
    int started = 0;
    for (int i = 0; i < ndev; i++) {
      jobs[i].state = states[i];
      jobs[i].nc = ncs[i];
      jobs[i].device = devlist ? devlist[i] : i;
      jobs[i].config = &blocking;
      if (pthread_create(&threads[i], NULL, setup_thread, &jobs[i]) != 0) break;
      started++;
    }
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    if (started < ndev) {
      /* Those started cannot finish their collective: this is fatal. */
      for (int i = started; i < ndev; i++) nccl_fn.ncclCommAbort(ncs[i]);
      status = core_error(NCORE_ERR_SYSTEM, "pthread_create failed");
    }
    for (int i = 0; i < started && status == NCORE_OK; i++)
      if (jobs[i].status != NCORE_OK)
        status = core_error(jobs[i].status, "%s", jobs[i].message);
    for (int i = 0; i < started; i++) {
      if (status == NCORE_OK) out[i] = jobs[i].out;
      else if (jobs[i].status == NCORE_OK) nccl_comm_destroy(jobs[i].out, 1);
    }
  }
  free(ncs);
  free(jobs);
  free(threads);
  return status;
}

/* The NCCL config of a child and the slot NCCL writes the child to. */
static ncore_status_t child_prepare(const core_config_t *config,
                                    nccl_config_t *cfg, ncclComm_t **slot) {
  ncore_status_t status = nccl_config_map(config, cfg);
  if (status != NCORE_OK) return status;
  *slot = calloc(1, sizeof **slot);
  return *slot != NULL ? NCORE_OK
                       : core_error(NCORE_ERR_SYSTEM, "out of memory");
}

/* Takes the child from slot once NCCL's job for it is over. NCCL writes a
 * child communicator to the caller's pointer when its init job ends
 * (ncclCommInitRankFunc): on a non-blocking parent that is after
 * ncclCommSplit, Shrink or Grow returned ncclInProgress, from NCCL's own
 * thread, and the pointer holds NULL until then. So the pointer lives on
 * the heap and is read only once the job's communicator — the parent, or
 * for a new rank of a grow the child, which NCCL wrote at once — has left
 * ncclInProgress. A slot given up at a timeout stays allocated, since NCCL
 * may still write to it. Split, shrink and grow therefore return once the
 * child exists, also on a non-blocking communicator (the child
 * was read as NULL, and NCCL later wrote to a stack slot long gone). */
static ncore_status_t child_collect(nccl_comm_t *parent, ncclResult_t r,
                                    ncclComm_t *slot,
                                    const core_config_t *config,
                                    const char *what, ncclComm_t *nc) {
  ncore_status_t status = NCORE_OK;
  ncclComm_t job = parent->nccl != NULL
                       ? parent->nccl
                       : __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (job != NULL && (r == ncclInProgress ||
                      (r == ncclSuccess && parent->nonblocking))) {
    status = nccl_wait_ready(job, parent->nccl != NULL ? parent : NULL,
                             config->timeout_ms, what);
    if (status == NCORE_OK) atomic_store(&parent->in_progress, 0);
  }
  if (status == NCORE_ERR_TIMEOUT) {
    *nc = NULL;
    return status; /* slot left to NCCL's job */
  }
  *nc = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  free(slot);
  if (status != NCORE_OK && *nc != NULL) {
    nccl_fn.ncclCommAbort(*nc);
    *nc = NULL;
  }
  return status;
}

/* Ends a split, shrink or grow: the child wrapped, or the error. The child
 * comes from slot (child_prepare), which this frees or hands to NCCL. */
static ncore_status_t child_created(nccl_comm_t *parent, ncclResult_t r,
                                    ncclComm_t *slot,
                                    const core_config_t *config,
                                    core_comm_state_t *state,
                                    const char *what, nccl_comm_t **out) {
  ncclComm_t nc = NULL;
  ncore_status_t status = child_collect(parent, r, slot, config, what, &nc);
  if (status != NCORE_OK) return status;
  if (r == ncclInProgress && nc != NULL)
    status = nccl_wait_ready(nc, NULL, config->timeout_ms, what);
  else if (r != ncclInProgress)
    status = nccl_check(r, what, parent->nccl);
  if (status != NCORE_OK) {
    if (nc) nccl_fn.ncclCommAbort(nc);
    return status;
  }
  if (nc == NULL) { /* NCORE_SPLIT_NOCOLOR */
    *out = NULL;
    return NCORE_OK;
  }
  return nccl_comm_wrap(state, nc, parent->ctx, config, out);
}

ncore_status_t nccl_comm_split(nccl_comm_t *comm, int color, int key,
                               core_comm_state_t *state, nccl_comm_t **out,
                               const core_config_t *config) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  nccl_config_t cfg;
  ncclComm_t *slot = NULL;
  status = child_prepare(config, &cfg, &slot);
  if (status != NCORE_OK) return status;
  ncclResult_t r = nccl_fn.ncclCommSplit(c->nccl, color, key, slot, &cfg);
  return child_created(c, r, slot, config, state, "ncclCommSplit", out);
}

ncore_status_t nccl_comm_shrink(nccl_comm_t *comm, const int *exclude,
                                int count, core_comm_state_t *state,
                                nccl_comm_t **out, const core_config_t *config,
                                uint32_t flags) {
  nccl_comm_t *c = comm;
  /* NCORE_SHRINK_ABORT is for a parent in trouble: allow an aborted or
   * failed one. */
  if (!(flags & NCORE_SHRINK_ABORT)) {
    ncore_status_t live = nccl_comm_check_live(c);
    if (live != NCORE_OK) return live;
  }
  ncore_status_t status = cu_check(cu_fn.CtxSetCurrent(c->ctx),
                                   "cuCtxSetCurrent");
  if (status != NCORE_OK) return status;
  nccl_config_t cfg;
  ncclComm_t *slot = NULL;
  status = child_prepare(config, &cfg, &slot);
  if (status != NCORE_OK) return status;
  ncclResult_t r;
  if (count == 0) {
    /* ncclCommShrink refuses an empty exclusion list (ncclInvalidArgument);
     * excluding no one is a copy of the parent: one color, ranks in order. */
    r = nccl_fn.ncclCommSplit(c->nccl, 0, c->rank, slot, &cfg);
  } else {
    /* NCCL sorts the list in place (and copies it for its job): give it a
     * copy of the caller's. */
    int *list = malloc((size_t)count * sizeof *list);
    if (list == NULL) {
      free(slot);
      return core_error(NCORE_ERR_SYSTEM, "out of memory");
    }
    memcpy(list, exclude, (size_t)count * sizeof *list);
    /* An aborting shrink ends the parent's kernels early: the peers must
     * read "aborted" first (nccl_signals_abandon). */
    if (flags & NCORE_SHRINK_ABORT) {
      pthread_mutex_lock(&c->abort_lock);
      nccl_signals_abandon(c);
      pthread_mutex_unlock(&c->abort_lock);
    }
    r = nccl_fn.ncclCommShrink(c->nccl, list, count, slot, &cfg, (int)flags);
    free(list);
  }
  return child_created(c, r, slot, config, state,
                       count == 0 ? "ncclCommSplit" : "ncclCommShrink", out);
}

ncore_status_t nccl_comm_grow(nccl_comm_t *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              core_comm_state_t *state, nccl_comm_t **out,
                              const core_config_t *config) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_load();
  if (status == NCORE_OK)
    status = nccl_require(nccl_fn.ncclCommGrow, NCORE_NCCL_VERSION(2, 29, 2),
                          "ncore_comm_grow (ncclCommGrow)");
  CUcontext ctx = NULL;
  if (status == NCORE_OK)
    status = c != NULL ? nccl_comm_enter(c)
                       : nccl_device_enter(config->user.device, NULL, &ctx);
  nccl_config_t cfg;
  ncclComm_t *slot = NULL;
  if (status == NCORE_OK) status = child_prepare(config, &cfg, &slot);
  if (status != NCORE_OK) return status;
  ncclUniqueId nid;
  if (id != NULL) memcpy(&nid, id, sizeof nid);
  ncclResult_t r = nccl_fn.ncclCommGrow(c ? c->nccl : NULL, nranks,
                                        id ? &nid : NULL, rank, slot, &cfg);
  if (c != NULL)
    return child_created(c, r, slot, config, state, "ncclCommGrow", out);
  /* A new rank has no parent: wait for NCCL as a child would. */
  nccl_comm_t orphan = {.nccl = NULL, .ctx = ctx};
  return child_created(&orphan, r, slot, config, state, "ncclCommGrow", out);
}
