/* Conformance runner (C): runs this rank's part of a batch of cases through
 * the public C API (conformance/README.md). For each case of
 * $NCORE_CONFORMANCE_PLAN_DIR/batch it makes the world communicator from the
 * case's own unique id (batch.h), prints a header record, one canonical JSON
 * line per step of plan.<rank>, releases everything the case made and prints
 * an end record. The rank and rank count come from tools/ncore-run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "ops.h"
#include "plan.h"

/* JSON string escaping for messages. */
static void print_json_string(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

static void print_result(const plan_t *plan, int rank, const plan_step_t *step,
                         ncore_status_t st, const result_t *res) {
  printf("{\"case\":\"%s\",\"rank\":%d,\"step\":%d,\"op\":\"%s\",\"status\":\"%s\","
         "\"message\":",
         plan->case_name, rank, step->index, step->op, ncore_status_string(st));
  print_json_string(st == NCORE_OK ? "" : ncore_last_error_message());
  if (st == NCORE_OK && res->hex) printf(",\"value\":\"%s\"", res->hex);
  else if (st == NCORE_OK && res->has_value) printf(",\"value\":%lld", res->value);
  printf("}\n");
  fflush(stdout);
}

/* The GPU this rank names for its communicators: local rank % devices on
 * NCCL (ncore/launch.h's rule, as every runner does), -1 on the host. */
static int rank_device(void) {
  ncore_backend_t backend = NCORE_BACKEND_HOST;
  int count = 0, local = 0;
  if (ncore_backend_resolve(NCORE_BACKEND_AUTO, &backend) != NCORE_OK ||
      backend != NCORE_BACKEND_NCCL ||
      ncore_device_count(NCORE_BACKEND_NCCL, &count) != NCORE_OK || count < 1)
    return -1;
  const char *text = getenv("NCORE_LOCAL_RANK");
  if (text == NULL) text = getenv("NCORE_RANK");
  local = text != NULL ? atoi(text) : 0;
  return local % count;
}

/* Makes the case's world communicator and prints the header record: the
 * world's size and this rank's LSA team, or why there is no world. */
static ncore_status_t begin_case(runner_t *r, const plan_t *plan, const ncore_unique_id_t *id) {
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = plan->timeout_ms;
  config.device = r->device;
  int nranks = 0, lsa_rank = 0, lsa_size = 0;
  ncore_status_t st = ncore_comm_init_rank(&r->world, r->nranks, id, r->rank, &config);
  if (st == NCORE_OK) st = ncore_comm_backend(r->world, &r->backend);
  if (st == NCORE_OK) st = ncore_comm_size(r->world, &nranks);
  if (st == NCORE_OK) st = ncore_comm_lsa_rank(r->world, &lsa_rank);
  if (st == NCORE_OK) st = ncore_comm_lsa_size(r->world, &lsa_size);
  printf("{\"case\":\"%s\",\"rank\":%d,\"begin\":true,\"status\":\"%s\",\"message\":",
         plan->case_name, r->rank, ncore_status_string(st));
  print_json_string(st == NCORE_OK ? "" : ncore_last_error_message());
  if (st == NCORE_OK)
    printf(",\"nranks\":%d,\"lsa_rank\":%d,\"lsa_size\":%d", nranks, lsa_rank, lsa_size);
  printf("}\n");
  fflush(stdout);
  if (st == NCORE_OK) objects_put("world", OBJECT_COMM)->handle = r->world;
  else if (r->world != NCORE_NULL_HANDLE) (void)ncore_comm_destroy(r->world);
  return st;
}

/* Runs one case; 0, or -1 when the batch cannot go on (no unique id). */
static int run_case(const plan_t *plan, const char *case_dir, int rank, int nranks) {
  ncore_unique_id_t id;
  if (batch_unique_id(case_dir, rank, &id) != 0) return -1;
  static int device = -2;
  if (device == -2) device = rank_device();
  runner_t r = {.rank = rank, .nranks = nranks, .world = NCORE_NULL_HANDLE,
                .device = device, .timeout_ms = plan->timeout_ms};
  if (begin_case(&r, plan, &id) == NCORE_OK) {
    for (int i = 0; i < plan->nsteps; i++) {
      const plan_step_t *step = &plan->steps[i];
      result_t res = {0};
      ncore_status_t st = ops_find(step->op)(&r, step, &res);
      print_result(plan, r.rank, step, st, &res);
      free(res.hex);
    }
  }
  capture_release(&r);
  objects_clear(r.backend);
  printf("{\"case\":\"%s\",\"rank\":%d,\"end\":true}\n", plan->case_name, rank);
  fflush(stdout);
  return 0;
}

int main(void) {
  const char *dir = getenv("NCORE_CONFORMANCE_PLAN_DIR");
  int rank = 0, nranks = 0;
  /* The driver starts the ranks with ncore-run: its rank variables name
   * the plan file; each case makes its own communicator from its id. */
  const char *rank_text = getenv("NCORE_RANK"), *nranks_text = getenv("NCORE_NRANKS");
  if (rank_text) rank = atoi(rank_text);
  if (nranks_text) nranks = atoi(nranks_text);
  if (!dir || !rank_text || nranks < 1 || rank < 0 || rank >= nranks) {
    fprintf(stderr, "conformance: run me with tools/ncore-run and NCORE_CONFORMANCE_PLAN_DIR\n");
    return 2;
  }
  char **cases = NULL;
  int ncases = batch_load(dir, &cases);
  /* Every plan is read and checked before the first case runs. */
  plan_t *plans = calloc((size_t)ncases + 1, sizeof *plans);
  for (int c = 0; c < ncases; c++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/plan.%d", cases[c], rank);
    plan_load(&plans[c], path);
    for (int i = 0; i < plans[c].nsteps; i++)
      if (!ops_find(plans[c].steps[i].op)) {
        fprintf(stderr, "conformance: unknown op %s\n", plans[c].steps[i].op);
        return 2;
      }
  }
  for (int c = 0; c < ncases; c++)
    if (run_case(&plans[c], cases[c], rank, nranks) != 0) return 2;
  return 0;
}
