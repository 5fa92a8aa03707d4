/* core — the unique id through the launcher's PMIx server (Open MPI's
 * mpirun, Slurm's srun --mpi=pmix, PRRTE): rank 0 puts it under a key,
 * commits, every rank fences, the others get it. libpmix is loaded at run
 * time (dlopen), so libncore has no link-time dependency on it and loads
 * where it is absent. The few types used mirror PMIx's stable ABI
 * (pmix_common.h of PMIx 3 to 5: pmix_proc_t, pmix_value_t). */
#include <dlfcn.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "launch.h"
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

#define PMIX_MIRROR_SUCCESS 0
#define PMIX_MIRROR_STRING 3
#define PMIX_MIRROR_BYTE_OBJECT 27
#define PMIX_MIRROR_GLOBAL 3

typedef struct pmix_api {
  int (*init)(pmix_proc_mirror_t *, void *, size_t);
  int (*put)(uint8_t, const char *, pmix_value_mirror_t *);
  int (*commit)(void);
  int (*fence)(const pmix_proc_mirror_t *, size_t, const void *, size_t);
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
  *(void **)&api.fence = dlsym(lib, "PMIx_Fence");
  *(void **)&api.get = dlsym(lib, "PMIx_Get");
  *(void **)&api.finalize = dlsym(lib, "PMIx_Finalize");
  *(void **)&api.value_free = dlsym(lib, "PMIx_Value_free");
  *(void **)&api.error_string = dlsym(lib, "PMIx_Error_string");
  if (!api.init || !api.put || !api.commit || !api.fence || !api.get ||
      !api.finalize) {
    snprintf(api.why, sizeof api.why, "libpmix lacks PMIx_Init, PMIx_Put, "
             "PMIx_Commit, PMIx_Fence, PMIx_Get or PMIx_Finalize");
    return;
  }
  api.ready = 1;
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

/* The others: rank 0's value of key. */
static ncore_status_t get_id(const char *key, ncore_unique_id_t *id) {
  pmix_proc_mirror_t root = api.self;
  root.rank = 0;
  pmix_value_mirror_t *value = NULL;
  int rc = api.get(&root, key, NULL, 0, &value);
  if (rc != PMIX_MIRROR_SUCCESS || value == NULL)
    return pmix_failed("PMIx_Get of rank 0's id", rc);
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
                                      const char *key, ncore_unique_id_t *id) {
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
  /* A client for this exchange only: PMIx counts its initialisations, and
   * a launcher takes a process that initialised PMIx and exits without
   * finalising it for a failure (Open MPI then stops the whole job). */
  int rc = api.init(&api.self, NULL, 0);
  if (rc != PMIX_MIRROR_SUCCESS) {
    return core_error(NCORE_ERR_UNAVAILABLE, "%s: PMIx_Init failed: %s (%d)",
                      launch->launcher,
                      api.error_string ? api.error_string(rc) : "?", rc);
  }
  core_log(CORE_LOG_INFO, "PMIx client: namespace %s, rank %u",
           api.self.nspace, api.self.rank);
  ncore_status_t s = NCORE_OK;
  if (launch->rank == 0) s = put_id(key, id);
  /* Every rank fences: rank 0's value is committed before anyone gets it. */
  if (s == NCORE_OK) {
    rc = api.fence(NULL, 0, NULL, 0);
    if (rc != PMIX_MIRROR_SUCCESS) s = pmix_failed("PMIx_Fence", rc);
  }
  if (s == NCORE_OK && launch->rank != 0) s = get_id(key, id);
  api.finalize(NULL, 0);
  return s;
}
