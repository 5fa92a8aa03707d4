/* core — which launcher started this process, and this rank's place in its
 * job (core_launch_detect). Each launcher is one row of `launchers`: its
 * rank, size and local-rank variables and the way its id travels. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "launch.h"
#include "launch_vars.h"
#include "log.h"

/* One launcher's variables. The first row whose rank variable is set wins. */
typedef struct launcher_row {
  const char *name;
  const char *rank, *size, *local_rank;
  const char *guard;  /* also required (NULL: none) */
  core_launch_exchange_t exchange;
} launcher_row_t;

static const launcher_row_t launchers[] = {
    {"ncore-run", "NCORE_RANK", "NCORE_NRANKS", "NCORE_LOCAL_RANK", NULL,
     CORE_LAUNCH_ID_IN_ENV},
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK", NULL, CORE_LAUNCH_ID_PMIX},
    {"MPICH (PMI)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", NULL,
     CORE_LAUNCH_ID_PMI1},
    /* SLURM_PROCID is also set in a batch script, which is no task of a
     * step: only srun's tasks have a step id. */
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_STEP_ID",
     CORE_LAUNCH_ID_PMIX},
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", NULL, CORE_LAUNCH_ID_TCP},
};

#define LAUNCHER_COUNT (sizeof launchers / sizeof launchers[0])

/* 1 when row's launcher started this process: its rank variable is set
 * (and its guard, where it has one). */
static int row_started_us(const launcher_row_t *row) {
  const char *rank = getenv(row->rank);
  return rank != NULL && rank[0] != '\0' &&
         (row->guard == NULL || getenv(row->guard) != NULL);
}

const char *core_launch_started_by(void) {
  for (size_t i = 0; i < LAUNCHER_COUNT; i++)
    if (row_started_us(&launchers[i])) return launchers[i].name;
  return NULL;
}

/* The variables every row reads, for the log and the messages. */
static void describe(const launcher_row_t *row, char *out, size_t cap) {
  const char *local = getenv(row->local_rank);
  snprintf(out, cap, "%s=%s %s=%s %s=%s", row->rank, getenv(row->rank),
           row->size, getenv(row->size) ? getenv(row->size) : "(unset)",
           row->local_rank, local ? local : "(unset)");
}

/* Fills out from row, whose rank variable is set. */
static ncore_status_t read_row(const launcher_row_t *row, core_launch_t *out) {
  out->launcher = row->name;
  out->exchange = row->exchange;
  if (core_launch_parse_count(getenv(row->rank), &out->rank) != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %s is not a non-negative integer (%s)", row->rank,
                      getenv(row->rank), row->name);
  if (core_launch_parse_count(getenv(row->size), &out->nranks) != 0 ||
      out->nranks < 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: missing or not a positive integer (%s sets %s=%d; "
                      "start the program with ncore-run or another launcher)",
                      row->size, row->name, row->rank, out->rank);
  if (out->rank >= out->nranks)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %d is out of range [0, %d) (%s)", row->rank,
                      out->rank, out->nranks, row->size);
  /* The local rank is optional (one machine: the rank), but a value that
   * is there must be read as written. */
  out->local_rank = out->rank;
  const char *local = getenv(row->local_rank);
  if (local != NULL && core_launch_parse_count(local, &out->local_rank) != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %s is not a non-negative integer", row->local_rank,
                      local);
  if (row->exchange == CORE_LAUNCH_ID_IN_ENV &&
      core_launch_id_decode(getenv("NCORE_UNIQUE_ID"), &out->id) != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "NCORE_UNIQUE_ID: missing or not %d hex characters",
                      CORE_LAUNCH_ID_HEX_CHARS);
  return NCORE_OK;
}

ncore_status_t core_launch_detect(core_launch_t *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < LAUNCHER_COUNT; i++) {
    const launcher_row_t *row = &launchers[i];
    if (!row_started_us(row)) continue;
    out->variables = row->rank;
    ncore_status_t s = read_row(row, out);
    if (s != NCORE_OK) return s;
    core_log_set_rank(out->rank);
    if (core_log_enabled(CORE_LOG_INFO)) {
      char vars[256];
      describe(row, vars, sizeof vars);
      core_log(CORE_LOG_INFO, "launched by %s: rank %d of %d, local rank %d (%s)",
               row->name, out->rank, out->nranks, out->local_rank, vars);
    }
    return NCORE_OK;
  }
  out->launcher = "no launcher";
  out->variables = "";
  out->nranks = 1;
  out->exchange = CORE_LAUNCH_ID_NONE;
  core_log(CORE_LOG_INFO,
           "no launcher found (none of NCORE_RANK, OMPI_COMM_WORLD_RANK, "
           "PMI_RANK, SLURM_PROCID with SLURM_STEP_ID, RANK is set): a job "
           "of one rank");
  return NCORE_OK;
}
