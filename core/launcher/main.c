/* core/launcher — ncore-run: starts N ranks of a program on this machine.
 * It is also `python -m ncore.run` (bindings/python/ncore/run.py runs this
 * program with --python), so the two launchers have one set of options,
 * one environment for the ranks and one way of reporting failures.
 *
 * Makes ONE unique id (ncore_get_unique_id, backend from --backend, else
 * NCORE_BACKEND / AUTO) and one job secret (32 random bytes, hex), and
 * gives every rank ncore's variables and torchrun's (ranks.c). Exit status: 0 when every rank exited 0; else the
 * first failing rank's exit status (128 + the signal that killed it), 124
 * when the timeout stopped the ranks, 130 when the launcher was
 * interrupted, 2 on a usage error. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncore.h>

#include "core/launch_vars.h"
#include "info.h"
#include "ranks.h"

static void usage(FILE *to) {
  fprintf(to,
          "usage: ncore-run -n N [options] PROGRAM [ARGS...]\n"
          "       python -m ncore.run -n N [options] (SCRIPT.py | -m MODULE) [ARGS...]\n"
          "Starts N ranks on this machine. Each gets NCORE_RANK, NCORE_NRANKS,\n"
          "NCORE_LOCAL_RANK, NCORE_UNIQUE_ID, NCORE_JOB_SECRET (new for each launch)\n"
          "and torchrun's RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,\n"
          "MASTER_PORT; Python ranks run unbuffered, C ranks that link libncore\n"
          "line-buffered. Output is forwarded line by line.\n"
          "  -n, --nranks N      number of ranks (1..1024)\n"
          "  -b, --backend B     host or nccl (default: NCORE_BACKEND, else AUTO)\n"
          "  -t, --timeout S     stop all ranks after S seconds (default: none)\n"
          "  -g, --grace S       seconds the other ranks get after one failed, before\n"
          "                      they are stopped (default 5)\n"
          "  -o, --oversubscribe several NCCL ranks per GPU: each rank gets its own\n"
          "                      NCCL_HOSTID and NCCL_SOCKET_IFNAME=lo (unless set),\n"
          "                      so NCCL connects them through sockets as if on\n"
          "                      separate nodes; for correctness runs, not speed\n"
          "                      (also NCORE_OVERSUBSCRIBE=1)\n"
          "      --tag           prefix each output line with \"[rank] \" (default)\n"
          "      --no-tag        forward output lines as they are\n"
          "  -m MODULE           run python -m MODULE (the interpreter of --python,\n"
          "                      else python3)\n"
          "      --python PATH   run PROGRAM as a Python script with this interpreter\n"
          "                      (what python -m ncore.run passes)\n"
          "  -h, --help          this text\n"
          "  -V, --version       ncore's version\n"
          "      --info          one line: version, ABI, backend and why, the libnccl\n"
          "                      loaded (or why none), CUDA devices (also: python -m\n"
          "                      ncore)\n"
          "Exit status: 0 if every rank exited 0; else the first failing rank's status\n"
          "(128 + signal if a signal killed it), 124 if the timeout stopped the ranks,\n"
          "130 if interrupted, 2 on a usage error.\n");
}

/* A positive number of seconds from text; -1 when it is not one. */
static double seconds(const char *text) {
  /* strtod also reads "nan", "inf" and overflows to infinity (1e400): none
   * of them is a time, and each compared as no limit at all. */
  char *end = NULL;
  double t = strtod(text, &end);
  return *end || !isfinite(t) || !(t > 0) ? -1 : t;
}

/* The command the ranks run: argv's rest, behind the interpreter for a
 * Python script or module. Returns NULL when there is none. */
static char **rank_command(char **rest, int count, const char *python,
                           const char *module) {
  char **argv = calloc((size_t)count + 4, sizeof *argv);
  if (!argv) return NULL;
  int k = 0;
  if (module || python) argv[k++] = (char *)(python ? python : "python3");
  if (module) {
    argv[k++] = "-m";
    argv[k++] = (char *)module;
  }
  for (int i = 0; i < count; i++) argv[k++] = rest[i];
  if (k == 0) {
    free(argv);
    return NULL;
  }
  return argv;
}

/* Parses argv into *plan and *backend; returns 0, or 2 after a message. */
static int parse_arguments(int argc, char **argv, launch_plan_t *plan,
                           ncore_backend_t *backend) {
  enum { OPT_TAG = 256, OPT_NO_TAG, OPT_PYTHON, OPT_INFO };
  static const struct option options[] = {
      {"nranks", required_argument, NULL, 'n'},
      {"backend", required_argument, NULL, 'b'},
      {"timeout", required_argument, NULL, 't'},
      {"grace", required_argument, NULL, 'g'},
      {"oversubscribe", no_argument, NULL, 'o'},
      {"tag", no_argument, NULL, OPT_TAG},
      {"no-tag", no_argument, NULL, OPT_NO_TAG},
      {"python", required_argument, NULL, OPT_PYTHON},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {"info", no_argument, NULL, OPT_INFO},
      {NULL, 0, NULL, 0}};
  const char *python = NULL, *module = NULL;
  /* "+": stop at the first non-option, the program; its own options follow. */
  int opt;
  while ((opt = getopt_long(argc, argv, "+n:b:t:g:om:hV", options, NULL)) != -1) {
    switch (opt) {
      case 'n':
        if (core_launch_parse_count(optarg, &plan->nranks) != 0 ||
            plan->nranks < 1 || plan->nranks > 1024) {
          fprintf(stderr, "ncore-run: -n: %s is not a rank count in [1, 1024]\n", optarg);
          return 2;
        }
        break;
      case 'b':
        if (!strcmp(optarg, "host")) *backend = NCORE_BACKEND_HOST;
        else if (!strcmp(optarg, "nccl")) *backend = NCORE_BACKEND_NCCL;
        else {
          fprintf(stderr, "ncore-run: --backend: %s is not host or nccl\n", optarg);
          return 2;
        }
        break;
      case 't':
      case 'g':
        if (seconds(optarg) < 0) {
          fprintf(stderr, "ncore-run: --%s: %s is not a finite number of "
                  "seconds above 0%s\n", opt == 't' ? "timeout" : "grace", optarg,
                  opt == 't' ? " (for no limit, leave --timeout out)" : "");
          return 2;
        }
        *(opt == 't' ? &plan->timeout_seconds : &plan->grace_seconds) = seconds(optarg);
        break;
      case 'o': plan->oversubscribe = 1; break;
      case OPT_TAG: plan->tag = 1; break;
      case OPT_NO_TAG: plan->tag = 0; break;
      case OPT_PYTHON: python = optarg; break;
      case 'm': module = optarg; break;
      case 'h':
        usage(stdout);
        exit(0);
      case 'V':
        printf("ncore-run (ncore %s, ABI %u)\n", ncore_version_string(),
               (unsigned)ncore_abi_version());
        exit(0);
      case OPT_INFO:
        exit(launcher_print_info(stdout));
      default: /* getopt_long has said what was wrong */
        usage(stderr);
        return 2;
    }
  }
  if (plan->nranks == 0) { fprintf(stderr, "ncore-run: -n N is required\n"); usage(stderr); return 2; }
  plan->argv = rank_command(argv + optind, argc - optind, python, module);
  if (!plan->argv || (python && !module && optind >= argc)) {
    fprintf(stderr, "ncore-run: no program given\n");
    usage(stderr);
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  launch_plan_t plan = {.grace_seconds = 5, .tag = 1};
  plan.oversubscribe = core_launch_oversubscribe();
  ncore_backend_t backend = NCORE_BACKEND_AUTO;
  int rc = parse_arguments(argc, argv, &plan, &backend);
  if (rc) return rc;
  core_launch_leave_outer_job(plan.nranks);

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
  char hex[CORE_LAUNCH_ID_HEX_CHARS + 1], secret[CORE_LAUNCH_SECRET_HEX_CHARS + 1];
  core_launch_id_encode(&id, hex);
  plan.unique_id_hex = hex;
  if (core_launch_secret_generate(secret) != 0) {
    perror("ncore-run: cannot make the job's secret: getrandom");
    return 1;
  }
  plan.job_secret_hex = secret;
  return launch_ranks(&plan);
}
