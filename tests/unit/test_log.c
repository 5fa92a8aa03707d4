/* Unit tests: the debug log (core/log.h) as a user sees it in its file
 * (NCORE_DEBUG=INFO, NCORE_DEBUG_FILE): every line starts with the local
 * time to the millisecond, the first line says which ncore this is, and a
 * line that repeats the previous one is counted, not written again (issue
 * 41, item 6). The lines are produced through public calls that log:
 * ncore_backend_resolve logs the backend it picks, and a refused call logs
 * its error. Each test runs in a process of its own, so each configures the
 * log afresh from the variables it sets. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* The log's lines, read back from its file. */
typedef struct log_lines {
  char text[16384];
  char *line[64];
  int count;
} log_lines_t;

/* Points the log at a fresh file (before anything logged in this process)
 * and picks the host backend, whose choice is one fixed line. */
static void log_to_file(char *path, size_t cap) {
  snprintf(path, cap, "/tmp/ncore-test-log.XXXXXX");
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  setenv("NCORE_DEBUG", "INFO", 1);
  setenv("NCORE_DEBUG_FILE", path, 1);
  setenv("NCORE_BACKEND", "host", 1);
}

/* Reads the file at path into lines (and removes it). */
static void read_lines(const char *path, log_lines_t *lines) {
  lines->count = 0;
  lines->text[0] = '\0';
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  size_t n = fread(lines->text, 1, sizeof lines->text - 1, f);
  fclose(f);
  unlink(path);
  lines->text[n] = '\0';
  for (char *p = lines->text; *p != '\0' && lines->count < 64;) {
    lines->line[lines->count++] = p;
    char *end = strchr(p, '\n');
    if (end == NULL) break;
    *end = '\0';
    p = end + 1;
  }
}

/* 1 if line matches the extended regular expression pattern. */
static int matches(const char *line, const char *pattern) {
  regex_t re;
  if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) return 0;
  int hit = regexec(&re, line, 0, NULL, 0) == 0;
  regfree(&re);
  return hit;
}

/* The part of a line after "NCORE INFO " / "NCORE WARN ". */
static const char *message_of(const char *line) {
  const char *at = strstr(line, " NCORE ");
  return at != NULL && strlen(at) > 12 ? at + 12 : "";
}

/* Every line of the log: "<date> <time>.<ms> <host>:<pid>:<tid> [<rank>]
 * NCORE <LEVEL> ", and the first one names the version and the ABI. */
TEST(debug_lines_carry_a_timestamp_and_begin_with_the_version) {
  char path[64];
  log_to_file(path, sizeof path);
  if (harness_failed()) return;
  ncore_backend_t backend;
  CHECK_OK(ncore_backend_resolve(NCORE_BACKEND_AUTO, &backend));
  log_lines_t lines;
  read_lines(path, &lines);
  if (harness_failed()) return;
  CHECK(lines.count >= 2);
  for (int i = 0; i < lines.count; i++)
    if (!matches(lines.line[i], "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:"
                                "[0-9]{2}\\.[0-9]{3} [^ :]+:[0-9]+:[0-9]+ \\[[^]]+\\] "
                                "NCORE (INFO|WARN) "))
      harness_fail(__FILE__, __LINE__, "line %d has no timestamp and origin: "
                   "\"%s\"", i + 1, lines.line[i]);
  char first[128];
  snprintf(first, sizeof first, "ncore %s (ABI %u) from ", ncore_version_string(),
           (unsigned)ncore_abi_version());
  CHECK(strncmp(message_of(lines.line[0]), first, strlen(first)) == 0);
  CHECK_STR_EQ(message_of(lines.line[1]), "backend: host (NCORE_BACKEND=host)");
}

/* The same line four more times, then another: the repeats are one count. */
TEST(a_repeated_debug_line_is_counted_not_written_again) {
  char path[64];
  log_to_file(path, sizeof path);
  if (harness_failed()) return;
  ncore_backend_t backend;
  for (int i = 0; i < 5; i++)
    CHECK_OK(ncore_backend_resolve(NCORE_BACKEND_AUTO, &backend));
  /* A different line: a refused call's error. */
  CHECK_STATUS(ncore_backend_resolve((ncore_backend_t)77, &backend),
               NCORE_ERR_INVALID_ARGUMENT);
  log_lines_t lines;
  read_lines(path, &lines);
  if (harness_failed()) return;
  CHECK_EQ(lines.count, 4);
  CHECK_STR_EQ(message_of(lines.line[1]), "backend: host (NCORE_BACKEND=host)");
  CHECK_STR_EQ(message_of(lines.line[2]), "(previous line repeated 4 times)");
  CHECK(strstr(lines.line[3], "ncore_backend_resolve: backend: 77") != NULL);
}

/* Repeats still unsaid when the process exits are said then. */
TEST(repeats_unsaid_at_exit_are_said) {
  char path[64];
  log_to_file(path, sizeof path);
  if (harness_failed()) return;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    ncore_backend_t backend;
    for (int i = 0; i < 3; i++) ncore_backend_resolve(NCORE_BACKEND_AUTO, &backend);
    exit(0);  /* exit(), not _exit(): the library's destructor runs */
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  log_lines_t lines;
  read_lines(path, &lines);
  if (harness_failed()) return;
  CHECK_EQ(lines.count, 3);
  CHECK_STR_EQ(message_of(lines.line[1]), "backend: host (NCORE_BACKEND=host)");
  CHECK_STR_EQ(message_of(lines.line[2]), "(previous line repeated 2 times)");
}

HARNESS_MAIN
