/* tools/launcher — ncore-run: starts N ranks of a program on this machine.
 *
 *   ncore-run -n N [--backend host|nccl] [--timeout SECONDS]
 *             [--oversubscribe] PROGRAM ARGS...
 *
 * Makes ONE unique id (ncore_get_unique_id, backend from --backend, else
 * NCORE_BACKEND / AUTO) and gives every rank NCORE_RANK, NCORE_NRANKS,
 * NCORE_LOCAL_RANK and NCORE_UNIQUE_ID (256 hex chars; tools/ncore_launch_env.h
 * decodes it). --oversubscribe (or NCORE_OVERSUBSCRIBE=1) gives each rank
 * its own NCCL host identity so that several NCCL ranks can share one GPU.
 * Exit status 0 when every rank succeeded, 1 when one failed, 2 on a usage
 * error. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncore.h>

#include "ncore_launch_env.h"
#include "ranks.h"

static void usage(FILE *to) {
  fprintf(to,
          "usage: ncore-run -n N [options] PROGRAM [ARGS...]\n"
          "Starts N ranks of PROGRAM on this machine, each with NCORE_RANK,\n"
          "NCORE_NRANKS, NCORE_LOCAL_RANK and NCORE_UNIQUE_ID in its environment.\n"
          "  -n, --nranks N      number of ranks (1..1024)\n"
          "  -b, --backend B     host or nccl (default: NCORE_BACKEND, else AUTO)\n"
          "  -t, --timeout S     stop all ranks after S seconds (default: none)\n"
          "  -o, --oversubscribe several NCCL ranks per GPU: each rank gets its own\n"
          "                      NCCL_HOSTID and NCCL_SOCKET_IFNAME=lo (unless set),\n"
          "                      so NCCL connects them through sockets as if on\n"
          "                      separate nodes; for correctness runs, not speed\n"
          "                      (also NCORE_OVERSUBSCRIBE=1)\n"
          "  -h, --help          this text\n"
          "  -V, --version       ncore's version\n"
          "Exit status: 0 if every rank exited 0, 1 if one failed, 2 on a usage error.\n");
}

/* Parses argv into *plan and *backend; returns 0, or 2 after a message. */
static int parse_arguments(int argc, char **argv, launch_plan_t *plan,
                           ncore_backend_t *backend) {
  static const struct option options[] = {
      {"nranks", required_argument, NULL, 'n'},
      {"backend", required_argument, NULL, 'b'},
      {"timeout", required_argument, NULL, 't'},
      {"oversubscribe", no_argument, NULL, 'o'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  /* "+": stop at the first non-option, the program; its own options follow. */
  int opt;
  while ((opt = getopt_long(argc, argv, "+n:b:t:ohV", options, NULL)) != -1) {
    char *end = NULL;
    switch (opt) {
      case 'n': {
        long n = strtol(optarg, &end, 10);
        if (*end || n < 1 || n > 1024) {
          fprintf(stderr, "ncore-run: -n: %s is not a rank count in [1, 1024]\n", optarg);
          return 2;
        }
        plan->nranks = (int)n;
        break;
      }
      case 'b':
        if (!strcmp(optarg, "host")) *backend = NCORE_BACKEND_HOST;
        else if (!strcmp(optarg, "nccl")) *backend = NCORE_BACKEND_NCCL;
        else {
          fprintf(stderr, "ncore-run: --backend: %s is not host or nccl\n", optarg);
          return 2;
        }
        break;
      case 't': {
        /* strtod also reads "nan", "inf" and overflows to infinity (1e400):
         * none of them is a time, and each compared as no limit at all. */
        double t = strtod(optarg, &end);
        if (*end || !isfinite(t) || !(t > 0)) {
          fprintf(stderr,
                  "ncore-run: --timeout: %s is not a finite number of seconds "
                  "above 0 (for no limit, leave --timeout out)\n", optarg);
          return 2;
        }
        plan->timeout_seconds = t;
        break;
      }
      case 'o':
        plan->oversubscribe = 1;
        break;
      case 'h':
        usage(stdout);
        exit(0);
      case 'V':
        printf("ncore-run (ncore %s, ABI %u)\n", ncore_version_string(),
               (unsigned)ncore_abi_version());
        exit(0);
      default: /* getopt_long has said what was wrong */
        usage(stderr);
        return 2;
    }
  }
  if (plan->nranks == 0) { fprintf(stderr, "ncore-run: -n N is required\n"); usage(stderr); return 2; }
  if (optind >= argc) { fprintf(stderr, "ncore-run: no program given\n"); usage(stderr); return 2; }
  plan->argv = argv + optind;
  return 0;
}

int main(int argc, char **argv) {
  launch_plan_t plan = {.grace_seconds = 5};
  plan.oversubscribe = ncore_launch_env_oversubscribe();
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
