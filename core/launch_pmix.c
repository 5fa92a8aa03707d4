/* core — the unique id through the launcher's PMIx server (Open MPI's
 * mpirun, Slurm's srun --mpi=pmix, PRRTE): rank 0 puts it under a key and
 * commits; the others get it, each get bounded by the communicator's
 * timeout (PMIX_TIMEOUT). No fence: a get of another process's key waits
 * in the PMIx server until that process commits it, so only rank 0 is
 * awaited, and a missing rank 0 is named when the timeout ends (a fence
 * would wait for every rank with nothing to say who is missing, and Open
 * MPI ends the whole job, silently, when a rank that never joined exits
 * during a fence). A rank other than 0 that is missing is named by the
 * backend's own join. libpmix is loaded at run time (dlopen), so libncore
 * has no link-time dependency on it and loads where it is absent. The few
 * types used mirror PMIx's stable ABI (pmix_common.h of PMIx 3 to 5:
 * pmix_proc_t, pmix_value_t, pmix_info_t). */
#include <dlfcn.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "launch.h"
#include "launch_socket.h"
#include "log.h"

/* pmix_proc_t: namespace of PMIX_MAX_NSLEN + 1 bytes, then the rank. */
typedef struct pmix_proc_mirror {
  char nspace[256];
  uint32_t rank;
} pmix_proc_mirror_t;

/* pmix_value_t: a uint16 type, then a union whose members start at 8; the
 * padding covers its largest member (24 bytes in PMIx 5). */
typedef struct pmix_value_mirror {
  uint16_t type;
  union {
    char *string;
    struct { char *bytes; size_t size; } bo;
    char pad[64];
  } data;
} pmix_value_mirror_t;

/* pmix_info_t: a key of PMIX_MAX_KEYLEN + 1 bytes, uint32 directives, then
 * a pmix_value_t of exactly 32 bytes (its union: 24), as in an array of
 * them. */
typedef struct pmix_info_mirror {
  char key[512];
  uint32_t flags;
  struct {
    uint16_t type;
    union {
      int32_t integer;
      _Bool flag;
      void *pointer;  /* aligns the union as PMIx's */
      char pad[24];
    } data;
  } value;
} pmix_info_mirror_t;

_Static_assert(sizeof(pmix_info_mirror_t) == 552, "pmix_info_t is 552 bytes");

#define PMIX_MIRROR_SUCCESS 0
#define PMIX_MIRROR_ERR_TIMEOUT (-24)
#define PMIX_MIRROR_ERR_NOT_FOUND (-46)
#define PMIX_MIRROR_BOOL 1
#define PMIX_MIRROR_STRING 3
#define PMIX_MIRROR_INT 6
#define PMIX_MIRROR_BYTE_OBJECT 27
#define PMIX_MIRROR_GLOBAL 3

typedef struct pmix_api {
  int (*init)(pmix_proc_mirror_t *, void *, size_t);
  int (*put)(uint8_t, const char *, pmix_value_mirror_t *);
  int (*commit)(void);
  int (*get)(const pmix_proc_mirror_t *, const char *, const void *, size_t,
             pmix_value_mirror_t **);
  int (*finalize)(const void *, size_t);
  void (*value_free)(pmix_value_mirror_t *, size_t); /* PMIx 4+ */
  const char *(*error_string)(int);
  pmix_proc_mirror_t self;
  int ready;          /* 1: initialised; -1: failed (why says it) */
  char why[256];
} pmix_api_t;

static pmix_api_t api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* Loads libpmix, once: NCORE_PMIX_LIBRARY when set (that file only), else
 * libpmix.so.2 through the loader's path. */
static void pmix_load(void) {
  api.ready = -1;
  const char *chosen = getenv("NCORE_PMIX_LIBRARY");
  void *lib = NULL;
  if (chosen != NULL && chosen[0] != '\0') {
    lib = dlopen(chosen, RTLD_NOW | RTLD_GLOBAL);
  } else {
    lib = dlopen("libpmix.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL) lib = dlopen("libpmix.so", RTLD_NOW | RTLD_GLOBAL);
  }
  if (lib == NULL) {
    snprintf(api.why, sizeof api.why, "%s cannot be loaded (%s; install "
             "libpmix2, or set NCORE_PMIX_LIBRARY to the launcher's libpmix)",
             chosen != NULL && chosen[0] != '\0' ? chosen : "libpmix.so.2",
             dlerror());
    return;
  }
  *(void **)&api.init = dlsym(lib, "PMIx_Init");
  *(void **)&api.put = dlsym(lib, "PMIx_Put");
  *(void **)&api.commit = dlsym(lib, "PMIx_Commit");
  *(void **)&api.get = dlsym(lib, "PMIx_Get");
  *(void **)&api.finalize = dlsym(lib, "PMIx_Finalize");
  *(void **)&api.value_free = dlsym(lib, "PMIx_Value_free");
  *(void **)&api.error_string = dlsym(lib, "PMIx_Error_string");
  if (!api.init || !api.put || !api.commit || !api.get || !api.finalize) {
    snprintf(api.why, sizeof api.why, "libpmix lacks PMIx_Init, PMIx_Put, "
             "PMIx_Commit, PMIx_Get or PMIx_Finalize");
    return;
  }
  api.ready = 1;
}

/* The reference kept for an MPI still to initialise, released at exit
 * (after MPI_Finalize, which releases MPI's own). Kept once: every later
 * exchange's init and finalize pair up above it. */
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;

static void finalize_at_exit(void) { api.finalize(NULL, 0); }

static void keep_until_exit(void) {
  if (api.init(&api.self, NULL, 0) == PMIX_MIRROR_SUCCESS) atexit(finalize_at_exit);
}

/* A failed PMIx call as an ncore error. */
static ncore_status_t pmix_failed(const char *call, int rc) {
  return core_error(NCORE_ERR_REMOTE, "%s failed: %s (%d)", call,
                    api.error_string ? api.error_string(rc) : "?", rc);
}

/* Rank 0: the id under key, committed for the others. */
static ncore_status_t put_id(const char *key, const ncore_unique_id_t *id) {
  pmix_value_mirror_t value;
  memset(&value, 0, sizeof value);
  value.type = PMIX_MIRROR_BYTE_OBJECT;
  value.data.bo.bytes = (char *)id->internal;
  value.data.bo.size = sizeof id->internal;
  int rc = api.put(PMIX_MIRROR_GLOBAL, key, &value);
  if (rc != PMIX_MIRROR_SUCCESS) return pmix_failed("PMIx_Put", rc);
  rc = api.commit();
  if (rc != PMIX_MIRROR_SUCCESS) return pmix_failed("PMIx_Commit", rc);
  return NCORE_OK;
}

/* One bounded PMIx_Get of rank 0's key: waits at most seconds (>= 1) in
 * the server; refresh: ask the server again rather than the client's cache
 * (a key not found once is cached as missing). */
static int get_once(const char *key, int seconds, int refresh,
                    pmix_value_mirror_t **value) {
  pmix_proc_mirror_t root = api.self;
  root.rank = 0;
  pmix_info_mirror_t info[2];
  memset(info, 0, sizeof info);
  strcpy(info[0].key, "pmix.timeout");          /* PMIX_TIMEOUT */
  info[0].value.type = PMIX_MIRROR_INT;
  info[0].value.data.integer = seconds;
  strcpy(info[1].key, "pmix.get.refresh");      /* PMIX_GET_REFRESH_CACHE */
  info[1].value.type = PMIX_MIRROR_BOOL;
  info[1].value.data.flag = 1;
  return api.get(&root, key, info, refresh ? 2 : 1, value);
}

/* The others: rank 0's value of key, awaited until deadline (CLOCK_MONOTONIC
 * ms, < 0: none) in gets of at most a second, so the wait can say what it
 * waits for. A get may answer "not found" at once while rank 0 is between
 * its put and its commit, or for a later communicator's key once rank 0
 * committed an earlier one: that is retried too. */
static ncore_status_t get_id(const core_launch_t *launch, const char *key,
                             int64_t deadline, ncore_unique_id_t *id) {
  core_wait_note_t note;
  core_wait_note_start(&note, "ncore_comm_init_from_env");
  int64_t start = core_socket_now_ms();
  pmix_value_mirror_t *value = NULL;
  int rc = PMIX_MIRROR_ERR_NOT_FOUND, refresh = 0;
  for (;;) {
    int64_t left = deadline < 0 ? 1000 : deadline - core_socket_now_ms();
    if (left <= 0) break;
    value = NULL;
    rc = get_once(key, 1, refresh, &value);
    if (rc == PMIX_MIRROR_SUCCESS && value != NULL) break;
    if (rc != PMIX_MIRROR_ERR_TIMEOUT && rc != PMIX_MIRROR_ERR_NOT_FOUND)
      return pmix_failed("PMIx_Get of rank 0's id", rc);
    refresh = 1;
    core_wait_note_check(&note, deadline, "rank 0 to publish the unique id "
                         "(%s) through %s's PMIx server", key,
                         launch->launcher);
    if (rc == PMIX_MIRROR_ERR_NOT_FOUND) {
      struct timespec pause = {0, 10 * 1000000L};
      nanosleep(&pause, NULL);
    }
  }
  if (rc != PMIX_MIRROR_SUCCESS || value == NULL)
    return core_error(NCORE_ERR_TIMEOUT,
                      "%s: rank 0 did not publish the unique id (%s) through "
                      "PMIx within %lld ms: rank 0 is missing (not started, "
                      "exited before ncore_comm_init_from_env, or still "
                      "busy before it)", launch->launcher, key,
                      (long long)(core_socket_now_ms() - start));
  ncore_status_t s = NCORE_OK;
  if (value->type != PMIX_MIRROR_BYTE_OBJECT ||
      value->data.bo.size != sizeof id->internal)
    s = core_error(NCORE_ERR_REMOTE, "PMIx_Get: rank 0's %s is not a unique id "
                   "(type %u)", key, (unsigned)value->type);
  else
    memcpy(id->internal, value->data.bo.bytes, sizeof id->internal);
  if (api.value_free != NULL) api.value_free(value, 1);
  return s;
}

ncore_status_t core_launch_pmix_share(const core_launch_t *launch,
                                      const char *key, int64_t timeout_ms,
                                      ncore_unique_id_t *id) {
  if (getenv("PMIX_NAMESPACE") == NULL)
    return core_error(NCORE_ERR_UNAVAILABLE,
                      "%s started this rank without a PMIx server "
                      "(PMIX_NAMESPACE is not set), so rank 0's unique id "
                      "cannot reach it%s", launch->launcher,
                      strcmp(launch->launcher, "Slurm") == 0
                          ? ": run srun --mpi=pmix (or MpiDefault=pmix)"
                          : "");
  pthread_once(&api_once, pmix_load);
  if (api.ready != 1)
    return core_error(NCORE_ERR_UNAVAILABLE,
                      "%s: the id travels through PMIx, but %s",
                      launch->launcher, api.why);
  int64_t deadline = timeout_ms < 0 ? -1 : core_socket_now_ms() + timeout_ms;
  /* A client for this exchange only: PMIx counts its initialisations, and
   * a launcher takes a process that initialised PMIx and exits without
   * finalising it for a failure (Open MPI then stops the whole job). What
   * rank 0 committed stays with the server after it finalises. But an MPI
   * whose MPI_Init is still to come fails on a client that was finalised
   * in this process (Open MPI: "An error occurred in MPI_Init"), so there
   * ncore's reference is kept until exit, when MPI has taken its own. */
  core_launch_mpi_t mpi = core_launch_mpi_state(1, NULL);
  int rc = api.init(&api.self, NULL, 0);
  if (rc != PMIX_MIRROR_SUCCESS) {
    return core_error(NCORE_ERR_UNAVAILABLE, "%s: PMIx_Init failed: %s (%d)",
                      launch->launcher,
                      api.error_string ? api.error_string(rc) : "?", rc);
  }
  core_log(CORE_LOG_INFO, "PMIx client: namespace %s, rank %u",
           api.self.nspace, api.self.rank);
  ncore_status_t s = launch->rank == 0 ? put_id(key, id)
                                       : get_id(launch, key, deadline, id);
  if (mpi == CORE_LAUNCH_MPI_LOADED) pthread_once(&kept_once, keep_until_exit);
  api.finalize(NULL, 0);
  return s;
}
