/* Unit tests of tools/ncore-run's command line: what it refuses, with exit
 * status 2 and a message naming the option, and what --info says. The
 * launcher is the one `make
 * lib` built: BUILD/bin/ncore-run next to this program's BUILD/tests, else
 * build/bin/ncore-run (the sanitizer builds have no launcher of their
 * own), else NCORE_TEST_LAUNCHER. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* The launcher's path into out; 0 if none is found (failure recorded). */
static int launcher_path(char *out, size_t size) {
  const char *given = getenv("NCORE_TEST_LAUNCHER");
  if (given && *given) {
    snprintf(out, size, "%s", given);
    return access(out, X_OK) == 0;
  }
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = '\0';
      snprintf(out, size, "%s/../bin/ncore-run", self);
      if (access(out, X_OK) == 0) return 1;
    }
  }
  snprintf(out, size, "build/bin/ncore-run");
  if (access(out, X_OK) == 0) return 1;
  harness_fail(__FILE__, __LINE__,
               "ncore-run not found (make lib builds build/bin/ncore-run; or set "
               "NCORE_TEST_LAUNCHER)");
  return 0;
}

/* Runs the launcher with a timeout option and /bin/true; returns its exit
 * status (-1 if it did not exit) and its stderr's first line in err. */
static int run_with_timeout(const char *launcher, const char *timeout, char *err,
                            size_t size) {
  char command[PATH_MAX + 128];
  snprintf(command, sizeof command, "'%s' -n 1 -t '%s' /bin/true 2>&1 >/dev/null",
           launcher, timeout);
  FILE *p = popen(command, "r");
  if (!p) return -1;
  err[0] = '\0';
  if (!fgets(err, (int)size, p)) err[0] = '\0';
  char rest[256];
  while (fgets(rest, sizeof rest, p)) {
  }
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(timeout_must_be_a_finite_number_of_seconds) {
  char launcher[PATH_MAX];
  if (!launcher_path(launcher, sizeof launcher)) return;
  /* nan, inf and 1e400 (which strtod reads as infinity) passed the old
   * "t <= 0" test and meant no limit at all. */
  static const char *refused[] = {"nan", "NaN", "inf", "-inf", "infinity", "1e400",
                                  "-5", "0", "abc", ""};
  char err[512];
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    int status = run_with_timeout(launcher, refused[i], err, sizeof err);
    if (status != 2 || !strstr(err, "--timeout")) {
      harness_fail(__FILE__, __LINE__,
                   "-t '%s': exit status %d (expected 2), stderr \"%s\"",
                   refused[i], status, err);
      return;
    }
  }
  CHECK(strstr(err, "finite number of seconds") != NULL);
  /* A real time still runs the program. */
  CHECK_EQ(run_with_timeout(launcher, "30", err, sizeof err), 0);
  CHECK_EQ(run_with_timeout(launcher, "0.5", err, sizeof err), 0);
}

/* --info: one line on stdout, exit 0, with the library's own facts
 * (ncore_library_info): version and ABI, the backend AUTO picks and why,
 * the libnccl loaded or why none was, the CUDA devices. */
TEST(info_describes_the_library_in_one_line) {
  char launcher[PATH_MAX];
  if (!launcher_path(launcher, sizeof launcher)) return;
  char command[PATH_MAX + 32];
  snprintf(command, sizeof command, "'%s' --info", launcher);
  FILE *p = popen(command, "r");
  CHECK(p != NULL);
  char line[4096] = "", more[256];
  if (!fgets(line, sizeof line, p)) line[0] = '\0';
  int extra = fgets(more, sizeof more, p) != NULL;
  int status = pclose(p);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(!extra);
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  CHECK_OK(ncore_library_info(&info));
  char want[NCORE_INFO_REASON_BYTES + NCORE_INFO_PATH_BYTES + 128];
  snprintf(want, sizeof want, "ncore %s (ABI %u); %s backend: %s; ",
           ncore_version_string(), (unsigned)ncore_abi_version(),
           info.backend == NCORE_BACKEND_NCCL ? "nccl" : "host",
           info.backend_reason);
  if (strncmp(line, want, strlen(want)) != 0)
    harness_fail(__FILE__, __LINE__, "--info said \"%s\", not \"%s...\"", line, want);
  if (info.nccl_path[0] != '\0') {
    snprintf(want, sizeof want, " from %s; ", info.nccl_path);
    CHECK(strstr(line, want) != NULL);
  } else {
    CHECK(strstr(line, "; NCCL not loaded") != NULL);
  }
  snprintf(want, sizeof want, "; CUDA devices: %d\n", (int)info.cuda_device_count);
  CHECK(strstr(line, want) != NULL);
}

HARNESS_MAIN
