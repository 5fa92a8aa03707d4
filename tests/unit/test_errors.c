/* Unit tests: status names, the thread-local error channel, versions. */
#include <pthread.h>

#include "harness.h"

TEST(status_string_names_every_status) {
  CHECK_STR_EQ(ncore_status_string(NCORE_OK), "NCORE_OK");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_UNHANDLED_CUDA), "NCORE_ERR_UNHANDLED_CUDA");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_SYSTEM), "NCORE_ERR_SYSTEM");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_INTERNAL), "NCORE_ERR_INTERNAL");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_INVALID_ARGUMENT), "NCORE_ERR_INVALID_ARGUMENT");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_INVALID_USAGE), "NCORE_ERR_INVALID_USAGE");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_REMOTE), "NCORE_ERR_REMOTE");
  CHECK_STR_EQ(ncore_status_string(NCORE_IN_PROGRESS), "NCORE_IN_PROGRESS");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_NOT_SUPPORTED), "NCORE_ERR_NOT_SUPPORTED");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_UNAVAILABLE), "NCORE_ERR_UNAVAILABLE");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_CLOSED), "NCORE_ERR_CLOSED");
  CHECK_STR_EQ(ncore_status_string(NCORE_ERR_TIMEOUT), "NCORE_ERR_TIMEOUT");
}

TEST(status_string_of_unknown_value) {
  CHECK_STR_EQ(ncore_status_string((ncore_status_t)12), "NCORE_ERR_UNKNOWN");
  CHECK_STR_EQ(ncore_status_string((ncore_status_t)-1), "NCORE_ERR_UNKNOWN");
  CHECK_STR_EQ(ncore_status_string((ncore_status_t)1000), "NCORE_ERR_UNKNOWN");
}

TEST(status_values_match_nccl) {
  CHECK_EQ(NCORE_OK, 0);
  CHECK_EQ(NCORE_ERR_INVALID_ARGUMENT, 4);
  CHECK_EQ(NCORE_ERR_INVALID_USAGE, 5);
  CHECK_EQ(NCORE_ERR_REMOTE, 6);
  CHECK_EQ(NCORE_IN_PROGRESS, 7);
  CHECK_EQ(NCORE_ERR_TIMEOUT, 11);
}

TEST(last_error_set_on_failure_and_cleared_on_success) {
  size_t size = 0;
  CHECK_STATUS(ncore_dtype_size((ncore_dtype_t)99, &size), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_EQ(ncore_last_error_status(), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_dtype_size: ");
  CHECK_MESSAGE_CONTAINS("dtype");
  CHECK_MESSAGE_CONTAINS("99");
  /* Reading the error does not clear it. */
  CHECK_EQ(ncore_last_error_status(), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_dtype_size(NCORE_FLOAT32, &size));
  CHECK_EQ(size, 4);
  CHECK_STR_EQ(ncore_last_error_message(), "");
  CHECK_EQ(ncore_last_error_status(), NCORE_OK);
}

TEST(error_message_names_function_and_argument) {
  CHECK_STATUS(ncore_dtype_size(NCORE_FLOAT32, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_dtype_size: out");
  CHECK_STATUS(ncore_comm_config_init(NULL, sizeof(ncore_comm_config_t)),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_config_init: config");
  CHECK_STATUS(ncore_get_unique_id(NULL, NCORE_BACKEND_HOST), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_get_unique_id: out");
}

/* The message is per thread: a failure on another thread leaves ours. */
static void *fail_on_other_thread(void *arg) {
  (void)arg;
  size_t size;
  ncore_dtype_size((ncore_dtype_t)77, &size);
  return (void *)(uintptr_t)ncore_last_error_status();
}

TEST(last_error_is_thread_local) {
  size_t size;
  CHECK_OK(ncore_dtype_size(NCORE_INT8, &size));
  pthread_t t;
  void *other = NULL;
  CHECK_EQ(pthread_create(&t, NULL, fail_on_other_thread, NULL), 0);
  pthread_join(t, &other);
  CHECK_EQ((uintptr_t)other, NCORE_ERR_INVALID_ARGUMENT);
  CHECK_EQ(ncore_last_error_status(), NCORE_OK);
  CHECK_STR_EQ(ncore_last_error_message(), "");
}

TEST(abi_version_matches_header) {
  CHECK_EQ(ncore_abi_version(), NCORE_ABI_VERSION);
  CHECK_EQ(NCORE_ABI_VERSION, NCORE_VERSION_MAJOR * 10000 + NCORE_VERSION_MINOR * 100);
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", NCORE_VERSION_MAJOR,
           NCORE_VERSION_MINOR, NCORE_VERSION_PATCH);
  CHECK_STR_EQ(ncore_version_string(), expected);
}

HARNESS_MAIN
