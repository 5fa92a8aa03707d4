/* Conformance runner (C): one step of a plan (see conformance/README.md). */
#ifndef NCORE_CONFORMANCE_PLAN_H
#define NCORE_CONFORMANCE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define PLAN_MAX_ARGS 24

typedef struct plan_step {
  int index;
  char op[48];
  int nargs;
  char *keys[PLAN_MAX_ARGS];
  char *values[PLAN_MAX_ARGS];
} plan_step_t;

typedef struct plan {
  char case_name[128];
  int ranks;
  int timeout_ms;
  int nsteps;
  plan_step_t *steps;
} plan_t;

/* Reads the plan file; exits the process with a message on a malformed one. */
void plan_load(plan_t *plan, const char *path);

/* The argument's text, or NULL when the step does not have it. */
const char *plan_arg(const plan_step_t *step, const char *key);
/* Integer argument with a default. */
long long plan_arg_int(const plan_step_t *step, const char *key, long long dflt);
/* Value of `field` inside an object text "k:v,k:v", or NULL. Copies into buf. */
const char *plan_object_field(const char *object, const char *field, char *buf,
                              size_t size);

#endif
