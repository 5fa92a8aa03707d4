/* core/launcher — starting, watching and stopping the ranks of ncore-run. */
#ifndef NCORE_LAUNCHER_RANKS_H
#define NCORE_LAUNCHER_RANKS_H

/* What ncore-run was asked to do. */
typedef struct launch_plan {
  int nranks;
  double timeout_seconds;   /* 0: no limit */
  double grace_seconds;     /* SIGTERM to SIGKILL */
  char *const *argv;        /* program and its arguments, NULL-terminated */
  const char *unique_id_hex; /* 256 hex chars, NUL-terminated */
  const char *job_secret_hex; /* this launch's NCORE_JOB_SECRET: 64 hex chars */
  int oversubscribe;        /* each rank its own NCCL host identity */
  int tag;                  /* prefix output lines with "[r] " */
} launch_plan_t;

/* Starts plan->nranks copies of plan->argv, forwards their output line by
 * line (prefixed "[r] " when plan->tag), stops the rest when one fails (or
 * the timeout passes, or the launcher is interrupted), and returns the exit
 * status main documents (having said on stderr which rank failed and how). */
int launch_ranks(const launch_plan_t *plan);

#endif
