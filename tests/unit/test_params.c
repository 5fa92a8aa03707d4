/* Unit tests: NCCL's parameters, read-only (ncore/params.h), served from the
 * environment on the host backend (NCORE_BACKEND=host here): the NCCL_* and
 * NCORE_* variables that are set. The NCCL 2.30 path (NCCL's own list) is
 * tests/unit/test_nccl_versions.c's, on the test double. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* The value of key through the size protocol: length first, then the text. */
static char *param(const char *key) {
  size_t length = 0;
  if (ncore_param_get(key, NULL, 0, &length) != NCORE_OK) return NULL;
  char *value = malloc(length + 1);
  CHECK(value != NULL);
  CHECK_OK(ncore_param_get(key, value, length + 1, &length));
  CHECK_EQ(strlen(value), length);
  return value;
}

static char *keys(void) {
  size_t length = 0;
  CHECK_OK(ncore_param_keys(NULL, 0, &length));
  char *text = malloc(length + 1);
  CHECK(text != NULL);
  CHECK_OK(ncore_param_keys(text, length + 1, &length));
  CHECK_EQ(strlen(text), length);
  return text;
}

TEST(params_are_the_nccl_and_ncore_variables_of_the_environment) {
  setenv("NCORE_BACKEND", "host", 1);
  setenv("NCCL_DEBUG", "WARN", 1);
  setenv("NCCL_ALGO", "ring,tree", 1);
  unsetenv("NCCL_PROTO");
  setenv("NOT_NCCL_ALGO", "x", 1);
  char *debug = param("NCCL_DEBUG"), *algo = param("NCCL_ALGO"), *backend = param("NCORE_BACKEND");
  CHECK(debug && strcmp(debug, "WARN") == 0);
  CHECK(algo && strcmp(algo, "ring,tree") == 0);
  CHECK(backend && strcmp(backend, "host") == 0);
  free(debug), free(algo), free(backend);
  char *list = keys();
  /* Sorted, one name a line, no values, nothing but NCCL_* and NCORE_*. */
  CHECK(strstr(list, "NCCL_ALGO\nNCCL_DEBUG\n") != NULL);
  CHECK(strstr(list, "NCORE_BACKEND\n") != NULL);
  CHECK(strstr(list, "NOT_NCCL") == NULL && strstr(list, "=") == NULL);
  for (char *line = list, *end; (end = strchr(line, '\n')) != NULL; line = end + 1)
    CHECK(strncmp(line, "NCCL_", 5) == 0 || strncmp(line, "NCORE_", 6) == 0);
  free(list);
  /* Lookups are live: a variable set now is a parameter now. */
  setenv("NCCL_PROTO", "LL", 1);
  char *proto = param("NCCL_PROTO");
  CHECK(proto && strcmp(proto, "LL") == 0);
  free(proto);
  unsetenv("NCCL_PROTO");
  unsetenv("NOT_NCCL_ALGO");
}

TEST(a_launchers_secrets_are_not_parameters) {
  setenv("NCORE_BACKEND", "host", 1);
  setenv("NCORE_JOB_SECRET", "0123456789abcdef0123456789abcdef", 1);
  setenv("NCORE_JOB_SECRET_FILE", "/tmp/secret", 1);
  setenv("NCORE_UNIQUE_ID", "4e434f5245", 1);
  size_t length = 0;
  CHECK_STATUS(ncore_param_get("NCORE_JOB_SECRET", NULL, 0, &length), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_param_get("NCORE_JOB_SECRET_FILE", NULL, 0, &length),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_param_get("NCORE_UNIQUE_ID", NULL, 0, &length), NCORE_ERR_INVALID_ARGUMENT);
  char *list = keys();
  CHECK(strstr(list, "NCORE_JOB_SECRET") == NULL && strstr(list, "NCORE_UNIQUE_ID") == NULL);
  CHECK(strstr(list, "NCORE_BACKEND\n") != NULL);
  free(list);
  unsetenv("NCORE_JOB_SECRET");
  unsetenv("NCORE_JOB_SECRET_FILE");
  unsetenv("NCORE_UNIQUE_ID");
}

TEST(params_refuse_unknown_keys_and_short_buffers) {
  setenv("NCORE_BACKEND", "host", 1);
  setenv("NCCL_DEBUG", "WARN", 1);
  size_t length = 99;
  CHECK_STATUS(ncore_param_get("NCCL_NO_SUCH_PARAMETER", NULL, 0, &length),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ncore_last_error_message(), "no parameter NCCL_NO_SUCH_PARAMETER") != NULL);
  CHECK_STATUS(ncore_param_get("HOME", NULL, 0, &length), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_param_get("NCCL_DEBUG=WARN", NULL, 0, &length), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_param_get(NULL, NULL, 0, &length), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_param_get("", NULL, 0, &length), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_param_get("NCCL_DEBUG", NULL, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  char small[4] = "abc";
  CHECK_STATUS(ncore_param_get("NCCL_DEBUG", small, sizeof small, &length),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ncore_last_error_message(), "capacity") != NULL);
  CHECK_EQ(length, (size_t)4);
  CHECK(strcmp(small, "abc") == 0); /* nothing written */
  CHECK_STATUS(ncore_param_get("NCCL_DEBUG", NULL, 8, &length), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_param_keys(small, 1, &length), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_param_keys(NULL, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(param_dump_prints_name_value_lines) {
  setenv("NCORE_BACKEND", "host", 1);
  setenv("NCCL_DEBUG", "WARN", 1);
  char path[] = "/tmp/ncore-test-params-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  CHECK(saved >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
  ncore_status_t status = ncore_param_dump();
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  CHECK_OK(status);
  char text[65536] = {0};
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  close(fd);
  unlink(path);
  CHECK(n > 0);
  CHECK(strstr(text, "NCCL_DEBUG=WARN\n") != NULL);
  CHECK(strstr(text, "NCORE_BACKEND=host\n") != NULL);
}

HARNESS_MAIN
