/* Conformance runner (C): runs this rank's plan through the public C API and
 * prints one canonical JSON line per step (conformance/README.md). The rank,
 * rank count and unique id come from tools/ncore-run's environment; the plan
 * from $NCORE_CONFORMANCE_PLAN_DIR/plan.<rank>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncore_launch_env.h"
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

static int init_world(runner_t *r, const plan_t *plan) {
  ncore_launch_env_t env;
  if (ncore_launch_env_read(&env) != 0) {
    fprintf(stderr, "conformance: run me with tools/ncore-run\n");
    return 0;
  }
  r->rank = env.rank;
  r->nranks = env.nranks;
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = plan->timeout_ms;
  if (ncore_comm_init_rank(&r->world, r->nranks, &env.id, r->rank, &config) != NCORE_OK ||
      ncore_comm_backend(r->world, &r->backend) != NCORE_OK) {
    fprintf(stderr, "conformance: init failed: %s\n", ncore_last_error_message());
    return 0;
  }
  objects_put("world", OBJECT_COMM)->handle = r->world;
  return 1;
}

int main(void) {
  const char *dir = getenv("NCORE_CONFORMANCE_PLAN_DIR");
  const char *rank = getenv("NCORE_RANK");
  if (!dir || !rank) {
    fprintf(stderr, "conformance: NCORE_CONFORMANCE_PLAN_DIR and NCORE_RANK must be set\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/plan.%s", dir, rank);
  plan_t plan;
  plan_load(&plan, path);
  runner_t r = {0};
  if (!init_world(&r, &plan)) return 2;
  for (int i = 0; i < plan.nsteps; i++) {
    const plan_step_t *step = &plan.steps[i];
    op_fn fn = ops_find(step->op);
    if (!fn) {
      fprintf(stderr, "conformance: unknown op %s\n", step->op);
      return 2;
    }
    result_t res = {0};
    ncore_status_t st = fn(&r, step, &res);
    print_result(&plan, r.rank, step, st, &res);
    free(res.hex);
  }
  if (ncore_comm_is_valid(r.world)) ncore_comm_destroy(r.world);
  return 0;
}
