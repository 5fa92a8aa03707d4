/* core — NCCL's parameters, read-only (ncore/params.h): from the backend
 * AUTO picks where it has a parameter API (NCCL 2.30+), else from the
 * environment (NCCL_* and NCORE_* variables that are set). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "error_clear.h"

extern char **environ;

/* The backend serving parameters, or NULL for the environment. */
static const core_backend_ops_t *param_backend(void) {
  const core_backend_ops_t *ops = NULL;
  if (core_backend_select(NCORE_BACKEND_AUTO, &ops) != NCORE_OK) ops = NULL;
  core_error_clear(); /* no usable backend: the environment answers */
  return ops != NULL && ops->param_get != NULL && ops->param_keys != NULL ? ops : NULL;
}

/* 1 for an environment entry "NAME=..." (or a key NAME) whose NAME is a
 * parameter's. A launcher's secrets are not: the job's secret (and the
 * file naming it) and the unique id let anyone who reads them join or
 * impersonate the job, and dump_params output ends up in logs. */
static int env_is_param(const char *entry) {
  static const char *const secrets[] = {"NCORE_JOB_SECRET", "NCORE_UNIQUE_ID"};
  for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++)
    if (strncmp(entry, secrets[i], strlen(secrets[i])) == 0) return 0;
  return strncmp(entry, "NCCL_", 5) == 0 || strncmp(entry, "NCORE_", 6) == 0;
}

/* Copies text (size bytes) and a NUL into out under the size protocol of
 * ncore/params.h. */
static ncore_status_t write_text(const char *text, size_t size, char *out,
                                 size_t capacity, size_t *length,
                                 const char *argument) {
  *length = size;
  if (out == NULL && capacity == 0) return NCORE_OK;
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: must not be NULL when capacity is %zu",
                      argument, capacity);
  if (capacity <= size)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "capacity: %zu bytes cannot hold the %zu bytes of %s and its NUL "
                      "(*length says how many are needed)", capacity, size, argument);
  memcpy(out, text, size);
  out[size] = '\0';
  return NCORE_OK;
}

/* The value of key: from the backend (NOT_SUPPORTED there: the
 * environment), *value owned as param_get says. */
static ncore_status_t param_lookup(const char *key, const char **value, size_t *size) {
  const core_backend_ops_t *ops = param_backend();
  if (ops != NULL) {
    ncore_status_t status = ops->param_get(key, value, size);
    if (status != NCORE_ERR_NOT_SUPPORTED) return status;
    core_error_clear();
  }
  const char *text = env_is_param(key) && strchr(key, '=') == NULL ? getenv(key) : NULL;
  if (text == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "key: no parameter %s (read from the environment: NCCL_* and NCORE_* "
                      "variables that are set; NCCL's own list needs NCCL 2.30+)", key);
  *value = text;
  *size = strlen(text);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_param_get(const char *key, char *value, size_t capacity,
                                         size_t *length) {
  CORE_ENTER("ncore_param_get");
  if (key == NULL || key[0] == '\0')
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "key: must be a parameter's name, not %s",
                      key == NULL ? "NULL" : "empty");
  if (length == NULL) return core_error(NCORE_ERR_INVALID_ARGUMENT, "length: must not be NULL");
  const char *text = NULL;
  size_t size = 0;
  ncore_status_t status = param_lookup(key, &text, &size);
  if (status != NCORE_OK) return status;
  return write_text(text, size, value, capacity, length, "value");
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names, '\n' after each, into a malloc'd text (*text, *size). */
static ncore_status_t keys_text(char **text, size_t *size) {
  const core_backend_ops_t *ops = param_backend();
  const char *const *names = NULL;
  int count = 0;
  ncore_status_t status = NCORE_ERR_NOT_SUPPORTED;
  const char **env = NULL;
  if (ops != NULL) {
    status = ops->param_keys(&names, &count);
    if (status != NCORE_OK && status != NCORE_ERR_NOT_SUPPORTED) return status;
    core_error_clear();
  }
  if (status == NCORE_ERR_NOT_SUPPORTED) {
    size_t n = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++) n += env_is_param(*e);
    env = calloc(n + 1, sizeof *env);
    if (env == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory listing parameters");
    count = 0;
    for (char **e = environ; e != NULL && *e != NULL && (size_t)count < n; e++)
      if (env_is_param(*e)) env[count++] = *e;
    qsort(env, (size_t)count, sizeof *env, compare_names);
    names = env;
  }
  size_t total = 0;
  for (int i = 0; i < count; i++) total += strcspn(names[i], "=") + 1;
  *text = malloc(total + 1);
  if (*text == NULL) {
    free(env);
    return core_error(NCORE_ERR_SYSTEM, "out of memory listing parameters");
  }
  size_t at = 0;
  for (int i = 0; i < count; i++) {
    size_t n = strcspn(names[i], "=");
    memcpy(*text + at, names[i], n);
    at += n;
    (*text)[at++] = '\n';
  }
  (*text)[at] = '\0';
  *size = at;
  free(env);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_param_keys(char *keys, size_t capacity, size_t *length) {
  CORE_ENTER("ncore_param_keys");
  if (length == NULL) return core_error(NCORE_ERR_INVALID_ARGUMENT, "length: must not be NULL");
  char *text = NULL;
  size_t size = 0;
  ncore_status_t status = keys_text(&text, &size);
  if (status != NCORE_OK) return status;
  status = write_text(text, size, keys, capacity, length, "keys");
  free(text);
  return status;
}

NCORE_API ncore_status_t ncore_param_dump(void) {
  CORE_ENTER("ncore_param_dump");
  char *text = NULL;
  size_t size = 0;
  ncore_status_t status = keys_text(&text, &size);
  if (status != NCORE_OK) return status;
  for (char *name = text, *end; status == NCORE_OK && (end = strchr(name, '\n')) != NULL;
       name = end + 1) {
    *end = '\0';
    const char *value = NULL;
    size_t n = 0;
    status = param_lookup(name, &value, &n);
    if (status == NCORE_OK && printf("%s=%.*s\n", name, (int)n, value) < 0)
      status = core_error(NCORE_ERR_SYSTEM, "writing parameter %s to standard output failed",
                          name);
  }
  free(text);
  if (status == NCORE_OK && fflush(stdout) != 0)
    status = core_error(NCORE_ERR_SYSTEM, "flushing standard output failed");
  return status;
}
