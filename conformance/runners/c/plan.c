/* Conformance runner (C): reads the line-based plan that conformance/run.py
 * writes, so the runner needs no JSON parser. */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die_malformed(const char *path, const char *line) {
  fprintf(stderr, "conformance: malformed plan %s: %s\n", path, line);
  exit(2);
}

static void parse_step(plan_step_t *step, char *line, const char *path) {
  char *save = NULL;
  char *token = strtok_r(line, " \n", &save);
  if (!token) die_malformed(path, "empty step");
  step->index = atoi(token);
  token = strtok_r(NULL, " \n", &save);
  if (!token || strlen(token) >= sizeof step->op) die_malformed(path, "no op");
  strcpy(step->op, token);
  step->nargs = 0;
  while ((token = strtok_r(NULL, " \n", &save)) != NULL) {
    char *eq = strchr(token, '=');
    if (!eq || step->nargs == PLAN_MAX_ARGS) die_malformed(path, token);
    *eq = '\0';
    step->keys[step->nargs] = strdup(token);
    step->values[step->nargs] = strdup(eq + 1);
    step->nargs++;
  }
}

void plan_load(plan_t *plan, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "conformance: cannot open plan %s\n", path);
    exit(2);
  }
  memset(plan, 0, sizeof *plan);
  plan->timeout_ms = 10000;
  size_t capacity = 16;
  plan->steps = calloc(capacity, sizeof *plan->steps);
  char line[65536];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "case ", 5) == 0) {
      snprintf(plan->case_name, sizeof plan->case_name, "%s", line + 5);
      plan->case_name[strcspn(plan->case_name, "\n")] = '\0';
    } else if (strncmp(line, "ranks ", 6) == 0) {
      plan->ranks = atoi(line + 6);
    } else if (strncmp(line, "timeout_ms ", 11) == 0) {
      plan->timeout_ms = atoi(line + 11);
    } else if (line[0] >= '0' && line[0] <= '9') {
      if ((size_t)plan->nsteps == capacity) {
        capacity *= 2;
        plan->steps = realloc(plan->steps, capacity * sizeof *plan->steps);
      }
      parse_step(&plan->steps[plan->nsteps++], line, path);
    }
  }
  fclose(f);
}

const char *plan_arg(const plan_step_t *step, const char *key) {
  for (int i = 0; i < step->nargs; i++)
    if (strcmp(step->keys[i], key) == 0) return step->values[i];
  return NULL;
}

long long plan_arg_int(const plan_step_t *step, const char *key,
                       long long dflt) {
  const char *value = plan_arg(step, key);
  return value ? strtoll(value, NULL, 0) : dflt;
}

const char *plan_object_field(const char *object, const char *field, char *buf,
                              size_t size) {
  size_t flen = strlen(field);
  const char *p = object;
  while (p && *p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > flen && strncmp(p, field, flen) == 0 && p[flen] == ':') {
      size_t vlen = len - flen - 1;
      if (vlen >= size) vlen = size - 1;
      memcpy(buf, p + flen + 1, vlen);
      buf[vlen] = '\0';
      return buf;
    }
    p = end ? end + 1 : NULL;
  }
  return NULL;
}
