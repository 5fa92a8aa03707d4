/* Unit tests: ncore_library_info (ncore/info.h) and ncore_comm_init_from_env
 * (ncore/launch.h). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/launch_vars.h"

TEST(library_info_describes_the_library) {
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  CHECK_OK(ncore_library_info(&info));
  CHECK(info.struct_size == sizeof info);
  CHECK(info.abi_version == ncore_abi_version());
  CHECK(strcmp(info.version, ncore_version_string()) == 0);
  ncore_backend_t resolved;
  CHECK_OK(ncore_backend_resolve(NCORE_BACKEND_AUTO, &resolved));
  CHECK(info.backend == (int32_t)resolved);
  CHECK(info.backend_reason[0] != '\0');
  if (resolved == NCORE_BACKEND_HOST) {
    /* The host backend implements every call. */
    CHECK(info.features ==
          (NCORE_FEATURE_ONE_SIDED | NCORE_FEATURE_REVOKE | NCORE_FEATURE_GROW |
           NCORE_FEATURE_SUSPEND | NCORE_FEATURE_MEM_STAT |
           NCORE_FEATURE_SCALABLE_INIT));
  } else {
    /* Every supported NCCL (2.28+) has windows, so ncore's own path. */
    CHECK(info.features & NCORE_FEATURE_ONE_SIDED);
    CHECK(info.nccl_version >= 22800);
    CHECK(info.nccl_path[0] != '\0');
    CHECK(info.cuda_device_count >= 1);
  }
  /* A libnccl is named exactly when its version is known. */
  CHECK((info.nccl_version == 0) == (info.nccl_path[0] == '\0'));
}

TEST(library_info_says_why_the_backend) {
  const char *saved = getenv("NCORE_BACKEND");
  char *copy = saved ? strdup(saved) : NULL;
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  setenv("NCORE_BACKEND", "host", 1);
  CHECK_OK(ncore_library_info(&info));
  CHECK(info.backend == NCORE_BACKEND_HOST);
  CHECK(strcmp(info.backend_reason, "NCORE_BACKEND=host") == 0);
  /* A wrong NCORE_BACKEND is described, not failed. */
  setenv("NCORE_BACKEND", "gpu", 1);
  CHECK_OK(ncore_library_info(&info));
  CHECK(info.backend == NCORE_BACKEND_AUTO);
  CHECK(info.features == 0);
  CHECK(strstr(info.backend_reason, "NCORE_BACKEND=\"gpu\" names no backend") != NULL);
  CHECK(ncore_last_error_status() == NCORE_OK);
  if (copy) setenv("NCORE_BACKEND", copy, 1); else unsetenv("NCORE_BACKEND");
  free(copy);
}

TEST(library_info_rejects_bad_struct) {
  CHECK_STATUS(ncore_library_info(NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_library_info: out");
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  info.struct_size = 4;
  CHECK_STATUS(ncore_library_info(&info), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
}

/* Sets the launcher's variables for a one-rank job with a fresh id. */
static void set_launch_env(const char *rank, const char *nranks) {
  ncore_unique_id_t id;
  char hex[CORE_LAUNCH_ID_HEX_CHARS + 1];
  CHECK_OK(ncore_get_unique_id(&id, harness_backend()));
  core_launch_id_encode(&id, hex);
  setenv("NCORE_UNIQUE_ID", hex, 1);
  setenv("NCORE_RANK", rank, 1);
  setenv("NCORE_NRANKS", nranks, 1);
}

TEST(comm_init_from_env_makes_the_rank) {
  set_launch_env("0", "1");
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_init_from_env(&comm, NULL));
  int rank = -1, size = -1;
  CHECK_OK(ncore_comm_rank(comm, &rank));
  CHECK_OK(ncore_comm_size(comm, &size));
  CHECK(rank == 0 && size == 1);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Clears every launcher's variables (core/launch_env.c's table). */
static void clear_launchers(void) {
  static const char *names[] = {
      "NCORE_RANK", "NCORE_NRANKS", "NCORE_LOCAL_RANK", "NCORE_UNIQUE_ID",
      "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
      "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI_FD", "PMIX_NAMESPACE",
      "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_STEP_ID",
      "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
      "TORCHELASTIC_USE_AGENT_STORE"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
}

TEST(comm_init_from_env_names_the_bad_variable) {
  ncore_comm_t comm = 7;
  clear_launchers();
  CHECK_STATUS(ncore_comm_init_from_env(NULL, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_init_from_env: out");
  set_launch_env("1", "1");
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("NCORE_RANK: 1 is out of range [0, 1)");
  CHECK(comm == NCORE_NULL_HANDLE);
  set_launch_env("0", "x");
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("NCORE_NRANKS");
  set_launch_env("0", "1");
  setenv("NCORE_UNIQUE_ID", "abc", 1);
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("NCORE_UNIQUE_ID: missing or not 256 hex characters");
  clear_launchers();
  setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("OMPI_COMM_WORLD_SIZE: missing");
  clear_launchers();
  setenv("SLURM_PROCID", "3", 1);
  setenv("SLURM_NTASKS", "2", 1);
  setenv("SLURM_STEP_ID", "0", 1);
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("SLURM_PROCID: 3 is out of range [0, 2)");
  clear_launchers();
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "2", 1);
  setenv("LOCAL_RANK", "-1", 1);
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("LOCAL_RANK: -1 is not a non-negative integer");
  clear_launchers();
}

/* No launcher: a job of one rank (an MPI or torch program run alone). */
TEST(comm_init_from_env_without_a_launcher_is_one_rank) {
  clear_launchers();
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_init_from_env(&comm, NULL));
  int rank = -1, size = -1;
  CHECK_OK(ncore_comm_rank(comm, &rank));
  CHECK_OK(ncore_comm_size(comm, &size));
  CHECK(rank == 0 && size == 1);
  CHECK_OK(ncore_comm_destroy(comm));
  /* A launcher's job of one rank needs no exchange either. */
  setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
  CHECK_OK(ncore_comm_init_from_env(&comm, NULL));
  CHECK_OK(ncore_comm_destroy(comm));
  clear_launchers();
}

/* A launcher that offers nothing ncore can use says what it looked for. */
TEST(comm_init_from_env_names_what_the_launcher_lacks) {
  clear_launchers();
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  setenv("SLURM_PROCID", "1", 1);
  setenv("SLURM_NTASKS", "2", 1);
  setenv("SLURM_STEP_ID", "0", 1);
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_UNAVAILABLE);
  CHECK_MESSAGE_CONTAINS("srun --mpi=pmix");
  clear_launchers();
  setenv("PMI_RANK", "1", 1);
  setenv("PMI_SIZE", "2", 1);
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_UNAVAILABLE);
  CHECK_MESSAGE_CONTAINS("PMI_FD");
  clear_launchers();
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "2", 1);
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_UNAVAILABLE);
  CHECK_MESSAGE_CONTAINS("MASTER_ADDR");
  clear_launchers();
}

HARNESS_MAIN
