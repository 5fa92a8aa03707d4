/* tests/harness — fork + exec of a test's process (spawn.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "spawn.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/launch_vars.h" /* the launcher's variables, host isolation */

pid_t harness_spawn(const char *name, int rank, int nranks,
                    const ncore_unique_id_t *id, int *report_fd) {
  int p[2];
  /* The read end must not leak into later children (it would keep the
   * pipe open after a child died); the write end is dup'ed below. */
  if (pipe2(p, O_CLOEXEC) != 0) {
    perror("harness: pipe");
    return -1;
  }
  char hex[CORE_LAUNCH_ID_HEX_CHARS + 1] = "";
  if (id != NULL) core_launch_id_encode(id, hex);
  char job[32];
  snprintf(job, sizeof job, "test%d", (int)getpid());
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    perror("harness: fork");
    close(p[0]);
    close(p[1]);
    return -1;
  }
  if (pid == 0) {
    /* Only async-signal-safe work would be strictly allowed here in a
     * threaded parent; the harness parent is single-threaded. */
    int fd = dup(p[1]); /* without O_CLOEXEC: survives the exec */
    if (fd < 0) _exit(127);
    char rank_text[16], nranks_text[16], fd_text[16];
    snprintf(rank_text, sizeof rank_text, "%d", rank);
    snprintf(nranks_text, sizeof nranks_text, "%d", nranks);
    snprintf(fd_text, sizeof fd_text, "%d", fd);
    if (id != NULL) setenv(HARNESS_ID_VARIABLE, hex, 1);
    if (core_launch_oversubscribe()) core_launch_isolate_host(job, rank);
    char *argv[] = {(char *)"ncore-test", (char *)HARNESS_CHILD_FLAG,
                    (char *)name, rank_text, nranks_text, fd_text, NULL};
    execv("/proc/self/exe", argv);
    perror("harness: exec /proc/self/exe");
    _exit(127);
  }
  close(p[1]);
  *report_fd = p[0];
  return pid;
}
