/* core — which launcher started this process, and this rank's place in its
 * job (core_launch_detect). Each launcher is one row of core_launchers
 * (launch_vars.h): its rank, size and local-rank variables, the way its id
 * travels, and the launchers it may run inside. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "launch.h"
#include "launch_vars.h"
#include "log.h"

const char *core_launch_started_by(void) {
  for (int i = 0; i < CORE_LAUNCHER_COUNT; i++)
    if (core_launcher_present(&core_launchers[i])) return core_launchers[i].name;
  return NULL;
}

/* The variables every row reads, for the log and the messages. */
static void describe(const core_launcher_t *row, char *out, size_t cap) {
  const char *local = getenv(row->local_rank);
  snprintf(out, cap, "%s=%s %s=%s %s=%s", row->rank, getenv(row->rank),
           row->size, getenv(row->size) ? getenv(row->size) : "(unset)",
           row->local_rank, local ? local : "(unset)");
}

/* Fills out from row, whose rank variable is set. */
static ncore_status_t read_row(const core_launcher_t *row, core_launch_t *out) {
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

/* Another launcher's variables beside the chosen row's: they must describe
 * the same rank of the same size, unless the chosen launcher runs inside
 * that one (then they are the outer job's). A row whose size is unset is no
 * launcher's (RANK alone is a common name). Two that disagree make one job
 * of two (stale NCORE_* under mpirun: every rank a job of one) or two of
 * one, silently, so they are refused before anything waits. */
static ncore_status_t check_others(int chosen, const core_launch_t *launch) {
  const core_launcher_t *row = &core_launchers[chosen];
  for (int i = 0; i < CORE_LAUNCHER_COUNT; i++) {
    const core_launcher_t *other = &core_launchers[i];
    if (i == chosen || (row->inside & CORE_LAUNCHER_BIT(i)) != 0 ||
        !core_launcher_present(other) || getenv(other->size) == NULL)
      continue;
    int rank = -1, nranks = -1;
    if (core_launch_parse_count(getenv(other->rank), &rank) == 0 &&
        core_launch_parse_count(getenv(other->size), &nranks) == 0 &&
        rank == launch->rank && nranks == launch->nranks)
      continue;
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "two launchers' variables disagree: %s's %s=%d %s=%d "
                      "and %s's %s=%s %s=%s. One set is stale (exported "
                      "from an earlier run?) or one launcher was started "
                      "inside the other: unset the set that is not this "
                      "job's", row->name, row->rank, launch->rank, row->size,
                      launch->nranks, other->name, other->rank,
                      getenv(other->rank), other->size, getenv(other->size));
  }
  return NCORE_OK;
}

ncore_status_t core_launch_detect(core_launch_t *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < CORE_LAUNCHER_COUNT; i++) {
    const core_launcher_t *row = &core_launchers[i];
    if (!core_launcher_present(row)) continue;
    out->variables = row->rank;
    ncore_status_t s = read_row(row, out);
    if (s == NCORE_OK) s = check_others(i, out);
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
