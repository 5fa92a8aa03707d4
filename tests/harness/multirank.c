/* tests/harness — running multi-rank tests: ranks started as child processes
 * (fork + exec, spawn.h) with a watchdog, or ranks started by tools/ncore-run
 * (multirank.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "multirank.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/launch_vars.h" /* the launcher's variables */
#include "spawn.h"
#include "testbuf.h"

/* harness.c's view of the current test. */
void harness_reset_current(const char *name);
int harness_current_skipped(void);
const char *harness_current_message(void);

#define MR_MAX_RANKS 64
/* A test that runs longer than this is hung: a minute, or four of its
 * communicator timeouts where NCORE_TEST_TIMEOUT_MS raises them (under
 * compute-sanitizer NCCL's init alone takes tens of seconds, and a test may
 * wait out a timeout after it). */
#define MR_WATCHDOG_MS mr_watchdog_ms()
static double mr_watchdog_ms(void) {
  double scaled = 4.0 * MR_TIMEOUT_MS;
  return scaled > 60000.0 ? scaled : 60000.0;
}

/* What a child rank tells the parent at its end. */
typedef struct mr_report {
  int failed;
  int skipped;
  int died_on_purpose;
  char message[960];
} mr_report_t;

static int report_fd = -1; /* the pipe of this child rank */
static int my_rank = -1;
static int my_nranks = 0; /* the test's ranks (child-process mode only) */

double mr_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int mr_in_launcher(void) {
  return getenv("NCORE_RANK") && getenv("NCORE_UNIQUE_ID") &&
         getenv("NCORE_NRANKS");
}

int mr_timeout_ms(void) {
  /* NCORE_TEST_TIMEOUT_MS overrides. The timeout bounds NCCL's init too:
   * seconds over sockets (ranks oversubscribed on one GPU), about one with
   * one rank per GPU. */
  const char *v = getenv("NCORE_TEST_TIMEOUT_MS");
  if (v != NULL && atoi(v) > 0) return atoi(v);
  if (harness_is_host()) return 5000;
  const char *over = getenv("NCORE_OVERSUBSCRIBE");
  return over != NULL && *over && strcmp(over, "0") != 0 ? 15000 : 8000;
}

int mr_nonblocking(void) {
  const char *v = getenv("NCORE_TEST_NONBLOCKING");
  return v != NULL && strcmp(v, "1") == 0;
}

ncore_comm_config_t mr_config(void) {
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = MR_TIMEOUT_MS;
  if (mr_nonblocking()) config.blocking = 0;
  return config;
}

/* The communicators of the running test, for harness_settle. */
#define MR_TRACKED 16
static ncore_comm_t tracked[MR_TRACKED];
static int tracked_count;

void mr_track(ncore_comm_t comm) {
  if (comm != NCORE_NULL_HANDLE && tracked_count < MR_TRACKED)
    tracked[tracked_count++] = comm;
}

/* Polls comm's asynchronous state until it is not NCORE_IN_PROGRESS, for
 * at most twice the harness timeout. */
static ncore_status_t settle_comm(ncore_comm_t comm) {
  double start = mr_now_ms();
  for (;;) {
    ncore_status_t state = NCORE_OK;
    ncore_status_t st = ncore_comm_async_error(comm, &state);
    if (st != NCORE_OK) return st;
    if (state != NCORE_IN_PROGRESS) return state;
    if (mr_now_ms() - start > 2.0 * MR_TIMEOUT_MS) return NCORE_ERR_TIMEOUT;
    usleep(200);
  }
}

ncore_status_t harness_settle(ncore_status_t status) {
  if (status != NCORE_IN_PROGRESS) return status;
  ncore_status_t first = NCORE_OK;
  for (int i = 0; i < tracked_count; i++) {
    if (!ncore_comm_is_valid(tracked[i])) continue;
    ncore_status_t st = settle_comm(tracked[i]);
    if (st != NCORE_OK && first == NCORE_OK) first = st;
  }
  return first;
}

ncore_status_t mr_complete(ncore_comm_t comm, ncore_status_t enqueued,
                           ncore_stream_t stream) {
  enqueued = harness_settle(enqueued);
  if (enqueued != NCORE_OK) return enqueued;
  return ncore_comm_synchronize(comm, stream);
}

int mr_lsa_reachable(ncore_comm_t comm, int peer) {
  int rank = -1, lsa_rank = -1, lsa_size = 0;
  if (ncore_comm_rank(comm, &rank) != NCORE_OK ||
      ncore_comm_lsa_rank(comm, &lsa_rank) != NCORE_OK ||
      ncore_comm_lsa_size(comm, &lsa_size) != NCORE_OK)
    return 0;
  int first = rank - lsa_rank;
  return peer >= first && peer < first + lsa_size;
}

int mr_windows_available(ncore_comm_t comm, char *why, size_t cap) {
  if (harness_is_host()) return 1;
  void *mem = NULL;
  ncore_window_t w = NCORE_NULL_HANDLE;
  ncore_status_t s = ncore_mem_alloc(&mem, 4096, NCORE_BACKEND_NCCL);
  if (s == NCORE_OK)
    s = harness_settle(ncore_register_window(&w, comm, mem, 4096, 0));
  snprintf(why, cap, "%s", s == NCORE_OK ? "" : ncore_last_error_message());
  if (w != NCORE_NULL_HANDLE) ncore_window_close(w);
  if (mem != NULL) ncore_mem_free(mem, NCORE_BACKEND_NCCL);
  return s != NCORE_ERR_NOT_SUPPORTED;
}

int mr_onesided_reachable(ncore_comm_t comm, int peer) {
  if (mr_lsa_reachable(comm, peer)) return 1;
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  return ncore_comm_properties(comm, &props) == NCORE_OK &&
         props.host_rma_support;
}

/* Selects this rank's GPU on the NCCL backend (one GPU per rank, wrapping). */
void mr_select_device(int rank) {
  if (harness_is_host()) return;
  int count = 0;
  if (ncore_device_count(NCORE_BACKEND_NCCL, &count) == NCORE_OK && count > 0)
    ncore_device_set(NCORE_BACKEND_NCCL, rank % count);
}

ncore_comm_t mr_comm_init(int rank, int nranks, const ncore_unique_id_t *id) {
  ncore_comm_config_t config = mr_config();
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  mr_select_device(rank);
  ncore_status_t st = ncore_comm_init_rank(&comm, nranks, id, rank, &config);
  if (st == NCORE_IN_PROGRESS) {
    st = settle_comm(comm);
    if (st != NCORE_OK) ncore_comm_abort(comm);
  }
  if (st != NCORE_OK) {
    harness_fail(__FILE__, __LINE__, "ncore_comm_init_rank(rank %d of %d): %s (\"%s\")",
                 rank, nranks, ncore_status_string(st), ncore_last_error_message());
    return NCORE_NULL_HANDLE;
  }
  mr_track(comm);
  return comm;
}

/* The environment variable naming the file mr_host_barrier counts in. */
#define BARRIER_VARIABLE "NCORE_HARNESS_BARRIER"

/* The arrivals counter of this child rank's test, mapped from the file the
 * parent made; NULL until the first mr_host_barrier. */
static _Atomic uint64_t *barrier_arrivals;
static uint64_t barrier_calls;

/* Maps the parent's counter file. Returns 0, or -1 with a failure recorded. */
static int barrier_map(void) {
  if (barrier_arrivals != NULL) return 0;
  const char *path = getenv(BARRIER_VARIABLE);
  int fd = path ? open(path, O_RDWR) : -1;
  void *p = fd >= 0 ? mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE,
                           MAP_SHARED, fd, 0)
                    : MAP_FAILED;
  if (fd >= 0) close(fd);
  if (p == MAP_FAILED) {
    harness_fail(__FILE__, __LINE__, "host barrier: cannot map %s (%s)",
                 path ? path : BARRIER_VARIABLE " (unset)", strerror(errno));
    return -1;
  }
  barrier_arrivals = p;
  return 0;
}

void *mr_abort_later(void *aborter) {
  mr_aborter_t *a = aborter;
  usleep((useconds_t)a->delay_ms * 1000);
  a->status = ncore_comm_abort(a->comm);
  return NULL;
}

int mr_host_barrier_within(int nranks, int timeout_ms) {
  if (mr_in_launcher()) {
    harness_fail(__FILE__, __LINE__, "mr_host_barrier needs ranks started by "
                 "the harness (MR_OWN_PROCESSES), not by ncore-run");
    return -1;
  }
  if (barrier_map() != 0) return -1;
  /* The counter only grows: the k-th barrier is passed once every rank
   * arrived k times (a rank that gave up on one still counts there). */
  uint64_t target = ++barrier_calls * (uint64_t)nranks;
  atomic_fetch_add(barrier_arrivals, 1);
  double until = mr_now_ms() + timeout_ms;
  while (atomic_load(barrier_arrivals) < target) {
    if (mr_now_ms() > until) return -1;
    usleep(500);
  }
  return 0;
}

void mr_host_barrier(int nranks) {
  if (mr_host_barrier_within(nranks, MR_TIMEOUT_MS) != 0 && !harness_failed())
    harness_fail(__FILE__, __LINE__, "host barrier %llu: not every one of %d "
                 "ranks arrived within %d ms",
                 (unsigned long long)barrier_calls, nranks, MR_TIMEOUT_MS);
}

/* Makes the counter file of one test's mr_host_barrier and names it in this
 * process's environment, which the ranks inherit. Returns 0 or -1. */
static int barrier_create(char *path, size_t size) {
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, size, "%s/ncore-harness-barrier-XXXXXX", dir);
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  int ok = ftruncate(fd, sizeof(uint64_t)) == 0; /* zeroed */
  close(fd);
  if (!ok || setenv(BARRIER_VARIABLE, path, 1) != 0) {
    unlink(path);
    return -1;
  }
  return 0;
}

static void barrier_remove(const char *path) {
  unsetenv(BARRIER_VARIABLE);
  unlink(path);
}

void mr_barrier(ncore_comm_t comm) {
  int32_t *buf = tb_alloc(sizeof(int32_t));
  if (!buf) return;
  /* Waits for the allreduce, not just its enqueueing: on NCCL it runs on
   * the stream after the call returned. */
  ncore_status_t st = mr_complete(
      comm, ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL), NULL);
  if (st != NCORE_OK) {
    harness_fail(__FILE__, __LINE__, "barrier allreduce: %s (\"%s\")",
                 ncore_status_string(st), ncore_last_error_message());
    /* Left allocated: on NCCL the allreduce may still wait on the device,
     * and freeing waits for the device (ncore_mem_free) — for ever, until
     * the communicator is aborted. */
    return;
  }
  tb_free(buf);
  /* On NCCL a rank's collective ends once its last bytes are handed to
   * its proxy thread, before they reach the peers: a rank that aborted or
   * died right after this allreduce would leave the others waiting in it
   * (NCCL 2.30.7, sockets: ranks 1 and 2 of 3 hung in 9 of 12 runs of
   * resources_of_aborted_comm_are_closed). So every rank returns only
   * once every rank's allreduce is over — where the communicator holds all
   * of the test's ranks, each of which calls this barrier too (a split's
   * or a shrink's part does not). */
  int size = 0;
  if (my_nranks > 0 && ncore_comm_size(comm, &size) == NCORE_OK &&
      size == my_nranks)
    mr_host_barrier(my_nranks);
}

/* Writes this rank's report to the parent (child-process mode). */
static void send_report(int died_on_purpose) {
  if (report_fd < 0) return;
  mr_report_t report = {0};
  report.failed = harness_failed();
  report.skipped = harness_current_skipped();
  report.died_on_purpose = died_on_purpose;
  snprintf(report.message, sizeof report.message, "%s", harness_current_message());
  ssize_t n = write(report_fd, &report, sizeof report);
  (void)n;
}

/* The body of mr_plain_window_refused, in a void function for the CHECKs. */
static void check_plain_window_refused(ncore_comm_t comm, void *mem, size_t bytes) {
  ncore_window_t win;
  CHECK_STATUS(ncore_register_window(&win, comm, mem, bytes, NCORE_WINDOW_DEFAULT),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ptr");
}

int mr_plain_window_refused(ncore_comm_t comm, void *mem, size_t bytes) {
  if (harness_is_host()) return 0;
  check_plain_window_refused(comm, mem, bytes);
  free(mem);
  ncore_status_t st = ncore_comm_destroy(comm);
  if (st != NCORE_OK)
    harness_fail(__FILE__, __LINE__, "ncore_comm_destroy: %s", ncore_status_string(st));
  return 1;
}

void mr_connect_peers(ncore_comm_t comm, int rank, int nranks) {
  int32_t *out = tb_alloc(sizeof(int32_t) * (size_t)nranks);
  int32_t *in = tb_alloc(sizeof(int32_t) * (size_t)nranks);
  if (!out || !in) return;
  ncore_status_t st = ncore_group_start();
  for (int peer = 0; peer < nranks && st == NCORE_OK; peer++) {
    if (peer == rank) continue;
    st = ncore_send(comm, out + peer, 1, NCORE_INT32, peer, NULL);
    if (st == NCORE_OK) st = ncore_recv(comm, in + peer, 1, NCORE_INT32, peer, NULL);
  }
  ncore_status_t ended = ncore_group_end();
  if (st == NCORE_OK) st = mr_complete(comm, ended, NULL);
  if (st != NCORE_OK)
    harness_fail(__FILE__, __LINE__, "connecting the peers: %s (\"%s\")",
                 ncore_status_string(st), ncore_last_error_message());
  tb_free(out);
  tb_free(in);
}

void mr_die(void) {
  fflush(stdout);
  send_report(1);
  kill(getpid(), SIGKILL);
  for (;;) pause();
}

int mr_child_main(const char *name, int rank, int nranks, mr_test_fn fn,
                  int fd) {
  ncore_unique_id_t id;
  if (core_launch_id_decode(getenv(HARNESS_ID_VARIABLE), &id) != 0) {
    fprintf(stderr, "harness: %s is missing or malformed\n", HARNESS_ID_VARIABLE);
    return 2;
  }
  report_fd = fd;
  my_rank = rank;
  my_nranks = nranks;
  tracked_count = 0;
  harness_reset_current(name);
  /* As a program that makes its communicators with ncore_comm_init_rank
   * must: one GPU per rank of this machine, current before any init. */
  mr_select_device(rank);
  fn(rank, nranks, &id);
  if (harness_failed())
    printf("rank %d: FAIL %s: %s\n", rank, name, harness_current_message());
  fflush(stdout);
  send_report(0);
  return 0;
}

/* Describes how a child ended, into buf. Returns 1 if that is a failure. */
static int judge_child(int status, const mr_report_t *report, int have_report,
                       char *buf, size_t size) {
  if (have_report && report->died_on_purpose) {
    buf[0] = '\0';
    return 0;
  }
  if (WIFSIGNALED(status)) {
    snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
    return 1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
    return 1;
  }
  if (!have_report) {
    snprintf(buf, size, "ended without a report");
    return 1;
  }
  if (report->failed) {
    snprintf(buf, size, "%s", report->message);
    return 1;
  }
  buf[0] = '\0';
  return 0;
}

/* Runs NCORE_TEST_HANG_COMMAND (a printf format with one %d, the pid; e.g.
 * "cuda-gdb -batch -ex 'thread apply all bt' -p %d") on a rank the watchdog
 * is about to kill, so a hang leaves its stacks in the output. */
static void describe_hung_rank(const char *name, int rank, pid_t pid) {
  const char *format = getenv("NCORE_TEST_HANG_COMMAND");
  if (format == NULL || *format == '\0') return;
  char command[1024];
  snprintf(command, sizeof command, format, (int)pid);
  printf("rank %d of %s hangs; %s:\n", rank, name, command);
  fflush(stdout);
  if (system(command) != 0) printf("(the hang command failed)\n");
  fflush(stdout);
}

/* Child-process mode of mr_run. */
static int run_children(const char *name, int nranks, mr_test_fn fn) {
  if (nranks > MR_MAX_RANKS) nranks = MR_MAX_RANKS;
  ncore_unique_id_t id;
  ncore_status_t st = ncore_get_unique_id(&id, NCORE_BACKEND_AUTO);
  if (st != NCORE_OK) {
    printf("FAIL %s: ncore_get_unique_id: %s (\"%s\")\n", name,
           ncore_status_string(st), ncore_last_error_message());
    return 1;
  }
  pid_t pids[MR_MAX_RANKS];
  int fds[MR_MAX_RANKS];
  int status[MR_MAX_RANKS];
  int done[MR_MAX_RANKS] = {0};
  char barrier[128];
  if (barrier_create(barrier, sizeof barrier) != 0) {
    printf("FAIL %s: cannot make the host barrier's file: %s\n", name,
           strerror(errno));
    return 1;
  }
  for (int r = 0; r < nranks; r++) {
    pids[r] = harness_spawn(name, r, nranks, &id, &fds[r]);
    if (pids[r] < 0) {
      /* Ranks already started cannot finish without this one. */
      for (int q = 0; q < r; q++) {
        kill(pids[q], SIGKILL);
        waitpid(pids[q], NULL, 0);
        close(fds[q]);
      }
      printf("FAIL %s: cannot start rank %d\n", name, r);
      barrier_remove(barrier);
      return 1;
    }
  }
  /* Wait for every rank; the watchdog kills them all if one hangs. */
  double start = mr_now_ms();
  int remaining = nranks, hung = 0;
  while (remaining > 0) {
    for (int r = 0; r < nranks; r++) {
      if (done[r]) continue;
      pid_t got = waitpid(pids[r], &status[r], WNOHANG);
      if (got == pids[r]) {
        done[r] = 1;
        remaining--;
      }
    }
    if (remaining == 0) break;
    if (mr_now_ms() - start > MR_WATCHDOG_MS) {
      hung = 1;
      for (int r = 0; r < nranks; r++)
        if (!done[r]) describe_hung_rank(name, r, pids[r]);
      for (int r = 0; r < nranks; r++)
        if (!done[r]) kill(pids[r], SIGKILL);
      for (int r = 0; r < nranks; r++)
        if (!done[r]) {
          waitpid(pids[r], &status[r], 0);
          status[r] = -1;
          done[r] = 1;
        }
      break;
    }
    usleep(2000);
  }
  barrier_remove(barrier);
  int failed = 0, skipped = 0;
  char first[1200] = "";
  for (int r = 0; r < nranks; r++) {
    mr_report_t report;
    ssize_t n = read(fds[r], &report, sizeof report);
    close(fds[r]);
    int have = n == (ssize_t)sizeof report;
    char why[1100];
    if (status[r] == -1) {
      snprintf(why, sizeof why, "watchdog: still running after %.0f s, killed",
               MR_WATCHDOG_MS / 1000);
      if (!failed) snprintf(first, sizeof first, "rank %d: %s", r, why);
      printf("rank %d: FAIL %s: %s\n", r, name, why);
      failed = 1;
      continue;
    }
    if (judge_child(status[r], &report, have, why, sizeof why)) {
      if (!failed) snprintf(first, sizeof first, "rank %d: %s", r, why);
      if (!have || !report.failed) printf("rank %d: FAIL %s: %s\n", r, name, why);
      failed = 1;
    } else if (have && report.skipped && !report.died_on_purpose) {
      skipped = 1;
      if (!first[0]) snprintf(first, sizeof first, "%s", report.message);
    }
  }
  (void)hung;
  /* The seconds each test took show where a slow run (NCCL over sockets)
   * spends its time. */
  double seconds = (mr_now_ms() - start) / 1000.0;
  if (failed) {
    printf("FAIL %s: %s [%.1f s]\n", name, first, seconds);
    return 1;
  }
  if (skipped) {
    printf("skip %s: %s\n", name, first);
    return 2;
  }
  printf("ok %s [%.1f s]\n", name, seconds);
  return 0;
}

/* ---- under tools/ncore-run ---- */

static ncore_comm_t launcher_base = NCORE_NULL_HANDLE;

/* Joins the launcher's communicator once. Returns 0 on success. */
static int launcher_join(int rank, int nranks) {
  if (launcher_base) return 0;
  ncore_unique_id_t id;
  if (core_launch_id_decode(getenv("NCORE_UNIQUE_ID"), &id) != 0) {
    fprintf(stderr, "NCORE_UNIQUE_ID is not 256 hex characters\n");
    return -1;
  }
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = 30000;
  mr_select_device(rank);
  ncore_status_t st = ncore_comm_init_rank(&launcher_base, nranks, &id, rank, &config);
  if (st != NCORE_OK) {
    fprintf(stderr, "rank %d: joining the launcher's communicator: %s (%s)\n",
            rank, ncore_status_string(st), ncore_last_error_message());
    return -1;
  }
  return 0;
}

/* Launcher mode of mr_run: every rank runs fn; results are summed over the
 * base communicator and rank 0 prints the line. */
static int run_launched(const char *name, mr_test_fn fn, unsigned flags) {
  int rank = atoi(getenv("NCORE_RANK"));
  int nranks = atoi(getenv("NCORE_NRANKS"));
  if (flags & MR_OWN_PROCESSES) {
    if (rank == 0) printf("skip %s: needs ranks of its own (kills or starts ranks; not under ncore-run)\n", name);
    return 2;
  }
  if (launcher_join(rank, nranks) != 0) {
    if (rank == 0) printf("FAIL %s: cannot join the launcher's communicator\n", name);
    return 1;
  }
  /* A fresh id per test, made by rank 0 and broadcast. */
  ncore_unique_id_t id;
  memset(&id, 0, sizeof id);
  if (rank == 0) ncore_get_unique_id(&id, NCORE_BACKEND_AUTO);
  char *idbuf = tb_alloc(sizeof id);
  int32_t *counts = tb_alloc(2 * sizeof(int32_t));
  if (!idbuf || !counts) return 1;
  tb_put(idbuf, &id, sizeof id);
  ncore_broadcast(launcher_base, idbuf, idbuf, sizeof id, NCORE_UINT8, 0, NULL);
  tb_get(&id, idbuf, sizeof id);

  harness_reset_current(name);
  tracked_count = 0;
  fn(rank, nranks, &id);
  if (harness_failed())
    printf("rank %d: FAIL %s: %s\n", rank, name, harness_current_message());
  fflush(stdout);
  int32_t mine[2] = {harness_failed(), harness_current_skipped()};
  tb_put(counts, mine, sizeof mine);
  ncore_status_t st = ncore_allreduce(launcher_base, counts, counts, 2, NCORE_INT32,
                                      NCORE_SUM, NULL);
  int32_t total[2] = {1, 0};
  if (st == NCORE_OK) tb_get(total, counts, sizeof total);
  tb_free(idbuf);
  tb_free(counts);
  int result = total[0] ? 1 : total[1] ? 2 : 0;
  if (rank == 0) {
    if (result == 1) printf("FAIL %s: failed on %d rank(s)\n", name, (int)total[0]);
    else if (result == 2) printf("skip %s: %s\n", name, harness_current_message());
    else printf("ok %s\n", name);
    fflush(stdout);
  }
  return result;
}

int mr_run(const char *name, int nranks, mr_test_fn fn, unsigned flags) {
  if (mr_in_launcher()) return run_launched(name, fn, flags);
  return run_children(name, nranks, fn);
}
