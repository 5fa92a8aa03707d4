/* tests/harness — a tiny C test framework for ncore.
 *
 * A test program registers tests with TEST(name) (single process) or
 * MR_TEST(name) (multi-rank, see multirank.h) and calls harness_main from
 * main (HARNESS_MAIN does that). It prints one line per test:
 *   "ok name", "FAIL name: reason" or "skip name: reason"
 * and ends with the plain line "N passed, N failed" (", N skipped" when some
 * were skipped); the exit status is 1 if any test failed.
 *
 * The CHECK macros `return` from the enclosing void function on failure, so
 * a test stops at its first broken expectation; helpers that use them must
 * return void too (test the result with harness_failed()). */
#ifndef NCORE_TESTS_HARNESS_H
#define NCORE_TESTS_HARNESS_H

#include <stdio.h>
#include <string.h>

#include <ncore.h>

typedef void (*harness_test_fn)(void);

/* Registers a single-process test; called by TEST's constructor. */
void harness_register(const char *name, harness_test_fn fn);

/* Runs every registered test (single-process and multi-rank) and prints the
 * summary. argv[1], when present, is the rank count for MR tests (default 2).
 * Returns the process exit status. */
int harness_main(int argc, char **argv);

/* Records a failure of the current test (first one wins for the message). */
void harness_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Marks the current test as skipped with a reason. */
void harness_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 if the current test has failed so far. */
int harness_failed(void);
/* 1 if the current test has failed or was skipped: a helper that may skip
 * leaves its caller to check this before going on. */
int harness_stopped(void);
/* The current test's name ("" outside a test). */
const char *harness_current_test(void);

/* The backend AUTO resolves to in this process (NCORE_BACKEND honoured);
 * NCORE_BACKEND_HOST if resolution fails. */
ncore_backend_t harness_backend(void);
/* 1 when harness_backend() is the host backend. */
int harness_is_host(void);

/* The lowest descriptor of this process above `after` whose /proc/self/fd
 * link contains name (e.g. "memfd:ncore-segment"); -1 when there is none.
 * Every such descriptor: for (fd = -1; (fd = harness_next_fd_named(fd,
 * name)) >= 0;). */
int harness_next_fd_named(int after, const char *name);

/* A second user for tests that attack as another uid would: makes the
 * system user `name` (as root, with useradd; a name per test program, so
 * programs running at once never remove each other's) and gives its ids.
 * Returns 0, or -1 with why in `why` (not root, useradd failed): such a
 * test then attacks as this user, or skips. harness_remove_user deletes
 * it again. */
int harness_make_user(const char *name, unsigned *uid, unsigned *gid, char *why,
                      size_t size);
void harness_remove_user(const char *name);

#define TEST(name)                                                        \
  static void name(void);                                                 \
  __attribute__((constructor)) static void harness_register_##name(void) { \
    harness_register(#name, name);                                        \
  }                                                                       \
  static void name(void)

#define HARNESS_MAIN \
  int main(int argc, char **argv) { return harness_main(argc, argv); }

#define CHECK(cond)                                         \
  do {                                                      \
    if (!(cond)) {                                          \
      harness_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
      return;                                               \
    }                                                       \
  } while (0)

#define CHECK_EQ(a, b)                                                       \
  do {                                                                       \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);          \
    if (check_a_ != check_b_) {                                              \
      harness_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b,     \
                   check_a_, check_b_);                                      \
      return;                                                                \
    }                                                                        \
  } while (0)

#define CHECK_PTR_EQ(a, b)                                                  \
  do {                                                                      \
    const void *check_a_ = (const void *)(a), *check_b_ = (const void *)(b); \
    if (check_a_ != check_b_) {                                             \
      harness_fail(__FILE__, __LINE__, "%s == %s: %p != %p", #a, #b,        \
                   check_a_, check_b_);                                     \
      return;                                                               \
    }                                                                       \
  } while (0)

#define CHECK_STR_EQ(a, b)                                                   \
  do {                                                                       \
    const char *check_a_ = (a), *check_b_ = (b);                             \
    if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {         \
      harness_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, \
                   check_a_ ? check_a_ : "(null)",                           \
                   check_b_ ? check_b_ : "(null)");                          \
      return;                                                                \
    }                                                                        \
  } while (0)

/* What a call's NCORE_IN_PROGRESS becomes once the communicators of the
 * current test settled (non-blocking runs, multirank.h); other statuses
 * pass through. */
ncore_status_t harness_settle(ncore_status_t status);

/* Runs call, compares its status with expected; on mismatch prints the call,
 * both status names and the library's last error message. A call on a
 * non-blocking communicator that answers NCORE_IN_PROGRESS is judged by
 * its outcome (harness_settle), unless NCORE_IN_PROGRESS is expected. */
#define CHECK_STATUS(call, expected)                                         \
  do {                                                                       \
    ncore_status_t check_expected_ = (expected);                             \
    ncore_status_t check_got_ = (call);                                      \
    if (check_got_ == NCORE_IN_PROGRESS && check_expected_ != NCORE_IN_PROGRESS) \
      check_got_ = harness_settle(check_got_);                               \
    if (check_got_ != check_expected_) {                                     \
      harness_fail(__FILE__, __LINE__, "%s: expected %s, got %s (\"%s\")",   \
                   #call, ncore_status_string(check_expected_),              \
                   ncore_status_string(check_got_),                          \
                   ncore_last_error_message());                              \
      return;                                                                \
    }                                                                        \
  } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, NCORE_OK)

/* Like CHECK_STATUS, but either of two statuses is acceptable (e.g. a dead
 * peer may answer REMOTE or TIMEOUT). */
#define CHECK_STATUS_EITHER(call, first, second)                              \
  do {                                                                        \
    ncore_status_t check_a_ = (first), check_b_ = (second);                   \
    ncore_status_t check_got_ = harness_settle(call);                         \
    if (check_got_ != check_a_ && check_got_ != check_b_) {                   \
      harness_fail(__FILE__, __LINE__, "%s: expected %s or %s, got %s (\"%s\")", \
                   #call, ncore_status_string(check_a_),                      \
                   ncore_status_string(check_b_),                             \
                   ncore_status_string(check_got_),                           \
                   ncore_last_error_message());                               \
      return;                                                                 \
    }                                                                         \
  } while (0)

/* The last error message of this thread contains substring. */
#define CHECK_MESSAGE_CONTAINS(substring)                                     \
  do {                                                                        \
    const char *check_msg_ = ncore_last_error_message();                      \
    if (!check_msg_ || !strstr(check_msg_, (substring))) {                    \
      harness_fail(__FILE__, __LINE__,                                        \
                   "last error message \"%s\" does not contain \"%s\"",      \
                   check_msg_ ? check_msg_ : "(null)", (substring));          \
      return;                                                                 \
    }                                                                         \
  } while (0)

/* Skips the rest of the current test with a reason. */
#define SKIP(...)              \
  do {                         \
    harness_skip(__VA_ARGS__); \
    return;                    \
  } while (0)

/* Skips unless running on the host backend, for a behaviour only the host
 * backend has; `why` names the fact of the other backend (NCCL) that makes
 * the test meaningless there. */
#define REQUIRE_HOST_BACKEND(why)                                  \
  do {                                                             \
    if (!harness_is_host()) SKIP("host backend only: %s", why);   \
  } while (0)

#endif /* NCORE_TESTS_HARNESS_H */
