/* ncore-run -n N [--backend host|nccl] [--timeout SECONDS] [--] PROGRAM ARGS...
 *
 * Starts N ranks of PROGRAM with NCORE_RANK, NCORE_NRANKS, NCORE_LOCAL_RANK and
 * NCORE_UNIQUE_ID (one id made here with ncore_get_unique_id) in their
 * environment. Each rank's output is forwarded line by line with a "[r] "
 * prefix. When a rank fails (non-zero exit or a signal) the others get SIGTERM,
 * then SIGKILL after a grace period; ncore-run then exits non-zero, saying
 * which rank failed and how. --timeout kills everything after SECONDS. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ncore.h>

#include "ncore_launch_env.h"

#define MAX_RANKS 1024
#define GRACE_SECONDS 3

typedef struct rank_proc {
  pid_t pid;
  int out_fd, err_fd; /* -1 once closed */
  char out_buf[8192], err_buf[8192];
  size_t out_len, err_len;
  int done, status;
} rank_proc_t;

static void usage(void) {
  fprintf(stderr,
          "usage: ncore-run -n N [--backend host|nccl] [--timeout SECONDS] [--] PROGRAM "
          "[ARGS...]\n");
  exit(2);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Writes complete lines of buf with the rank prefix; keeps the partial tail. */
static void flush_lines(int rank, char *buf, size_t *len, FILE *to, int all) {
  size_t start = 0;
  for (size_t i = 0; i < *len; i++) {
    if (buf[i] == '\n') {
      fprintf(to, "[%d] %.*s\n", rank, (int)(i - start), buf + start);
      start = i + 1;
    }
  }
  if (all && start < *len) {
    fprintf(to, "[%d] %.*s\n", rank, (int)(*len - start), buf + start);
    start = *len;
  }
  memmove(buf, buf + start, *len - start);
  *len -= start;
  fflush(to);
}

static void drain(int rank, int *fd, char *buf, size_t *len, FILE *to) {
  if (*len == 8192) flush_lines(rank, buf, len, to, 1);
  ssize_t n = read(*fd, buf + *len, 8192 - *len);
  if (n > 0) {
    *len += (size_t)n;
    flush_lines(rank, buf, len, to, 0);
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    flush_lines(rank, buf, len, to, 1);
    close(*fd);
    *fd = -1;
  }
}

static void describe(int rank, int status) {
  if (WIFSIGNALED(status))
    fprintf(stderr, "ncore-run: rank %d killed by signal %d (%s)\n", rank, WTERMSIG(status),
            strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    fprintf(stderr, "ncore-run: rank %d exited with status %d\n", rank, WEXITSTATUS(status));
}

int main(int argc, char **argv) {
  int nranks = 0, first = 1;
  double timeout = 0;
  const char *backend_name = NULL;
  while (first < argc && argv[first][0] == '-') {
    if (strcmp(argv[first], "--") == 0) { first++; break; }
    if (first + 1 >= argc) usage();
    if (strcmp(argv[first], "-n") == 0) nranks = atoi(argv[first + 1]);
    else if (strcmp(argv[first], "--backend") == 0) backend_name = argv[first + 1];
    else if (strcmp(argv[first], "--timeout") == 0) timeout = atof(argv[first + 1]);
    else usage();
    first += 2;
  }
  if (nranks < 1 || nranks > MAX_RANKS || first >= argc) usage();
  if (backend_name) setenv("NCORE_BACKEND", backend_name, 1);

  ncore_backend_t backend;
  ncore_unique_id_t id;
  if (ncore_backend_resolve(NCORE_BACKEND_AUTO, &backend) != NCORE_OK ||
      ncore_get_unique_id(&id, backend) != NCORE_OK) {
    fprintf(stderr, "ncore-run: %s\n", ncore_last_error_message());
    return 2;
  }
  char hex[2 * NCORE_UNIQUE_ID_BYTES + 1], number[32];
  ncore_launch_env_encode(&id, hex);
  setenv("NCORE_UNIQUE_ID", hex, 1);
  snprintf(number, sizeof number, "%d", nranks);
  setenv("NCORE_NRANKS", number, 1);
  setenv("NCORE_BACKEND", backend == NCORE_BACKEND_NCCL ? "nccl" : "host", 1);

  static rank_proc_t procs[MAX_RANKS];
  for (int r = 0; r < nranks; r++) {
    int out[2], err[2];
    if (pipe(out) || pipe(err)) { perror("ncore-run: pipe"); return 2; }
    pid_t pid = fork();
    if (pid < 0) { perror("ncore-run: fork"); return 2; }
    if (pid == 0) {
      snprintf(number, sizeof number, "%d", r);
      setenv("NCORE_RANK", number, 1);
      setenv("NCORE_LOCAL_RANK", number, 1);
      dup2(out[1], 1);
      dup2(err[1], 2);
      close(out[0]); close(out[1]); close(err[0]); close(err[1]);
      execvp(argv[first], argv + first);
      fprintf(stderr, "ncore-run: cannot run %s: %s\n", argv[first], strerror(errno));
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    procs[r] = (rank_proc_t){.pid = pid, .out_fd = out[0], .err_fd = err[0]};
  }

  int failed = 0, remaining = nranks;
  double kill_deadline = 0, start = now();
  while (remaining > 0) {
    struct pollfd fds[2 * MAX_RANKS];
    int owner[2 * MAX_RANKS], nfds = 0;
    for (int r = 0; r < nranks; r++) {
      if (procs[r].out_fd >= 0) { fds[nfds] = (struct pollfd){procs[r].out_fd, POLLIN, 0}; owner[nfds++] = r; }
      if (procs[r].err_fd >= 0) { fds[nfds] = (struct pollfd){procs[r].err_fd, POLLIN, 0}; owner[nfds++] = -1 - r; }
    }
    if (nfds > 0 && poll(fds, (nfds_t)nfds, 50) > 0) {
      for (int i = 0; i < nfds; i++) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        rank_proc_t *p = &procs[owner[i] >= 0 ? owner[i] : -1 - owner[i]];
        int r = (int)(p - procs);
        if (owner[i] >= 0) drain(r, &p->out_fd, p->out_buf, &p->out_len, stdout);
        else drain(r, &p->err_fd, p->err_buf, &p->err_len, stderr);
      }
    } else if (nfds == 0) {
      usleep(20000);
    }
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (int r = 0; r < nranks; r++) {
        if (procs[r].pid != pid || procs[r].done) continue;
        procs[r].done = 1;
        procs[r].status = status;
        remaining--;
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
          describe(r, status);
          if (!failed) {
            failed = 1;
            kill_deadline = now() + GRACE_SECONDS;
            for (int o = 0; o < nranks; o++)
              if (!procs[o].done) kill(procs[o].pid, SIGTERM);
          }
        }
      }
    }
    if (timeout > 0 && !failed && now() - start > timeout) {
      fprintf(stderr, "ncore-run: timed out after %.0f s; killing all ranks\n", timeout);
      failed = 1;
      kill_deadline = now() + GRACE_SECONDS;
      for (int o = 0; o < nranks; o++)
        if (!procs[o].done) kill(procs[o].pid, SIGTERM);
    }
    if (failed && kill_deadline > 0 && now() > kill_deadline) {
      for (int o = 0; o < nranks; o++)
        if (!procs[o].done) kill(procs[o].pid, SIGKILL);
      kill_deadline = 0;
    }
  }
  for (int r = 0; r < nranks; r++) {
    if (procs[r].out_fd >= 0) drain(r, &procs[r].out_fd, procs[r].out_buf, &procs[r].out_len, stdout);
    if (procs[r].err_fd >= 0) drain(r, &procs[r].err_fd, procs[r].err_buf, &procs[r].err_len, stderr);
  }
  return failed ? 1 : 0;
}
