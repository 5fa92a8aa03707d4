/* core/launcher — runs the ranks: one child process each, its stdout and
 * stderr read through pipes and forwarded line by line with a "[r] " prefix
 * (so interleaved ranks stay readable), children reaped as they end. A rank
 * that dies abnormally (non-zero exit or a signal) makes the launcher stop
 * the others, SIGTERM first and SIGKILL after a grace period, because its
 * peers would otherwise wait for it until their own timeouts. */
#include "ranks.h"

#include "core/launch_vars.h"
#include "master_port.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One output stream of one rank, with the bytes of its unfinished line. */
typedef struct stream {
  int fd;          /* -1 once closed */
  FILE *out;       /* where its lines go */
  char *line;
  size_t used, cap;
} stream_t;

typedef struct rank {
  pid_t pid;       /* 0 once reaped */
  int status;      /* wait status */
  stream_t streams[2];
} rank_t;

static volatile sig_atomic_t interrupted_by = 0;

/* Remembers SIGINT/SIGTERM sent to the launcher, so the loop stops the ranks. */
static void on_signal(int sig) { interrupted_by = sig; }

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Whether lines get the "[r] " prefix (the plan's tag). */
static int tag_lines = 1;

/* Writes one complete (or final, partial) line of rank r. */
static void emit_line(int r, stream_t *s, const char *text, size_t len) {
  if (tag_lines) fprintf(s->out, "[%d] ", r);
  fprintf(s->out, "%.*s\n", (int)len, text);
  fflush(s->out);
}

/* Reads what is available on s and prints every complete line; at EOF prints
 * the partial rest and closes the stream. */
static void drain_stream(int r, stream_t *s) {
  char buf[65536];
  ssize_t n = read(s->fd, buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    if (s->used) emit_line(r, s, s->line, s->used);
    s->used = 0;
    close(s->fd);
    s->fd = -1;
    return;
  }
  if (s->used + (size_t)n > s->cap) {
    s->cap = (s->used + (size_t)n) * 2;
    s->line = realloc(s->line, s->cap);
    if (!s->line) { perror("ncore-run: realloc"); exit(2); }
  }
  memcpy(s->line + s->used, buf, (size_t)n);
  s->used += (size_t)n;
  size_t start = 0;
  for (size_t i = 0; i < s->used; i++) {
    if (s->line[i] != '\n') continue;
    emit_line(r, s, s->line + start, i - start);
    start = i + 1;
  }
  memmove(s->line, s->line + start, s->used - start);
  s->used -= start;
}

/* The launcher's pid, for its children to tell whether it is still there. */
static pid_t launcher_pid;

/* torchrun's rendezvous port for the ranks (master_port.h). */
static char master_port[16];

/* What each rank gets besides ncore's variables (the job's secret among
 * them, which replaces any of an enclosing job: each launch is a job of
 * its own, and its ranks prove it to rank 0's store of later ids):
 * torchrun's names (so
 * programs written for torchrun, e.g. nccl.core programs that exchange
 * their id through MASTER_ADDR:MASTER_PORT, run unchanged), unbuffered
 * Python, and line-buffered stdout in C programs that link libncore
 * (NCORE_LINE_BUFFERED, core/stdio_lines.c). */
static void set_rank_environment(const launch_plan_t *plan, int r) {
  char number[32];
  snprintf(number, sizeof number, "%d", r);
  setenv("NCORE_RANK", number, 1);
  setenv("NCORE_LOCAL_RANK", number, 1);
  setenv("RANK", number, 1);
  setenv("LOCAL_RANK", number, 1);
  snprintf(number, sizeof number, "%d", plan->nranks);
  setenv("NCORE_NRANKS", number, 1);
  setenv("WORLD_SIZE", number, 1);
  setenv("LOCAL_WORLD_SIZE", number, 1);
  setenv("NCORE_UNIQUE_ID", plan->unique_id_hex, 1);
  setenv("NCORE_JOB_SECRET", plan->job_secret_hex, 1);
  unsetenv("NCORE_JOB_SECRET_FILE");
  setenv("MASTER_ADDR", getenv("MASTER_ADDR") ? getenv("MASTER_ADDR") : "127.0.0.1", 1);
  setenv("MASTER_PORT", master_port, 1);
  setenv("PYTHONUNBUFFERED", "1", 1);
  setenv("NCORE_LINE_BUFFERED", "1", 1);
  if (plan->oversubscribe) {
    char job[32];
    snprintf(job, sizeof job, "%d", (int)launcher_pid);
    core_launch_isolate_host(job, r);
  }
}

/* Child side of fork: environment, output pipes, exec. Never returns. */
static void exec_rank(const launch_plan_t *plan, int r, int out_fd, int err_fd) {
  set_rank_environment(plan, r);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  /* If the launcher itself is killed (SIGKILL, a test harness's timeout),
   * its ranks go too rather than waiting on each other as orphans. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher_pid) _exit(127); /* it died before prctl */
  execvp(plan->argv[0], plan->argv);
  fprintf(stderr, "ncore-run: cannot run %s: %s\n", plan->argv[0], strerror(errno));
  _exit(127);
}

/* Starts rank r; returns -1 (after saying why) if it cannot. */
static int start_rank(const launch_plan_t *plan, int r, rank_t *rank) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) {
    perror("ncore-run: pipe");
    return -1;
  }
  fflush(NULL);
  launcher_pid = getpid();
  pid_t pid = fork();
  if (pid < 0) { perror("ncore-run: fork"); return -1; }
  if (pid == 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    exec_rank(plan, r, out_pipe[1], err_pipe[1]);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  rank->pid = pid;
  rank->streams[0] = (stream_t){.fd = out_pipe[0], .out = stdout};
  rank->streams[1] = (stream_t){.fd = err_pipe[0], .out = stderr};
  for (int i = 0; i < 2; i++) {
    fcntl(rank->streams[i].fd, F_SETFL, O_NONBLOCK);
    fcntl(rank->streams[i].fd, F_SETFD, FD_CLOEXEC);
  }
  return 0;
}

/* Sends sig to every rank still running. */
static void signal_ranks(rank_t *ranks, int n, int sig) {
  for (int r = 0; r < n; r++)
    if (ranks[r].pid > 0) kill(ranks[r].pid, sig);
}

/* The launcher's exit status for a rank's wait status: its exit status,
 * or 128 + the signal that killed it. */
static int exit_status_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

/* The first failure's exit status (0: none yet). */
static int first_failure = 0;

/* Whether a wait status is a failure; says so on stderr if it is. */
static int report_if_failed(int r, int status, int stopped_by_us) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (!stopped_by_us && first_failure == 0) first_failure = exit_status_of(status);
  if (stopped_by_us) {
    fprintf(stderr, "ncore-run: rank %d stopped by the launcher\n", r);
  } else if (WIFEXITED(status)) {
    fprintf(stderr, "ncore-run: rank %d failed: exit status %d\n", r, WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    fprintf(stderr, "ncore-run: rank %d failed: killed by signal %d (%s)\n", r,
            WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  return 1;
}

/* Reaps the ranks that have ended; returns how many failed among them. */
static int reap_ranks(rank_t *ranks, int n, int stopping) {
  int failed = 0, status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (int r = 0; r < n; r++) {
      if (ranks[r].pid != pid) continue;
      ranks[r].pid = 0;
      ranks[r].status = status;
      failed += report_if_failed(r, status, stopping);
    }
  }
  return failed;
}

/* Polls every open output stream for up to timeout_ms and drains the ready
 * ones. Returns the number of streams still open. */
static int forward_output(rank_t *ranks, int n, int timeout_ms) {
  struct pollfd fds[2 * n];
  stream_t *owners[2 * n];
  int ranks_of[2 * n];
  int count = 0;
  for (int r = 0; r < n; r++)
    for (int i = 0; i < 2; i++) {
      if (ranks[r].streams[i].fd < 0) continue;
      fds[count] = (struct pollfd){.fd = ranks[r].streams[i].fd, .events = POLLIN};
      owners[count] = &ranks[r].streams[i];
      ranks_of[count++] = r;
    }
  if (count == 0) {
    struct timespec pause = {0, (long)timeout_ms * 1000000L};
    nanosleep(&pause, NULL);
    return 0;
  }
  if (poll(fds, (nfds_t)count, timeout_ms) > 0)
    for (int k = 0; k < count; k++)
      if (fds[k].revents) drain_stream(ranks_of[k], owners[k]);
  return count;
}

int launch_ranks(const launch_plan_t *plan) {
  int n = plan->nranks;
  rank_t *ranks = calloc((size_t)n, sizeof *ranks);
  if (!ranks) { perror("ncore-run: calloc"); return 1; }
  struct sigaction sa = {.sa_handler = on_signal};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  tag_lines = plan->tag;
  launcher_choose_master_port(master_port, sizeof master_port);

  int failed = 0, running = 0, status = 0;
  for (int r = 0; r < n; r++) {
    if (start_rank(plan, r, &ranks[r]) != 0) { failed = 1; status = 127; break; }
    running++;
  }
  /* A rank that failed leaves the others grace_seconds to notice (their
   * next call fails with NCORE_ERR_REMOTE) and end by themselves; a
   * timeout or an interrupt stops them at once. SIGKILL follows SIGTERM
   * after grace_seconds. */
  double started = now_seconds(), term_at = 0, kill_at = 0; /* 0: not yet */
  int open_streams = 1, killed = 0;
  while (running > 0 || open_streams > 0) {
    open_streams = forward_output(ranks, n, 100);
    failed += reap_ranks(ranks, n, kill_at > 0);
    running = 0;
    for (int r = 0; r < n; r++) running += ranks[r].pid > 0;
    if (running == 0) continue;
    double now = now_seconds();
    const char *why = NULL;
    int why_status = 0;
    if (interrupted_by) {
      why = "the launcher was interrupted";
      why_status = 130;
    } else if (plan->timeout_seconds > 0 && now - started > plan->timeout_seconds) {
      why = "the timeout passed";
      why_status = 124;
    }
    if (why && !status) status = why_status;
    if (why && kill_at == 0) term_at = now;
    if (failed && term_at == 0) term_at = now + plan->grace_seconds;
    if (term_at > 0 && kill_at == 0 && now >= term_at) {
      fprintf(stderr, "ncore-run: stopping %d remaining rank(s): %s\n", running,
              why ? why : "a rank failed");
      signal_ranks(ranks, n, SIGTERM);
      kill_at = now + plan->grace_seconds;
    } else if (kill_at > 0 && !killed && now > kill_at) {
      fprintf(stderr, "ncore-run: sending SIGKILL after %.0f s grace\n", plan->grace_seconds);
      signal_ranks(ranks, n, SIGKILL);
      killed = 1;
    }
  }
  for (int r = 0; r < n; r++)
    for (int i = 0; i < 2; i++) free(ranks[r].streams[i].line);
  free(ranks);
  if (first_failure) return first_failure;
  if (status) return status;
  return failed ? 1 : 0;
}
