/* Unit tests: ncore_library_info (ncore/info.h) and ncore_comm_init_from_env
 * (ncore/launch.h). */
#include <stdio.h>
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
  /* ABI 1.2: the newest NCCL ncore knows (2.30.7 or later), and a CUDA
   * version only for a loaded libnccl. */
  CHECK(info.nccl_headers_version >= 23007);
  if (info.nccl_version == 0) CHECK_EQ(info.nccl_cuda_version, 0);
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

/* ncore_comm_init_from_env makes rank 0 of a job of one rank. */
static void check_one_rank_job(void) {
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_init_from_env(&comm, NULL));
  int rank = -1, size = -1;
  CHECK_OK(ncore_comm_rank(comm, &rank));
  CHECK_OK(ncore_comm_size(comm, &size));
  CHECK(rank == 0 && size == 1);
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(comm_init_from_env_makes_the_rank) {
  set_launch_env("0", "1");
  check_one_rank_job();
}

/* Clears every launcher's variables (core_launchers, core/launch_vars.h). */
static void clear_launchers(void) {
  static const char *names[] = {
      "NCORE_RANK", "NCORE_NRANKS", "NCORE_LOCAL_RANK", "NCORE_UNIQUE_ID",
      "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
      "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI_FD", "PMIX_NAMESPACE",
      "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_STEP_ID",
      "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
      "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_RUN_ID"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
}

/* Sets "NAME=value NAME=value ..." after clearing every launcher's. */
static void set_launcher(const char *vars) {
  clear_launchers();
  char copy[512];
  snprintf(copy, sizeof copy, "%s", vars);
  for (char *save = NULL, *pair = strtok_r(copy, " ", &save); pair != NULL;
       pair = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(pair, '=');
    *eq = '\0';
    setenv(pair, eq + 1, 1);
  }
}

/* What ncore_comm_init_from_env answers to one launcher's environment. */
typedef struct launch_case {
  const char *vars;
  ncore_status_t status;
  const char *message;
} launch_case_t;

static void check_launch_cases(const launch_case_t *cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    ncore_comm_t comm = 7;
    set_launcher(cases[i].vars);
    CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), cases[i].status);
    CHECK_MESSAGE_CONTAINS(cases[i].message);
    CHECK(comm == NCORE_NULL_HANDLE);
  }
  clear_launchers();
}

TEST(comm_init_from_env_names_the_bad_variable) {
  clear_launchers();
  CHECK_STATUS(ncore_comm_init_from_env(NULL, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_init_from_env: out");
  ncore_comm_t comm = 7;
  set_launch_env("1", "1");
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("NCORE_RANK: 1 is out of range [0, 1)");
  CHECK(comm == NCORE_NULL_HANDLE);
  set_launch_env("0", "x");
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("NCORE_NRANKS");
  static const launch_case_t cases[] = {
      {"NCORE_RANK=0 NCORE_NRANKS=1 NCORE_UNIQUE_ID=abc", NCORE_ERR_INVALID_ARGUMENT,
       "NCORE_UNIQUE_ID: missing or not 256 hex characters"},
      {"OMPI_COMM_WORLD_RANK=0", NCORE_ERR_INVALID_ARGUMENT, "OMPI_COMM_WORLD_SIZE: missing"},
      {"SLURM_PROCID=3 SLURM_NTASKS=2 SLURM_STEP_ID=0", NCORE_ERR_INVALID_ARGUMENT,
       "SLURM_PROCID: 3 is out of range [0, 2)"},
      {"RANK=1 WORLD_SIZE=2 LOCAL_RANK=-1", NCORE_ERR_INVALID_ARGUMENT,
       "LOCAL_RANK: -1 is not a non-negative integer"},
  };
  check_launch_cases(cases, sizeof cases / sizeof cases[0]);
}

/* No launcher: a job of one rank (an MPI or torch program run alone). */
TEST(comm_init_from_env_without_a_launcher_is_one_rank) {
  clear_launchers();
  check_one_rank_job();
  /* A launcher's job of one rank needs no exchange either. */
  set_launcher("OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1");
  check_one_rank_job();
  clear_launchers();
}

/* A launcher that offers nothing ncore can use says what it looked for. */
TEST(comm_init_from_env_names_what_the_launcher_lacks) {
  static const launch_case_t cases[] = {
      {"SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_STEP_ID=0", NCORE_ERR_UNAVAILABLE,
       "srun --mpi=pmix"},
      {"PMI_RANK=1 PMI_SIZE=2", NCORE_ERR_UNAVAILABLE, "PMI_FD"},
      {"RANK=1 WORLD_SIZE=2", NCORE_ERR_UNAVAILABLE, "MASTER_ADDR"},
  };
  check_launch_cases(cases, sizeof cases / sizeof cases[0]);
}

/* Two launchers' variables that disagree on rank or size are refused at
 * once, naming both (stale NCORE_* under mpirun made each rank a job of
 * one). */
TEST(comm_init_from_env_refuses_launchers_that_disagree) {
  char stale[512];
  snprintf(stale, sizeof stale, "NCORE_RANK=0 NCORE_NRANKS=1 NCORE_UNIQUE_ID=%0256d "
           "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2", 0);
  const launch_case_t cases[] = {
      {stale, NCORE_ERR_INVALID_ARGUMENT,
       "two launchers' variables disagree: ncore-run's NCORE_RANK=0 "
       "NCORE_NRANKS=1 and Open MPI's OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2"},
      /* torchrun's names set by hand inside a Slurm step, without the agent */
      {"SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_STEP_ID=0 RANK=0 WORLD_SIZE=1",
       NCORE_ERR_INVALID_ARGUMENT, "Slurm's SLURM_PROCID=1 SLURM_NTASKS=2 and "
       "RANK/WORLD_SIZE (torchrun's variables)'s RANK=0 WORLD_SIZE=1"},
      {"PMI_RANK=0 PMI_SIZE=2 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1",
       NCORE_ERR_INVALID_ARGUMENT, "MPICH (PMI)'s PMI_RANK=0 PMI_SIZE=2"},
  };
  check_launch_cases(cases, sizeof cases / sizeof cases[0]);
}

/* Variables that agree are one job; a launcher started inside another
 * (torchrun's agent in a Slurm step, mpirun in an allocation) is the job,
 * and the outer launcher's variables are not held against it. RANK alone,
 * without WORLD_SIZE, is no launcher's. */
TEST(comm_init_from_env_takes_agreeing_or_nested_launchers) {
  static const char *jobs_of_one[] = {
      "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 RANK=0 WORLD_SIZE=1",
      "RANK=0 WORLD_SIZE=1 TORCHELASTIC_RUN_ID=job SLURM_PROCID=1 SLURM_NTASKS=2 "
      "SLURM_STEP_ID=0",
      "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 SLURM_PROCID=3 SLURM_NTASKS=4 "
      "SLURM_STEP_ID=0",
      "PMI_RANK=0 PMI_SIZE=1 RANK=5",
  };
  for (size_t i = 0; i < sizeof jobs_of_one / sizeof jobs_of_one[0]; i++) {
    set_launcher(jobs_of_one[i]);
    check_one_rank_job();
  }
  clear_launchers();
}

/* The host backend is one machine: an id made elsewhere fails at once.
 * Its boot id starts at byte 24 of the id (core/host/comm_create.h: magic,
 * token, creator pid, then the creator's identity). */
TEST(host_id_made_on_another_machine_fails_at_once) {
  if (!harness_is_host()) SKIP("the host backend's rule");
  ncore_unique_id_t id;
  CHECK_OK(ncore_get_unique_id(&id, NCORE_BACKEND_HOST));
  id.internal[24] = id.internal[24] == 'f' ? 'e' : 'f';
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.backend = NCORE_BACKEND_HOST;
  config.timeout_ms = 60000;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_comm_init_rank(&comm, 2, &id, 1, &config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("made on another machine");
  CHECK_MESSAGE_CONTAINS("the host backend joins the ranks of one machine");
}

HARNESS_MAIN
