/* core — whether an MPI library in this process holds the launcher's
 * session: the PMI-1 connection on PMI_FD that MPICH's Hydra gives each rank,
 * or the PMIx client (core_launch_mpi_state). The PMI-1
 * connection is one per process: MPICH's MPI_Init speaks PMI on it and its
 * MPI_Finalize ends it with "cmd=finalize", after which Hydra closes it. So
 * ncore must neither end it under an MPI that will use it (MPI_Finalize then
 * writes into a closed socket: SIGPIPE) nor leave it unended in a
 * process without MPI (Hydra kills the job when a process that spoke PMI
 * exits without finalising). The library is looked for among every loaded
 * object, not only the global scope: Python loads mpi4py's with RTLD_LOCAL.
 * Open MPI never speaks PMI-1 on PMI_FD (under Hydra it is a singleton), so
 * it counts for PMIx only: its MPI_Init fails on a PMIx client that ncore
 * initialised and finalised before it, in the same process. */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "launch.h"

typedef int (*mpi_flag_fn)(int *);
typedef int (*mpi_version_fn)(char *, int *);

typedef struct mpi_found {
  int open_mpi_counts;
  mpi_flag_fn initialized, finalized;
  const char *path;
} mpi_found_t;

/* Whether handle's MPI is one that speaks PMI on PMI_FD; fills *found. */
static int take(void *handle, const char *path, mpi_found_t *found) {
  mpi_flag_fn initialized = (mpi_flag_fn)dlsym(handle, "MPI_Initialized");
  mpi_flag_fn finalized = (mpi_flag_fn)dlsym(handle, "MPI_Finalized");
  mpi_version_fn version = (mpi_version_fn)dlsym(handle, "MPI_Get_library_version");
  if (initialized == NULL || finalized == NULL) return 0;
  /* MPI-3 allows asking the version before MPI_Init. MPICH's longest
   * answer is MPI_MAX_LIBRARY_VERSION_STRING, 8192. */
  static char text[8192];
  int len = 0;
  if (!found->open_mpi_counts && version != NULL && version(text, &len) == 0 &&
      strncmp(text, "Open MPI", 8) == 0)
    return 0;
  found->initialized = initialized;
  found->finalized = finalized;
  found->path = path;
  return 1;
}

static int visit(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0') return 0;
  void *handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == NULL) return 0;
  int done = take(handle, info->dlpi_name, data);
  dlclose(handle);
  return done;
}

core_launch_mpi_t core_launch_mpi_state(int open_mpi_counts,
                                        const char **library) {
  mpi_found_t found = {open_mpi_counts, NULL, NULL, "the program"};
  if (!take(RTLD_DEFAULT, "the program", &found) &&
      dl_iterate_phdr(visit, &found) == 0)
    return CORE_LAUNCH_MPI_ABSENT;
  if (library != NULL) *library = found.path;
  int flag = 0;
  if (found.finalized(&flag) == 0 && flag) return CORE_LAUNCH_MPI_FINALIZED;
  flag = 0;
  if (found.initialized(&flag) == 0 && flag) return CORE_LAUNCH_MPI_ACTIVE;
  return CORE_LAUNCH_MPI_LOADED;
}
