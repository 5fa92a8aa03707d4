/* core/nccl — communicator lifecycle: unique ids, init (rank / all), split,
 * shrink, finalize, abort, destroy, queries, groups.
 *
 * Abort protocol (thread safety). comm_abort_signal may run on any thread
 * while another thread is inside a call on the same communicator, so it must
 * free nothing: it sets `aborted` (every later ncore call on the comm answers
 * NCORE_ERR_CLOSED, and ncore's own wait loops poll the flag) and, once,
 * under abort_lock, calls ncclCommRevoke, which stops NCCL's in-flight work
 * and leaves the ncclComm_t valid. Only comm_destroy (no call running, by the
 * core's contract) calls ncclCommAbort (aborted) or ncclCommDestroy, which
 * free the ncclComm_t. So no NCCL object is ever freed under a running call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../error.h"
#include "nccl_internal.h"
#include "nccl_ops.h"

/* Maps the validated ncore config to ncclConfig_t (field for field). */
static void config_map(const core_config_t *config, ncclConfig_t *out) {
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
  if (config != NULL) {
    const ncore_comm_config_t *u = &config->user;
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
#undef COPY_INT
    if (u->net_name != NULL) cfg.netName = u->net_name;
    if (u->comm_name != NULL) cfg.commName = u->comm_name;
  }
  *out = cfg;
}

/* Sleeps about a millisecond (polling loops). */
static void nap(void) {
  struct timespec ts = {0, 1000000};
  nanosleep(&ts, NULL);
}

/* Waits until a non-blocking communicator leaves ncclInProgress, honouring
 * the timeout and the abort flag. `c` may be NULL during init. */
static ncore_status_t wait_ready(ncclComm_t comm, nccl_comm_t *c,
                                 int64_t timeout_ms, const char *what) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    ncclResult_t state = ncclSuccess;
    ncore_status_t status = nccl_check(
        nccl_fn.ncclCommGetAsyncError(comm, &state), "ncclCommGetAsyncError",
        comm);
    if (status != NCORE_OK) return status;
    if (state != ncclInProgress) return nccl_check(state, what, comm);
    if (c != NULL && atomic_load(&c->aborted))
      return core_error(NCORE_ERR_CLOSED, "comm: aborted while waiting for %s",
                        what);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (now.tv_sec - start.tv_sec) * 1000 +
                 (now.tv_nsec - start.tv_nsec) / 1000000;
    if (timeout_ms >= 0 && ms > timeout_ms)
      return core_error(NCORE_ERR_TIMEOUT, "comm: %s did not complete within "
                        "%lld ms", what, (long long)timeout_ms);
    nap();
  }
}

/* Runs an NCCL call's result through wait_ready when it is in progress. */
static ncore_status_t finish(ncclResult_t r, ncclComm_t comm, nccl_comm_t *c,
                             int64_t timeout_ms, const char *what) {
  if (r == ncclInProgress && comm != NULL)
    return wait_ready(comm, c, timeout_ms, what);
  return nccl_check(r, what, comm);
}

ncore_status_t nccl_settle(ncclResult_t r, nccl_comm_t *c, const char *what) {
  return finish(r, c->nccl, c, core_timeout_resolve(0), what);
}

ncore_status_t nccl_comm_check_live(nccl_comm_t *c) {
  if (atomic_load(&c->aborted))
    return core_error(NCORE_ERR_CLOSED, "comm: the communicator was aborted");
  return NCORE_OK;
}

/* Wraps a fresh ncclComm_t: queries, LSA team, helper stream, scratch and
 * the signal window (collective, which is why it happens here, where every
 * rank is). On failure the ncclComm_t is aborted and freed. */
static ncore_status_t wrap(ncclComm_t nc, CUcontext ctx,
                           const core_config_t *config, void **out) {
  nccl_comm_t *c = calloc(1, sizeof *c);
  ncore_status_t status = c ? NCORE_OK
                            : core_error(NCORE_ERR_SYSTEM, "out of memory");
  if (status != NCORE_OK) {
    nccl_fn.ncclCommAbort(nc);
    return status;
  }
  c->nccl = nc;
  c->ctx = ctx;
  atomic_init(&c->aborted, 0);
  pthread_mutex_init(&c->abort_lock, NULL);
  status = nccl_check(nccl_fn.ncclCommUserRank(nc, &c->rank),
                      "ncclCommUserRank", nc);
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclCommCount(nc, &c->nranks), "ncclCommCount",
                        nc);
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclCommCuDevice(nc, &c->device),
                        "ncclCommCuDevice", nc);
  /* Provisional LSA team (the whole world: an upper bound that sizes the
   * signal window's caches); the real one is read after the window exists. */
  c->lsa_rank = c->rank;
  c->lsa_size = c->nranks;
  if (status == NCORE_OK)
    status = cu_check(cu_fn.StreamCreate(&c->helper_stream,
                                         CU_STREAM_NON_BLOCKING),
                      "cuStreamCreate");
  if (status == NCORE_OK)
    status = nccl_check(nccl_fn.ncclMemAlloc(&c->scratch,
                                             8 * (2 * (size_t)c->nranks + 1)),
                        "ncclMemAlloc", nc);
  if (status == NCORE_OK) status = nccl_signals_setup(c);
  if (status == NCORE_OK) {
    /* ncclTeamLsa initialises NCCL's device-runtime state on first use (the
     * window registration above already did) and returns an empty team if
     * that failed. */
    struct nccl_team lsa = nccl_fn.ncclTeamLsa(nc);
    if (lsa.nRanks <= 0 || lsa.rank < 0 || lsa.rank >= lsa.nRanks ||
        lsa.nRanks > c->nranks)
      status = core_error(NCORE_ERR_INTERNAL,
                          "ncclTeamLsa returned an invalid team (rank %d of "
                          "%d): NCCL's device runtime did not initialise",
                          lsa.rank, lsa.nRanks);
    c->lsa_rank = lsa.rank;
    c->lsa_size = lsa.nRanks;
  }
  (void)config;
  if (status != NCORE_OK) {
    ncore_status_t keep = status;
    c->aborted = 1;
    nccl_signals_release(c);
    if (c->scratch) nccl_fn.ncclMemFree(c->scratch);
    if (c->helper_stream) cu_fn.StreamDestroy(c->helper_stream);
    nccl_fn.ncclCommAbort(nc);
    pthread_mutex_destroy(&c->abort_lock);
    free(c);
    return keep;
  }
  *out = c;
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

ncore_status_t nccl_comm_init_rank(void **out, int nranks,
                                   const ncore_unique_id_t *id, int rank,
                                   const core_config_t *config) {
  CUcontext ctx = NULL;
  ncore_status_t status = nccl_device_enter(config->user.device, NULL, &ctx);
  if (status != NCORE_OK) return status;
  ncclConfig_t cfg;
  config_map(config, &cfg);
  ncclUniqueId nid;
  memcpy(&nid, id, sizeof nid);
  ncclComm_t nc = NULL;
  ncclResult_t r = nccl_fn.ncclCommInitRankConfig(&nc, nranks, nid, rank, &cfg);
  status = finish(r, nc, NULL, config->timeout_ms, "ncclCommInitRankConfig");
  if (status != NCORE_OK) {
    if (nc != NULL) nccl_fn.ncclCommAbort(nc);
    return status;
  }
  return wrap(nc, ctx, config, out);
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
      jobs[i].config = config;
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

ncore_status_t nccl_comm_split(void *comm, int color, int key, void **out,
                               const core_config_t *config) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  ncclConfig_t cfg;
  config_map(config, &cfg);
  ncclComm_t nc = NULL;
  ncclResult_t r = nccl_fn.ncclCommSplit(c->nccl, color, key, &nc, &cfg);
  status = finish(r, nc ? nc : c->nccl, c, config->timeout_ms, "ncclCommSplit");
  if (status != NCORE_OK) {
    if (nc) nccl_fn.ncclCommAbort(nc);
    return status;
  }
  if (nc == NULL) { /* NCORE_SPLIT_NOCOLOR */
    *out = NULL;
    return NCORE_OK;
  }
  return wrap(nc, c->ctx, config, out);
}

ncore_status_t nccl_comm_shrink(void *comm, const int *exclude, int count,
                                void **out, const core_config_t *config,
                                uint32_t flags) {
  nccl_comm_t *c = comm;
  /* NCORE_SHRINK_ABORT is for a parent in trouble: allow an aborted one. */
  if (!(flags & NCORE_SHRINK_ABORT)) {
    ncore_status_t live = nccl_comm_check_live(c);
    if (live != NCORE_OK) return live;
  }
  ncore_status_t status = cu_check(cu_fn.CtxSetCurrent(c->ctx),
                                   "cuCtxSetCurrent");
  if (status != NCORE_OK) return status;
  ncclConfig_t cfg;
  config_map(config, &cfg);
  ncclComm_t nc = NULL;
  ncclResult_t r = nccl_fn.ncclCommShrink(c->nccl, (int *)exclude, count, &nc,
                                          &cfg, (int)flags);
  status = finish(r, nc ? nc : c->nccl, NULL, config->timeout_ms,
                  "ncclCommShrink");
  if (status != NCORE_OK) {
    if (nc) nccl_fn.ncclCommAbort(nc);
    return status;
  }
  return wrap(nc, c->ctx, config, out);
}

ncore_status_t nccl_comm_finalize(void *comm) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  ncclResult_t r = nccl_fn.ncclCommFinalize(c->nccl);
  return finish(r, c->nccl, c, core_timeout_resolve(0), "ncclCommFinalize");
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
     * or the spin kernel), which no revoke reaches: fill the slots with
     * 0x7f.. bytes, a count above any expected one. Data after such a wait
     * is meaningless, but the stream no longer hangs; the communicator
     * answers NCORE_ERR_CLOSED from now on. Memory is freed only later, in
     * comm_destroy. */
    if (c->signal_slots != NULL)
      (void)cu_fn.MemsetD8Async((CUdeviceptr)(uintptr_t)c->signal_slots, 0x7f,
                                8 * (size_t)c->nranks, c->helper_stream);
    if (nccl_fn.ncclCommRevoke != NULL &&
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

void nccl_comm_destroy(void *comm, int aborted) {
  nccl_comm_t *c = comm;
  if (c == NULL) return;
  cu_fn.CtxSetCurrent(c->ctx);
  aborted = aborted || atomic_load(&c->aborted) || c->nccl_aborted;
  /* Pending helper work (abort's slot memset) must finish before the
   * memory it touches is freed. */
  if (c->helper_stream) (void)cu_fn.StreamSynchronize(c->helper_stream);
  if (!aborted) {
    /* Polite teardown: the signal window deregistration is local. */
    nccl_signals_release(c);
    if (c->scratch) nccl_fn.ncclMemFree(c->scratch);
    /* Blocking; its result has nowhere to go (destroy cannot fail), and
     * the handle must not be touched after it, even if "in progress". */
    (void)nccl_fn.ncclCommDestroy(c->nccl);
  } else {
    /* ncclCommAbort first: it stops kernels that may still touch the
     * signal window and scratch; then free our memory. */
    nccl_fn.ncclCommAbort(c->nccl);
    atomic_store(&c->aborted, 1); /* windows went with the communicator */
    nccl_signals_release(c);
    if (c->scratch) nccl_fn.ncclMemFree(c->scratch);
  }
  if (c->helper_stream) cu_fn.StreamDestroy(c->helper_stream);
  pthread_mutex_destroy(&c->abort_lock);
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
  ncclResult_t state = ncclSuccess;
  ncore_status_t status = nccl_check(
      nccl_fn.ncclCommGetAsyncError(c->nccl, &state), "ncclCommGetAsyncError",
      c->nccl);
  if (status != NCORE_OK) return status;
  *out = (state >= ncclSuccess && state <= ncclInProgress)
             ? (ncore_status_t)state
             : NCORE_ERR_INTERNAL;
  return NCORE_OK;
}

ncore_status_t nccl_comm_gin_types(void *comm, ncore_gin_type_t *gin,
                                   ncore_gin_type_t *railed) {
  nccl_comm_t *c = comm;
  /* 2.28.9 has no host GIN query: the types are what ncclDevCommCreate
   * reported in ncclDevComm.ginTypes[] for this communicator's latest
   * device communicator (NONE before any). */
  *gin = c->gin_type;
  *railed = c->railed_gin_type;
  return NCORE_OK;
}

ncore_status_t nccl_group_start(void) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  return nccl_check(nccl_fn.ncclGroupStart(), "ncclGroupStart", NULL);
}

ncore_status_t nccl_group_end(void) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  ncclResult_t r = nccl_fn.ncclGroupEnd();
  if (r == ncclInProgress) return NCORE_IN_PROGRESS;
  return nccl_check(r, "ncclGroupEnd", NULL);
}
