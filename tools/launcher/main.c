/* tools/launcher — ncore-run: starts N ranks of a program on this machine.
 *
 *   ncore-run -n N [--backend host|nccl] [--timeout SECONDS] PROGRAM ARGS...
 *
 * Makes ONE unique id (ncore_get_unique_id, backend from --backend, else
 * NCORE_BACKEND / AUTO) and gives every rank NCORE_RANK, NCORE_NRANKS,
 * NCORE_LOCAL_RANK and NCORE_UNIQUE_ID (256 hex chars; tools/ncore_launch_env.h
 * decodes it). Exit status 0 when every rank succeeded, 1 when one failed,
 * 2 on a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncore.h>

#include "ncore_launch_env.h"
#include "ranks.h"

static void usage(FILE *to) {
  fprintf(to,
          "usage: ncore-run -n N [--backend host|nccl] [--timeout SECONDS] "
          "PROGRAM [ARGS...]\n"
          "  -n N            number of ranks (1..1024)\n"
          "  --backend B     host or nccl (default: NCORE_BACKEND, else AUTO)\n"
          "  --timeout S     stop all ranks after S seconds (default: none)\n");
}

/* Parses argv into *plan and *backend; returns 0, or 2 after a message. */
static int parse_arguments(int argc, char **argv, launch_plan_t *plan,
                           ncore_backend_t *backend) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *opt = argv[i];
    if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) { usage(stdout); exit(0); }
    if (!strcmp(opt, "--")) { i++; break; }
    if (i + 1 >= argc) { fprintf(stderr, "ncore-run: %s needs a value\n", opt); return 2; }
    const char *value = argv[++i];
    char *end = NULL;
    if (!strcmp(opt, "-n") || !strcmp(opt, "--nranks")) {
      long n = strtol(value, &end, 10);
      if (*end || n < 1 || n > 1024) {
        fprintf(stderr, "ncore-run: -n: %s is not a rank count in [1, 1024]\n", value);
        return 2;
      }
      plan->nranks = (int)n;
    } else if (!strcmp(opt, "--backend")) {
      if (!strcmp(value, "host")) *backend = NCORE_BACKEND_HOST;
      else if (!strcmp(value, "nccl")) *backend = NCORE_BACKEND_NCCL;
      else { fprintf(stderr, "ncore-run: --backend: %s is not host or nccl\n", value); return 2; }
    } else if (!strcmp(opt, "--timeout")) {
      double t = strtod(value, &end);
      if (*end || t <= 0) { fprintf(stderr, "ncore-run: --timeout: %s is not a positive number\n", value); return 2; }
      plan->timeout_seconds = t;
    } else {
      fprintf(stderr, "ncore-run: unknown option %s\n", opt);
      usage(stderr);
      return 2;
    }
  }
  if (plan->nranks == 0) { fprintf(stderr, "ncore-run: -n N is required\n"); usage(stderr); return 2; }
  if (i >= argc) { fprintf(stderr, "ncore-run: no program given\n"); usage(stderr); return 2; }
  plan->argv = argv + i;
  return 0;
}

int main(int argc, char **argv) {
  launch_plan_t plan = {.grace_seconds = 5};
  ncore_backend_t backend = NCORE_BACKEND_AUTO;
  int rc = parse_arguments(argc, argv, &plan, &backend);
  if (rc) return rc;

  /* The ranks resolve AUTO the same way (NCORE_BACKEND), so an explicit
   * --backend is passed on to them too. */
  if (backend != NCORE_BACKEND_AUTO)
    setenv("NCORE_BACKEND", backend == NCORE_BACKEND_NCCL ? "nccl" : "host", 1);
  ncore_backend_t resolved;
  ncore_unique_id_t id;
  if (ncore_backend_resolve(backend, &resolved) != NCORE_OK ||
      ncore_get_unique_id(&id, resolved) != NCORE_OK) {
    fprintf(stderr, "ncore-run: cannot make a unique id: %s\n", ncore_last_error_message());
    return 1;
  }
  char hex[NCORE_LAUNCH_ENV_ID_HEX_CHARS + 1];
  ncore_launch_env_encode(&id, hex);
  plan.unique_id_hex = hex;
  return launch_ranks(&plan);
}
