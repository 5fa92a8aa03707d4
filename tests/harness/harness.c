/* tests/harness — registry, reporting and main of the test framework
 * (harness.h). Multi-rank running lives in multirank.c.
 *
 * Every test runs in a process of its own, started by fork + exec of this
 * same program in its child mode (harness_spawn), never by a bare fork:
 * CUDA does not survive fork(), and the parent may have initialised it
 * (resolving the backend probes NCCL and CUDA; making an NCCL unique id
 * loads them). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "harness.h"

#include <dirent.h>
#include <execinfo.h>
#include <pwd.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "multirank.h"
#include "spawn.h"

#define HARNESS_MAX_TESTS 512

typedef struct harness_entry {
  const char *name;
  harness_test_fn fn;     /* single-process test, or NULL */
  mr_test_fn mr_fn;       /* multi-rank test, or NULL */
  unsigned flags;
  int min_ranks;
} harness_entry_t;

static harness_entry_t entries[HARNESS_MAX_TESTS];
static int entry_count;

/* The state of the running test; one per process (child processes each have
 * their own copy). */
static int current_failed;
static int current_skipped;
static char current_message[1024];
static const char *current_name = "";

void harness_register(const char *name, harness_test_fn fn) {
  if (entry_count == HARNESS_MAX_TESTS) abort();
  entries[entry_count++] = (harness_entry_t){name, fn, NULL, 0, 1};
}

void harness_register_mr(const char *name, mr_test_fn fn, unsigned flags,
                         int min_ranks) {
  if (entry_count == HARNESS_MAX_TESTS) abort();
  entries[entry_count++] = (harness_entry_t){name, NULL, fn, flags, min_ranks};
}

void harness_fail(const char *file, int line, const char *fmt, ...) {
  if (current_failed) return; /* keep the first reason */
  current_failed = 1;
  const char *base = strrchr(file, '/');
  int n = snprintf(current_message, sizeof current_message, "%s:%d: ",
                   base ? base + 1 : file, line);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(current_message + n, sizeof current_message - (size_t)n, fmt, ap);
  va_end(ap);
}

void harness_skip(const char *fmt, ...) {
  if (current_skipped) return;
  current_skipped = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(current_message, sizeof current_message, fmt, ap);
  va_end(ap);
}

int harness_failed(void) { return current_failed; }
int harness_stopped(void) { return current_failed || current_skipped; }
const char *harness_current_test(void) { return current_name; }

/* Used by multirank.c: reset, read and describe the current test's state. */
void harness_reset_current(const char *name) {
  current_failed = 0;
  current_skipped = 0;
  current_message[0] = '\0';
  current_name = name;
}
int harness_current_skipped(void) { return current_skipped; }
const char *harness_current_message(void) { return current_message; }

ncore_backend_t harness_backend(void) {
  static int resolved;
  static ncore_backend_t backend = NCORE_BACKEND_HOST;
  if (!resolved) {
    ncore_backend_t out;
    if (ncore_backend_resolve(NCORE_BACKEND_AUTO, &out) == NCORE_OK)
      backend = out;
    resolved = 1;
  }
  return backend;
}

int harness_is_host(void) { return harness_backend() == NCORE_BACKEND_HOST; }

int harness_make_user(const char *name, unsigned *uid, unsigned *gid, char *why,
                      size_t size) {
  if (geteuid() != 0) {
    snprintf(why, size, "needs root to act as a second user");
    return -1;
  }
  char command[256];
  snprintf(command, sizeof command, "useradd --system --no-create-home --shell "
           "/usr/sbin/nologin %s >/dev/null 2>&1", name);
  int rc = system(command);
  struct passwd *pw = getpwnam(name);
  if (!pw) {
    snprintf(why, size, "useradd did not make a second user (status %d)", rc);
    return -1;
  }
  *uid = pw->pw_uid;
  *gid = pw->pw_gid;
  return 0;
}

void harness_remove_user(const char *name) {
  char command[256];
  snprintf(command, sizeof command, "userdel %s >/dev/null 2>&1", name);
  if (system(command) != 0) fprintf(stderr, "harness: %s failed\n", command);
}

int harness_next_fd_named(int after, const char *name) {
  DIR *d = opendir("/proc/self/fd");
  if (d == NULL) return -1;
  int next = -1;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    int fd = atoi(e->d_name);
    if (fd <= after || (next >= 0 && fd >= next) || e->d_name[0] == '.') continue;
    char path[300], target[300];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (strstr(target, name)) next = fd;
  }
  closedir(d);
  return next;
}

/* What a single-process test's child reports to the parent. */
typedef struct single_report {
  int failed;
  int skipped;
  char message[1024];
} single_report_t;

/* Child side of run_single (started by harness_spawn, never forked from a
 * process that may have touched CUDA): runs one test, reports through fd. */
static int single_child_main(const harness_entry_t *e, int fd) {
  harness_reset_current(e->name);
  e->fn();
  single_report_t report = {current_failed, current_skipped, ""};
  snprintf(report.message, sizeof report.message, "%s", current_message);
  fflush(stdout);
  ssize_t n = write(fd, &report, sizeof report);
  return n == (ssize_t)sizeof report ? 0 : 3;
}

/* Runs one single-process test in a child process of its own, so that a
 * crash or a hang (60 s watchdog) fails that test only; prints its line.
 * Returns 0 passed, 1 failed, 2 skipped. */
static int run_single(const harness_entry_t *e) {
  int fd = -1;
  pid_t pid = harness_spawn(e->name, 0, 1, NULL, &fd);
  if (pid < 0) {
    printf("FAIL %s: cannot start the test's process\n", e->name);
    return 1;
  }
  int status = 0, waited = 0;
  for (int ms = 0; ms < 60000; ms += 2) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      waited = 1;
      break;
    }
    usleep(2000);
  }
  single_report_t report;
  int result;
  if (!waited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    printf("FAIL %s: watchdog: still running after 60 s, killed\n", e->name);
    result = 1;
  } else if (WIFSIGNALED(status)) {
    printf("FAIL %s: killed by signal %d (%s)\n", e->name, WTERMSIG(status),
           strsignal(WTERMSIG(status)));
    result = 1;
  } else if (read(fd, &report, sizeof report) != (ssize_t)sizeof report) {
    printf("FAIL %s: ended without a report (exit status %d)\n", e->name,
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    result = 1;
  } else if (report.failed) {
    printf("FAIL %s: %s\n", e->name, report.message);
    result = 1;
  } else if (report.skipped) {
    printf("skip %s: %s\n", e->name, report.message);
    result = 2;
  } else {
    printf("ok %s\n", e->name);
    result = 0;
  }
  close(fd);
  fflush(stdout);
  return result;
}

/* Finds a registered test by name. */
static const harness_entry_t *find_entry(const char *name) {
  for (int i = 0; i < entry_count; i++)
    if (strcmp(entries[i].name, name) == 0) return &entries[i];
  return NULL;
}

/* A test process that crashes (a double free inside a library aborts, a
 * bad pointer faults) prints its stack to stderr before it dies, so that a
 * crash seen once on a GPU machine says where it happened. Only
 * async-signal-safe calls: backtrace() is primed before any crash (its first
 * call may load libgcc) and backtrace_symbols_fd does not allocate. */
static void print_stack_and_die(int sig) {
  char line[160];
  int n = snprintf(line, sizeof line, "\nharness: %s crashed with signal %d; stack:\n",
                   current_name, sig);
  if (n > 0) (void)!write(STDERR_FILENO, line, (size_t)n);
  void *frames[64];
  int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  raise(sig); /* SA_RESETHAND restored the default action: it ends us */
}

static void print_stack_on_crash(void) {
  void *prime[1];
  (void)backtrace(prime, 1);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = print_stack_and_die;
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGABRT, &action, NULL);
#ifndef __SANITIZE_ADDRESS__ /* AddressSanitizer reports faults better itself */
  sigaction(SIGSEGV, &action, NULL);
  sigaction(SIGBUS, &action, NULL);
  sigaction(SIGILL, &action, NULL);
  sigaction(SIGFPE, &action, NULL);
#endif
}

/* The child mode (argv: prog HARNESS_CHILD_FLAG name rank nranks fd): runs
 * one test, or one rank of one multi-rank test, and exits. */
static int child_main(char **argv) {
  print_stack_on_crash();
  const harness_entry_t *e = find_entry(argv[2]);
  int rank = atoi(argv[3]), nranks = atoi(argv[4]), fd = atoi(argv[5]);
  if (e == NULL) {
    fprintf(stderr, "harness: no test named %s\n", argv[2]);
    return 2;
  }
  if (e->fn) return single_child_main(e, fd);
  return mr_child_main(e->name, rank, nranks, e->mr_fn, fd);
}

/* 1 unless NCORE_TEST_ONLY (test names, separated by commas or spaces) is
 * set and does not name this test: to run one test again and again. */
static int selected_by_env(const char *name) {
  const char *only = getenv("NCORE_TEST_ONLY");
  if (only == NULL || *only == '\0') return 1;
  size_t length = strlen(name);
  for (const char *p = only; (p = strstr(p, name)) != NULL; p += length) {
    int starts = p == only || p[-1] == ',' || p[-1] == ' ';
    int ends = p[length] == '\0' || p[length] == ',' || p[length] == ' ';
    if (starts && ends) return 1;
  }
  return 0;
}

int harness_main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc == 6 && strcmp(argv[1], HARNESS_CHILD_FLAG) == 0) {
    /* No exit handlers: the parent judges from the report and the status. */
    int status = child_main(argv);
    fflush(stdout);
    fflush(stderr);
    _exit(status);
  }
  int nranks = argc > 1 ? atoi(argv[1]) : 2;
  if (mr_in_launcher()) {
    const char *env = getenv("NCORE_NRANKS");
    nranks = env ? atoi(env) : nranks;
  }
  if (nranks < 1) {
    fprintf(stderr, "usage: %s [nranks >= 1]\n", argv[0]);
    return 2;
  }
  int counts[3] = {0, 0, 0}; /* passed, failed, skipped */
  int print = !mr_in_launcher() || atoi(getenv("NCORE_RANK")) == 0;
  for (int i = 0; i < entry_count; i++) {
    const harness_entry_t *e = &entries[i];
    if (!selected_by_env(e->name)) continue;
    int result;
    if (e->fn) {
      if (mr_in_launcher()) {
        if (print) printf("skip %s: single-process test under ncore-run\n", e->name);
        result = 2;
      } else {
        result = run_single(e);
      }
    } else if (nranks < e->min_ranks) {
      if (print) printf("skip %s: needs at least %d ranks\n", e->name, e->min_ranks);
      result = 2;
    } else {
      result = mr_run(e->name, nranks, e->mr_fn, e->flags);
    }
    counts[result]++;
  }
  if (print) {
    if (counts[2])
      printf("%d passed, %d failed, %d skipped\n", counts[0], counts[1], counts[2]);
    else
      printf("%d passed, %d failed\n", counts[0], counts[1]);
  }
  fflush(stdout);
  return counts[1] ? 1 : 0;
}
