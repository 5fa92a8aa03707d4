/* core/nccl — communicator lifecycle: unique ids, init (rank / all), split,
 * shrink, finalize, abort, destroy, queries, groups, and waiting for a
 * stream while watching the communicator (ncore_comm_synchronize).
 *
 * Abort protocol (thread safety). comm_abort_signal may run on any thread
 * while another thread is inside a call on the same communicator, so it must
 * free nothing: it sets `aborted` (every later ncore call on the comm answers
 * NCORE_ERR_CLOSED, and ncore's own wait loops poll the flag) and, once,
 * under abort_lock, calls ncclCommRevoke, which stops NCCL's in-flight work
 * and leaves the ncclComm_t valid. Only comm_destroy (no call running, by the
 * core's contract) calls ncclCommAbort (aborted) or ncclCommDestroy, which
 * free the ncclComm_t. So no NCCL object is ever freed under a running call.
 *
 * Creation. A communicator is usable once NCCL made it AND ncore's own setup
 * ran (helper stream, scratch, the signal window: a collective
 * registration). Blocking configs do both before returning; ncclCommInitRank
 * itself runs on a helper thread so that a rank that never joins costs
 * timeout_ms, not a hang (init_bounded). Non-blocking configs (blocking = 0)
 * return NCORE_IN_PROGRESS at once, as NCCL does; each ncore_comm_async_error
 * then advances the setup one step without ever blocking (advance_setup), so
 * one thread can bring up several communicators that need each other. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../error.h"
#include "../log.h"
#include "nccl_internal.h"
#include "nccl_ops.h"

/* The config fields newer than NCCL 2.28, with the version that added
 * each: set on an older NCCL, they are refused rather than dropped. */
static const struct {
  size_t offset;
  const char *what;
  int since;
} newer_config_fields[] = {
    {offsetof(ncore_comm_config_t, graph_usage_mode),
     "config: graph_usage_mode", NCORE_NCCL_VERSION(2, 29, 0)},
    {offsetof(ncore_comm_config_t, num_rma_ctx), "config: num_rma_ctx",
     NCORE_NCCL_VERSION(2, 29, 0)},
    {offsetof(ncore_comm_config_t, max_p2p_peers), "config: max_p2p_peers",
     NCORE_NCCL_VERSION(2, 30, 0)},
    {offsetof(ncore_comm_config_t, graph_stream_ordering),
     "config: graph_stream_ordering", NCORE_NCCL_VERSION(2, 30, 5)},
};

/* Maps the validated ncore config to NCCL's (field for field) in the
 * 2.30.7 layout, `version` saying which fields the loaded NCCL reads. */
static ncore_status_t config_map(const core_config_t *config,
                                 nccl_config_t *out) {
  nccl_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.size = sizeof cfg;
  cfg.magic = NCORE_NCCL_API_MAGIC;
  cfg.version = (unsigned)nccl_struct_version();
  int *ints[] = {&cfg.blocking, &cfg.cgaClusterSize, &cfg.minCTAs,
                 &cfg.maxCTAs, &cfg.splitShare, &cfg.trafficClass,
                 &cfg.collnetEnable, &cfg.CTAPolicy, &cfg.shrinkShare,
                 &cfg.nvlsCTAs, &cfg.nChannelsPerNetPeer,
                 &cfg.nvlinkCentricSched, &cfg.graphUsageMode,
                 &cfg.numRmaCtx, &cfg.maxP2pPeers, &cfg.graphStreamOrdering};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    *ints[i] = NCORE_NCCL_UNDEF_INT;
  if (config != NULL) {
    const ncore_comm_config_t *u = &config->user;
    for (size_t i = 0;
         i < sizeof newer_config_fields / sizeof newer_config_fields[0]; i++) {
      int32_t value;
      memcpy(&value, (const char *)u + newer_config_fields[i].offset,
             sizeof value);
      if (value == NCORE_CONFIG_UNDEF_INT) continue;
      ncore_status_t status = nccl_require_version(
          newer_config_fields[i].since, newer_config_fields[i].what);
      if (status != NCORE_OK) return status;
    }
#define COPY_INT(dst, src) \
  if (u->src != NCORE_CONFIG_UNDEF_INT) cfg.dst = u->src
    COPY_INT(blocking, blocking);
    COPY_INT(cgaClusterSize, cga_cluster_size);
    COPY_INT(minCTAs, min_ctas);
    COPY_INT(maxCTAs, max_ctas);
    COPY_INT(splitShare, split_share);
    COPY_INT(trafficClass, traffic_class);
    COPY_INT(collnetEnable, collnet_enable);
    COPY_INT(CTAPolicy, cta_policy);
    COPY_INT(shrinkShare, shrink_share);
    COPY_INT(nvlsCTAs, nvls_ctas);
    COPY_INT(nChannelsPerNetPeer, n_channels_per_net_peer);
    COPY_INT(nvlinkCentricSched, nvlink_centric_sched);
    COPY_INT(graphUsageMode, graph_usage_mode);
    COPY_INT(numRmaCtx, num_rma_ctx);
    COPY_INT(maxP2pPeers, max_p2p_peers);
    COPY_INT(graphStreamOrdering, graph_stream_ordering);
#undef COPY_INT
    cfg.netName = u->net_name;
    cfg.commName = u->comm_name;
  }
  *out = cfg;
  return NCORE_OK;
}

/* 1 when the config asks for a non-blocking communicator (blocking = 0). */
static int config_nonblocking(const core_config_t *config) {
  return config->user.blocking != NCORE_CONFIG_UNDEF_INT &&
         config->user.blocking == 0;
}

/* Milliseconds of the monotonic clock. */
static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Under NCORE_DEBUG=INFO, says every 5 s of a wait what it waits on;
 * *next_ms: when the next line is due (start with start + 5000). */
static void note_wait(int64_t start, int64_t *next_ms, const char *what) {
  int64_t now = now_ms();
  if (now < *next_ms) return;
  *next_ms = now + 5000;
  core_log(CORE_LOG_INFO, "still waiting after %lld s for %s",
           (long long)((now - start) / 1000), what);
}

/* Waits a little between polls: spin first (fast completions stay fast),
 * then yield, then sleep, so long waits do not eat a core. */
static void backoff(int round) {
  if (round < 200) return;
  struct timespec ts = {0, round < 2000 ? 20000 : 200000};
  nanosleep(&ts, NULL);
}

/* Waits until a non-blocking communicator leaves ncclInProgress, honouring
 * the timeout and the abort flag. `c` may be NULL during creation. */
static ncore_status_t wait_ready(ncclComm_t comm, nccl_comm_t *c,
                                 int64_t timeout_ms, const char *what) {
  int64_t start = now_ms(), next_note = start + 5000;
  for (int round = 0;; round++) {
    ncclResult_t state = ncclSuccess;
    ncore_status_t status = nccl_check(
        nccl_fn.ncclCommGetAsyncError(comm, &state), "ncclCommGetAsyncError",
        comm);
    if (status != NCORE_OK) return status;
    if (state != ncclInProgress) return nccl_check(state, what, comm);
    if (c != NULL && atomic_load(&c->aborted))
      return core_error(NCORE_ERR_CLOSED, "comm: aborted while waiting for %s",
                        what);
    if (timeout_ms >= 0 && now_ms() - start > timeout_ms) {
      if (c != NULL) atomic_store(&c->failed, NCORE_ERR_TIMEOUT);
      return core_error(NCORE_ERR_TIMEOUT, "comm: %s did not complete within "
                        "%lld ms", what, (long long)timeout_ms);
    }
    if ((round & 1023) == 0) note_wait(start, &next_note, what);
    backoff(round);
  }
}

ncore_status_t nccl_wait_ready(ncclComm_t comm, int64_t timeout_ms,
                               const char *what) {
  return wait_ready(comm, NULL, timeout_ms, what);
}

/* NCCL refuses every call on a non-blocking communicator whose state is
 * still ncclInProgress ("Attempt to use communicator before the previous
 * operation returned ncclSuccess"): the call after one that answered
 * NCORE_IN_PROGRESS waits for it, within the timeout, instead of failing. */
static ncore_status_t settle_in_progress(nccl_comm_t *c) {
  ncore_status_t status =
      wait_ready(c->nccl, c, c->timeout_ms, "the previous call (in progress)");
  if (status == NCORE_OK) atomic_store(&c->in_progress, 0);
  else if (status != NCORE_ERR_CLOSED) atomic_store(&c->failed, status);
  return status;
}

ncore_status_t nccl_settle(ncclResult_t r, nccl_comm_t *c, const char *what) {
  /* A non-blocking NCCL communicator may answer ncclSuccess while the work
   * it queued still runs on NCCL's group thread (ncclCommWindowRegister
   * does), so its state is always waited for. */
  if (r != ncclSuccess && r != ncclInProgress) return nccl_check(r, what, c->nccl);
  if (r == ncclInProgress || c->nonblocking)
    return wait_ready(c->nccl, c, c->timeout_ms, what);
  return NCORE_OK;
}

ncore_status_t nccl_comm_check_live(nccl_comm_t *c) {
  if (atomic_load(&c->aborted))
    return core_error(NCORE_ERR_CLOSED, "comm: the communicator was aborted");
  ncore_status_t failed = (ncore_status_t)atomic_load(&c->failed);
  if (failed != NCORE_OK)
    return core_error(failed, "comm: the communicator failed earlier (%s); "
                      "abort it or shrink the failed ranks away",
                      ncore_status_string(failed));
  if (atomic_load_explicit(&c->in_progress, memory_order_relaxed))
    return settle_in_progress(c);
  return NCORE_OK;
}

ncore_status_t nccl_enqueued(nccl_comm_t *c, ncclResult_t r, const char *what) {
  if (r != ncclInProgress) return nccl_check(r, what, c->nccl);
  atomic_store(&c->in_progress, 1);
  return core_error(NCORE_IN_PROGRESS, "%s: enqueued; NCCL is still "
                    "preparing it (a non-blocking communicator): the next "
                    "call on this communicator waits for that, or poll "
                    "ncore_comm_async_error until it is not "
                    "NCORE_IN_PROGRESS", what);
}

/* A new, not yet set up communicator around nc. */
static nccl_comm_t *comm_new(ncclComm_t nc, CUcontext ctx,
                             const core_config_t *config) {
  nccl_comm_t *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  c->nccl = nc;
  c->ctx = ctx;
  c->nonblocking = config_nonblocking(config);
  c->legacy_stream_detour =
      config->user.cta_policy != NCORE_CONFIG_UNDEF_INT &&
      (config->user.cta_policy & NCCL_CTA_POLICY_ZERO) != 0 &&
      nccl_runtime_version() < NCORE_NCCL_VERSION(2, 29, 7);
  c->timeout_ms = config->timeout_ms;
  c->rank = c->nranks = -1;
  c->device = -1;
  atomic_init(&c->aborted, 0);
  atomic_init(&c->failed, NCORE_OK);
  atomic_init(&c->in_progress, 0);
  pthread_mutex_init(&c->abort_lock, NULL);
  pthread_mutex_init(&c->liveness_lock, NULL);
  return c;
}

/* Frees a communicator whose setup failed or never finished. */
static void comm_discard(nccl_comm_t *c) {
  atomic_store(&c->aborted, 1);
  if (c->helper_stream) (void)cu_fn.StreamSynchronize(c->helper_stream);
  nccl_fn.ncclCommAbort(c->nccl); /* first: its kernels may use our memory */
  if (c->lsa_nccl) nccl_fn.ncclCommAbort(c->lsa_nccl);
  nccl_signals_release(c, 1);
  if (c->scratch) nccl_fn.ncclMemFree(c->scratch);
  if (c->helper_stream) cu_fn.StreamDestroy(c->helper_stream);
  pthread_mutex_destroy(&c->abort_lock);
  pthread_mutex_destroy(&c->liveness_lock);
  free(c);
}

/* First half of ncore's setup, once NCCL's communicator is ready: queries,
 * helper stream, scratch, and the start of the signal window's (collective)
 * registration. Never blocks on peers. */
static ncore_status_t setup_begin(nccl_comm_t *c) {
  ncclComm_t nc = c->nccl;
  ncore_status_t status =
      nccl_check(nccl_fn.ncclCommUserRank(nc, &c->rank), "ncclCommUserRank", nc);
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclCommCount(nc, &c->nranks), "ncclCommCount",
                        nc);
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclCommCuDevice(nc, &c->device),
                        "ncclCommCuDevice", nc);
  /* Provisional LSA team (the whole world: an upper bound that sizes the
   * signal window's caches); the real one is read in setup_finish. */
  c->lsa_rank = c->rank;
  c->lsa_size = c->nranks;
  if (status == NCORE_OK)
    status = cu_check(cu_fn.StreamCreate(&c->helper_stream,
                                         CU_STREAM_NON_BLOCKING),
                      "cuStreamCreate");
  if (status == NCORE_OK) status = nccl_kernels_load();
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclMemAlloc(&c->scratch,
                                             8 * (2 * (size_t)c->nranks + 1)),
                        "ncclMemAlloc", nc);
  if (status == NCORE_OK) status = nccl_signals_begin(c);
  return status;
}

/* Second half, once the signal window's registration completed. */
static ncore_status_t setup_finish(nccl_comm_t *c) {
  ncore_status_t status = nccl_signals_finish(c);
  if (status == NCORE_OK) status = nccl_read_lsa_team(c);
  if (status == NCORE_OK) status = nccl_liveness_finish(c);
  if (status != NCORE_OK) return status;
  c->stage = NCCL_STAGE_READY;
  return NCORE_OK;
}

ncore_status_t nccl_read_lsa_team(nccl_comm_t *c) {
  /* ncclTeamLsa initialises NCCL's device-runtime state on first use (a
   * window registration already did) and returns an empty team if that
   * failed. */
  struct nccl_team lsa = nccl_fn.ncclTeamLsa(c->nccl);
  if (lsa.nRanks <= 0 || lsa.rank < 0 || lsa.rank >= lsa.nRanks ||
      lsa.nRanks > c->nranks)
    return core_error(NCORE_ERR_INTERNAL,
                      "ncclTeamLsa returned an invalid team (rank %d of %d): "
                      "NCCL's device runtime did not initialise", lsa.rank,
                      lsa.nRanks);
  c->lsa_rank = lsa.rank;
  c->lsa_size = lsa.nRanks;
  c->lsa_known = 1;
  return NCORE_OK;
}

/* Wraps a fresh ncclComm_t. Blocking: sets it up completely (NCORE_OK).
 * Non-blocking: leaves the setup to advance_setup (NCORE_IN_PROGRESS). On
 * failure the ncclComm_t is aborted and freed. */
static ncore_status_t wrap(ncclComm_t nc, CUcontext ctx,
                           const core_config_t *config, void **out) {
  nccl_comm_t *c = comm_new(nc, ctx, config);
  if (c == NULL) {
    nccl_fn.ncclCommAbort(nc);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  if (c->nonblocking) {
    c->stage = NCCL_STAGE_NCCL;
    c->stage_started_ms = now_ms();
    *out = c;
    return NCORE_IN_PROGRESS;
  }
  ncore_status_t status = setup_begin(c);
  if (status == NCORE_OK) status = setup_finish(c);
  if (status != NCORE_OK) {
    comm_discard(c);
    return status;
  }
  *out = c;
  return NCORE_OK;
}

/* One step of a non-blocking communicator's setup; never blocks. *out:
 * NCORE_IN_PROGRESS, NCORE_OK (ready) or the error that ended it. */
static ncore_status_t advance_setup(nccl_comm_t *c, ncore_status_t *out) {
  ncclResult_t state = ncclSuccess;
  ncore_status_t status = nccl_check(
      nccl_fn.ncclCommGetAsyncError(c->nccl, &state), "ncclCommGetAsyncError",
      c->nccl);
  if (status != NCORE_OK) return status;
  if (state == ncclInProgress) {
    if (c->timeout_ms >= 0 && now_ms() - c->stage_started_ms > c->timeout_ms) {
      atomic_store(&c->failed, NCORE_ERR_TIMEOUT);
      *out = NCORE_ERR_TIMEOUT;
    } else {
      *out = NCORE_IN_PROGRESS;
    }
    return NCORE_OK;
  }
  if (state != ncclSuccess) {
    *out = nccl_check(state, "creating the communicator", c->nccl);
    atomic_store(&c->failed, *out);
    return NCORE_OK;
  }
  status = cu_check(cu_fn.CtxSetCurrent(c->ctx), "cuCtxSetCurrent");
  if (status == NCORE_OK && c->stage == NCCL_STAGE_NCCL) {
    status = setup_begin(c);
    if (status == NCORE_OK) {
      c->stage = NCCL_STAGE_SIGNALS; /* the registration runs on NCCL's thread */
      *out = NCORE_IN_PROGRESS;
      return NCORE_OK;
    }
  } else if (status == NCORE_OK) {
    status = setup_finish(c);
  }
  if (status != NCORE_OK) atomic_store(&c->failed, status);
  *out = status;
  return NCORE_OK;
}

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

/* Runs ncclCommInitRankConfig on a helper thread within timeout_ms. */
static ncore_status_t init_bounded(ncclComm_t *out, CUcontext ctx, int nranks,
                                   const ncclUniqueId *ids, int nids, int rank,
                                   const nccl_config_t *cfg,
                                   int64_t timeout_ms) {
  init_job_t *job = calloc(1, sizeof *job);
  if (job != NULL) job->ids = malloc((size_t)nids * sizeof *ids);
  if (job == NULL || job->ids == NULL) {
    free(job);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
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
  /* Wakes every 5 s to say, under NCORE_DEBUG=INFO, what it waits on. */
  int64_t start = now_ms(), next_note = start + 5000;
  char what[160];
  snprintf(what, sizeof what, "%s (NCCL's bootstrap: every rank must call it "
           "with the same id and nranks)", init_call_name(nids));
  pthread_mutex_lock(&job->lock);
  while (!job->done) {
    struct timespec wake;
    clock_gettime(CLOCK_MONOTONIC, &wake);
    wake.tv_sec += 5;
    int last = timeout_ms >= 0 && (deadline.tv_sec < wake.tv_sec ||
                                   (deadline.tv_sec == wake.tv_sec &&
                                    deadline.tv_nsec <= wake.tv_nsec));
    int rc = pthread_cond_timedwait(&job->changed, &job->lock,
                                    last ? &deadline : &wake);
    if (rc == ETIMEDOUT && !job->done) {
      if (last) break;
      note_wait(start, &next_note, what);
    }
  }
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

ncore_status_t nccl_comm_init_rank(void **out, int nranks,
                                   const ncore_unique_id_t *ids, int nids,
                                   int rank, const core_config_t *config) {
  CUcontext ctx = NULL;
  ncore_status_t status = nccl_device_enter(config->user.device, NULL, &ctx);
  if (status == NCORE_OK && nids > 1)
    status = nccl_require(nccl_fn.ncclCommInitRankScalable,
                          NCORE_NCCL_VERSION(2, 23, 0),
                          "ncore_comm_init_rank_scalable "
                          "(ncclCommInitRankScalable)");
  nccl_config_t cfg;
  if (status == NCORE_OK) status = config_map(config, &cfg);
  if (status != NCORE_OK) return status;
  _Static_assert(sizeof(ncclUniqueId) == sizeof(ncore_unique_id_t),
                 "ncclUniqueId is 128 bytes");
  ncclUniqueId *nids_copy = malloc((size_t)nids * sizeof *nids_copy);
  if (nids_copy == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  memcpy(nids_copy, ids, (size_t)nids * sizeof *nids_copy);
  ncclComm_t nc = NULL;
  if (config_nonblocking(config)) {
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
  status = wrap(nc, ctx, config, out);
  if (status == NCORE_IN_PROGRESS) {
    nccl_comm_t *c = *out;
    c->rank = rank; /* known now; the rest once ready */
    c->nranks = nranks;
  }
  return status;
}

/* One communicator's setup in init_all, on its own thread. */
typedef struct setup_job {
  ncclComm_t nc;
  int device;
  const core_config_t *config;
  void *out;
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
    job->status = wrap(job->nc, ctx, job->config, &job->out);
  else
    nccl_fn.ncclCommAbort(job->nc);
  if (job->status != NCORE_OK)
    snprintf(job->message, sizeof job->message, "%s",
             ncore_last_error_message());
  return NULL;
}

ncore_status_t nccl_comm_init_all(void **out, int ndev, const int *devlist,
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
    /* wrap() registers the signal window, a blocking collective: with one
     * thread per communicator every rank reaches it at once (one thread
     * doing them in turn would deadlock on the first). */
    int started = 0;
    for (int i = 0; i < ndev; i++) {
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

/* Ends a split or shrink: the child wrapped, or the error. nc may be set
 * even when r failed. */
static ncore_status_t child_created(nccl_comm_t *parent, ncclResult_t r,
                                    ncclComm_t nc, const core_config_t *config,
                                    const char *what, void **out) {
  ncore_status_t status;
  /* A non-blocking parent stays in progress while NCCL makes the child:
   * its next call waits for that (nccl_comm_check_live). */
  if (parent->nonblocking && parent->nccl != NULL &&
      (r == ncclSuccess || r == ncclInProgress))
    atomic_store(&parent->in_progress, 1);
  if (config_nonblocking(config) && (r == ncclSuccess || r == ncclInProgress) &&
      nc != NULL)
    return wrap(nc, parent->ctx, config, out); /* the child polls its setup */
  if (r == ncclInProgress && nc != NULL)
    status = wait_ready(nc, NULL, config->timeout_ms, what);
  else
    status = nccl_check(r, what, parent->nccl);
  if (status != NCORE_OK) {
    if (nc) nccl_fn.ncclCommAbort(nc);
    return status;
  }
  if (nc == NULL) { /* NCORE_SPLIT_NOCOLOR */
    *out = NULL;
    return NCORE_OK;
  }
  return wrap(nc, parent->ctx, config, out);
}

ncore_status_t nccl_comm_split(void *comm, int color, int key, void **out,
                               const core_config_t *config) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  nccl_config_t cfg;
  status = config_map(config, &cfg);
  if (status != NCORE_OK) return status;
  ncclComm_t nc = NULL;
  ncclResult_t r = nccl_fn.ncclCommSplit(c->nccl, color, key, &nc, &cfg);
  return child_created(c, r, nc, config, "ncclCommSplit", out);
}

ncore_status_t nccl_comm_shrink(void *comm, const int *exclude, int count,
                                void **out, const core_config_t *config,
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
  status = config_map(config, &cfg);
  if (status != NCORE_OK) return status;
  ncclComm_t nc = NULL;
  ncclResult_t r;
  if (count == 0) {
    /* ncclCommShrink refuses an empty exclusion list (ncclInvalidArgument);
     * excluding no one is a copy of the parent: one color, ranks in order. */
    r = nccl_fn.ncclCommSplit(c->nccl, 0, c->rank, &nc, &cfg);
  } else {
    /* NCCL sorts the list in place: give it a copy of the caller's. */
    int *list = malloc((size_t)count * sizeof *list);
    if (list == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
    memcpy(list, exclude, (size_t)count * sizeof *list);
    r = nccl_fn.ncclCommShrink(c->nccl, list, count, &nc, &cfg, (int)flags);
    free(list);
  }
  return child_created(c, r, nc, config,
                       count == 0 ? "ncclCommSplit" : "ncclCommShrink", out);
}

ncore_status_t nccl_comm_grow(void *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              void **out, const core_config_t *config) {
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
  if (status == NCORE_OK) status = config_map(config, &cfg);
  if (status != NCORE_OK) return status;
  ncclUniqueId nid;
  if (id != NULL) memcpy(&nid, id, sizeof nid);
  ncclComm_t nc = NULL;
  ncclResult_t r = nccl_fn.ncclCommGrow(c ? c->nccl : NULL, nranks,
                                        id ? &nid : NULL, rank, &nc, &cfg);
  if (c != NULL) return child_created(c, r, nc, config, "ncclCommGrow", out);
  /* A new rank has no parent: wait for NCCL as a child would. */
  nccl_comm_t orphan = {.nccl = NULL, .ctx = ctx};
  return child_created(&orphan, r, nc, config, "ncclCommGrow", out);
}

ncore_status_t nccl_lsa_comm(nccl_comm_t *c) {
  if (c->lsa_nccl != NULL) return NCORE_OK;
  ncore_status_t status = config_map(NULL, &c->lsa_config);
  if (status != NCORE_OK) return status;
  /* Like its parent: a non-blocking parent's child is non-blocking too,
   * and is waited for here. NCCL writes the handle (and may read the
   * config) after returning, so both live in c, not on this stack. */
  c->lsa_config.blocking = c->nonblocking ? 0 : 1;
  /* Color: the team's first world rank (teams are contiguous blocks). */
  ncclResult_t r = nccl_fn.ncclCommSplit(c->nccl, c->rank - c->lsa_rank,
                                         c->lsa_rank, &c->lsa_nccl,
                                         &c->lsa_config);
  if (r != ncclSuccess && r != ncclInProgress)
    status = nccl_check(r, "ncclCommSplit(LSA team)", c->nccl);
  else if (c->lsa_nccl == NULL)
    status = core_error(NCORE_ERR_INTERNAL,
                        "ncclCommSplit(LSA team) returned no communicator");
  else
    status = wait_ready(c->lsa_nccl, NULL, c->timeout_ms,
                        "ncclCommSplit(LSA team)");
  if (status != NCORE_OK && c->lsa_nccl != NULL) {
    nccl_fn.ncclCommAbort(c->lsa_nccl);
    c->lsa_nccl = NULL;
  }
  return status;
}

ncore_status_t nccl_comm_finalize(void *comm) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  ncclResult_t r = nccl_fn.ncclCommFinalize(c->nccl);
  if (r == ncclInProgress || (r == ncclSuccess && c->nonblocking))
    return wait_ready(c->nccl, c, c->timeout_ms, "ncclCommFinalize");
  return nccl_check(r, "ncclCommFinalize", c->nccl);
}

void nccl_comm_abort_signal(void *comm) {
  nccl_comm_t *c = comm;
  atomic_store(&c->aborted, 1);
  pthread_mutex_lock(&c->abort_lock);
  if (!c->nccl_aborted) {
    CUcontext previous = NULL;
    cu_fn.CtxGetCurrent(&previous);
    if (previous != c->ctx) cu_fn.CtxSetCurrent(c->ctx);
    /* Release stream waits on this rank's signal slots (cuStreamWaitValue64
     * or the spin kernel), which no revoke reaches, and tell the LSA peers
     * (liveness.c). Memory is freed only later, in comm_destroy. */
    nccl_signals_abandon(c);
    if (nccl_fn.ncclCommRevoke != NULL && c->stage == NCCL_STAGE_READY &&
        nccl_env_long("NCORE_NCCL_REVOKE_ON_ABORT", 1) != 0) {
      /* Stops in-flight NCCL operations; the ncclComm_t stays valid until
       * comm_destroy aborts it. Its result does not matter: we abort. */
      (void)nccl_fn.ncclCommRevoke(c->nccl, 0);
    }
    c->nccl_aborted = 1; /* from now on only ncclCommAbort may follow */
    if (previous != c->ctx) cu_fn.CtxSetCurrent(previous);
  }
  pthread_mutex_unlock(&c->abort_lock);
}

/* 1 when the communicator cannot be torn down politely: aborted, failed
 * (ncore's own timeout), NCCL reports an error (a dead peer: ncclCommDestroy
 * would wait for kernels that never end), or its setup never finished. */
static int needs_abort(nccl_comm_t *c, int aborted) {
  if (aborted || atomic_load(&c->aborted) || c->nccl_aborted ||
      atomic_load(&c->failed) != NCORE_OK || c->stage != NCCL_STAGE_READY)
    return 1;
  ncclResult_t state = ncclSuccess;
  if (nccl_fn.ncclCommGetAsyncError(c->nccl, &state) != ncclSuccess) return 1;
  return state != ncclSuccess;
}

void nccl_comm_destroy(void *comm, int aborted) {
  nccl_comm_t *c = comm;
  if (c == NULL) return;
  cu_fn.CtxSetCurrent(c->ctx);
  aborted = needs_abort(c, aborted);
  pthread_mutex_lock(&c->abort_lock);
  /* A communicator that failed (a dead peer, a timeout) may leave a wait
   * for a signal that never comes on a stream: release it as abort does,
   * or the next synchronisation of the device hangs; peers read "aborted".
   * A polite destroy tells the peers this rank left, not died. */
  if (aborted && !c->nccl_aborted) nccl_signals_abandon(c);
  else if (!aborted) nccl_liveness_mark_left(c);
  pthread_mutex_unlock(&c->abort_lock);
  /* Pending helper work (the slots' memset, the state) must finish before
   * the memory it touches is freed. */
  if (c->helper_stream) (void)cu_fn.StreamSynchronize(c->helper_stream);
  if (!aborted) {
    /* Polite teardown: the signal window deregistration is local. */
    nccl_signals_release(c, 0);
    if (c->scratch) nccl_fn.ncclMemFree(c->scratch);
    if (c->lsa_nccl) (void)nccl_fn.ncclCommDestroy(c->lsa_nccl);
    /* Blocking; its result has nowhere to go (destroy cannot fail), and
     * the handle must not be touched after it, even if "in progress". */
    (void)nccl_fn.ncclCommDestroy(c->nccl);
  } else {
    /* ncclCommAbort first: it stops kernels that may still touch the
     * signal window and scratch; then free our memory. */
    nccl_fn.ncclCommAbort(c->nccl);
    if (c->lsa_nccl) nccl_fn.ncclCommAbort(c->lsa_nccl);
    atomic_store(&c->aborted, 1); /* windows went with the communicator */
    nccl_signals_release(c, 1);
    if (c->scratch) nccl_fn.ncclMemFree(c->scratch);
  }
  if (c->helper_stream) cu_fn.StreamDestroy(c->helper_stream);
  pthread_mutex_destroy(&c->abort_lock);
  pthread_mutex_destroy(&c->liveness_lock);
  free(c);
}

void nccl_comm_forget(void *comm) {
  nccl_comm_t *c = comm;
  /* Host memory only: the NCCL communicator, its streams and device memory
   * are the parent's, and CUDA does not work in a fork() child. */
  pthread_mutex_destroy(&c->abort_lock);
  free(c->signals_sent);
  free(c->signals_consumed);
  free(c);
}

void nccl_comm_info(void *comm, core_comm_info_t *out) {
  nccl_comm_t *c = comm;
  out->rank = c->rank;
  out->nranks = c->nranks;
  out->device = c->device;
  out->lsa_rank = c->lsa_rank;
  out->lsa_size = c->lsa_size;
}

ncore_status_t nccl_comm_async_error(void *comm, ncore_status_t *out) {
  nccl_comm_t *c = comm;
  ncore_status_t failed = (ncore_status_t)atomic_load(&c->failed);
  if (failed != NCORE_OK) {
    *out = failed;
    return NCORE_OK;
  }
  if (c->stage != NCCL_STAGE_READY) return advance_setup(c, out);
  ncclResult_t state = ncclSuccess;
  ncore_status_t status = nccl_check(
      nccl_fn.ncclCommGetAsyncError(c->nccl, &state), "ncclCommGetAsyncError",
      c->nccl);
  if (status != NCORE_OK) return status;
  *out = nccl_status_of(state);
  if (state == ncclSuccess && !atomic_load(&c->aborted)) {
    /* Pollers of the asynchronous error (NCCL's way to wait) learn of a
     * dead or aborted peer too; the check runs at most every 100 ms. */
    ncore_status_t peers = nccl_liveness_check(c, now_ms());
    if (peers != NCORE_OK) {
      atomic_store(&c->failed, peers);
      *out = peers;
    }
  }
  if (state != ncclInProgress) atomic_store(&c->in_progress, 0);
  return NCORE_OK;
}

/* How long a synchronisation waits before it looks at its peers. */
#define LIVENESS_AFTER_MS 20

ncore_status_t nccl_comm_synchronize(void *comm, ncore_stream_t stream,
                                     int64_t timeout_ms) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  int64_t start = now_ms(), next_note = start + 5000;
  char what[160];
  snprintf(what, sizeof what, "the work on stream %p of rank %d of %d (NCCL "
           "kernels wait for every peer of their collective or send/recv)",
           (void *)stream, c->rank, c->nranks);
  for (int round = 0;; round++) {
    CUresult q = cu_fn.StreamQuery((CUstream)stream);
    if (q == CUDA_SUCCESS) break;
    if (q != CUDA_ERROR_NOT_READY) return cu_check(q, "cuStreamQuery");
    if (atomic_load(&c->aborted))
      return core_error(NCORE_ERR_CLOSED, "comm: aborted while waiting for "
                        "the stream");
    ncclResult_t state = ncclSuccess;
    status = nccl_check(nccl_fn.ncclCommGetAsyncError(c->nccl, &state),
                        "ncclCommGetAsyncError", c->nccl);
    if (status != NCORE_OK) return status;
    if (state != ncclSuccess && state != ncclInProgress) {
      status = nccl_check(state, "an operation on the stream", c->nccl);
      atomic_store(&c->failed, status);
      return status;
    }
    /* A wait that lasts may be for a peer that died or aborted, which
     * nothing else reports between GPUs of one machine. */
    int64_t now = now_ms();
    if (now - start >= LIVENESS_AFTER_MS) {
      status = nccl_liveness_check(c, now);
      if (status != NCORE_OK) {
        atomic_store(&c->failed, status);
        return status;
      }
    }
    if (timeout_ms >= 0 && now - start > timeout_ms) {
      atomic_store(&c->failed, NCORE_ERR_TIMEOUT);
      return core_error(NCORE_ERR_TIMEOUT,
                        "comm: timed out: the work on the stream did not "
                        "complete within %lld ms (a peer that does not take "
                        "part, or a lost one); abort the communicator",
                        (long long)timeout_ms);
    }
    if ((round & 1023) == 0) note_wait(start, &next_note, what);
    backoff(round);
  }
  return NCORE_OK;
}

/* Groups this thread is inside, and the contexts whose legacy streams must
 * wait for their per-thread streams once the group launched
 * (nccl_join_legacy_stream): a group's operations are enqueued only at
 * ncclGroupEnd. */
#define MAX_GROUP_JOINS 16
static _Thread_local int group_depth;
static _Thread_local CUcontext group_joins[MAX_GROUP_JOINS];
static _Thread_local int group_join_count;

/* Makes ctx's legacy stream wait for its per-thread default stream. */
static ncore_status_t join_now(CUcontext ctx) {
  CUcontext previous = NULL;
  ncore_status_t status = cu_check(cu_fn.CtxGetCurrent(&previous),
                                   "cuCtxGetCurrent");
  if (status == NCORE_OK && previous != ctx)
    status = cu_check(cu_fn.CtxSetCurrent(ctx), "cuCtxSetCurrent");
  CUevent done = NULL;
  if (status == NCORE_OK)
    status = cu_check(cu_fn.EventCreate(&done, CU_EVENT_DISABLE_TIMING),
                      "cuEventCreate");
  if (status == NCORE_OK)
    status = cu_check(cu_fn.EventRecord(done, CU_STREAM_PER_THREAD),
                      "cuEventRecord");
  if (status == NCORE_OK)
    status = cu_check(cu_fn.StreamWaitEvent(CU_STREAM_LEGACY, done, 0),
                      "cuStreamWaitEvent");
  if (done != NULL) (void)cu_fn.EventDestroy(done); /* freed once complete */
  if (previous != ctx) (void)cu_fn.CtxSetCurrent(previous);
  return status;
}

int nccl_stream_is_legacy(cudaStream_t s) {
  return s == NULL || s == (cudaStream_t)CU_STREAM_LEGACY;
}

ncore_status_t nccl_join_legacy_stream(CUcontext ctx) {
  if (group_depth == 0) return join_now(ctx);
  for (int i = 0; i < group_join_count; i++)
    if (group_joins[i] == ctx) return NCORE_OK;
  /* Past the table the implicit synchronisation of a blocking stream with
   * the legacy stream still orders later legacy work after it. */
  if (group_join_count < MAX_GROUP_JOINS) group_joins[group_join_count++] = ctx;
  return NCORE_OK;
}

ncore_status_t nccl_group_start(void) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  status = nccl_check(nccl_fn.ncclGroupStart(), "ncclGroupStart", NULL);
  if (status == NCORE_OK) group_depth++;
  return status;
}

ncore_status_t nccl_group_end(void) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  ncclResult_t r = nccl_fn.ncclGroupEnd();
  if (group_depth > 0) group_depth--;
  if (r == ncclInProgress) status = NCORE_IN_PROGRESS;
  else status = nccl_check(r, "ncclGroupEnd", NULL);
  if (group_depth == 0) {
    for (int i = 0; i < group_join_count; i++) {
      ncore_status_t joined = join_now(group_joins[i]);
      if (status == NCORE_OK) status = joined;
    }
    group_join_count = 0;
  }
  return status;
}
