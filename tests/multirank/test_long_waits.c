/* Multi-rank tests: a long wait explains itself without a debug flag.
 * After NCORE_WAIT_WARN_S seconds (default 10) of
 * waiting, each waiting rank writes one WARN line on stderr naming the
 * call, the rank or peer it waits for and the time left before the
 * timeout, whatever NCORE_DEBUG says (core/log.h, core_wait_note).
 *
 * A waiting rank sends its stderr to a file meanwhile, and a thread of its
 * own watches that file for the line; the late rank arrives only once every
 * waiting rank's watcher saw its line (or gave up), through the harness's
 * barrier outside ncore, so each test lasts as long as the line takes, and
 * the late rank's arrival proves nothing by timing alone. The tests set
 * NCORE_WAIT_WARN_S themselves, before the first wait of their process
 * (every rank is a fresh process per test), so they do not run under
 * ncore-run. Usage: test_long_waits N. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "multirank.h"
#include "testbuf.h"

/* A waiting rank's watch of its own stderr. */
typedef struct watch {
  char path[64];
  const char *needles[4];  /* every one must appear; NULL-terminated */
  int within_ms;           /* from the watch's start */
  int nranks;
  int saved_stderr;
  pthread_t thread;
  int found;               /* every needle appeared within within_ms */
  double found_after_ms;
  char seen[4096];         /* what stderr got meanwhile (watch_end) */
} watch_t;

/* The file's first cap - 1 bytes into out, NUL-terminated. */
static void read_file(const char *path, char *out, size_t cap) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = '\0';
  fclose(f);
}

static int all_present(const watch_t *w, const char *text) {
  for (int i = 0; w->needles[i] != NULL; i++)
    if (strstr(text, w->needles[i]) == NULL) return 0;
  return 1;
}

/* Polls the file until every needle is there or within_ms passed, then
 * lets the late rank go (the harness's barrier, once per rank). */
static void *watch_thread(void *arg) {
  watch_t *w = arg;
  double start = mr_now_ms();
  char text[4096];
  while (mr_now_ms() - start < w->within_ms) {
    read_file(w->path, text, sizeof text);
    if (all_present(w, text)) {
      w->found = 1;
      w->found_after_ms = mr_now_ms() - start;
      break;
    }
    struct timespec pause = {0, 50 * 1000000};
    nanosleep(&pause, NULL);
  }
  mr_host_barrier_within(w->nranks, w->within_ms + 30000);
  return NULL;
}

/* Sends stderr to a fresh file and starts watching it for the needles. */
static void watch_begin(watch_t *w, int nranks, int within_ms) {
  snprintf(w->path, sizeof w->path, "/tmp/ncore-long-wait.XXXXXX");
  int fd = mkstemp(w->path);
  CHECK(fd >= 0);
  fflush(stderr);
  w->saved_stderr = dup(2);
  CHECK(w->saved_stderr >= 0 && dup2(fd, 2) == 2);
  close(fd);
  w->nranks = nranks;
  w->within_ms = within_ms;
  w->found = 0;
  CHECK(pthread_create(&w->thread, NULL, watch_thread, w) == 0);
}

/* Ends the watch: stderr back, what it got kept in w->seen and shown on
 * the real stderr (the test's record). */
static void watch_end(watch_t *w) {
  pthread_join(w->thread, NULL);
  fflush(stderr);
  dup2(w->saved_stderr, 2);
  close(w->saved_stderr);
  read_file(w->path, w->seen, sizeof w->seen);
  unlink(w->path);
  if (w->seen[0] != '\0') fprintf(stderr, "%s", w->seen);
}

/* The watched line was there in time, saying what the needles say. */
static void check_warned(const watch_t *w) {
  if (!w->found)
    harness_fail(__FILE__, __LINE__, "no line with \"%s\" ... \"%s\" within "
                 "%d ms on stderr; it got: \"%s\"", w->needles[0],
                 w->needles[1] ? w->needles[1] : "", w->within_ms, w->seen);
}

/* A rank that comes late, or takes no part: waits until every waiting
 * rank's watcher let it go. */
static void arrive_late(int nranks, int within_ms) {
  CHECK(mr_host_barrier_within(nranks, within_ms + 30000) == 0);
}

/* Sets NCORE_WAIT_WARN_S to warn_s (NULL: unset, its default 10 s) before
 * the process's first wait, then makes this rank's communicator with a
 * timeout longer than any wait under test (the harness's is 5 s on the
 * host backend) and, when value is not NULL, a one-int32 buffer holding
 * mine. */
static ncore_comm_t setup(int rank, int nranks, const ncore_unique_id_t *id,
                          const char *warn_s, int32_t **value, int32_t mine) {
  if (warn_s != NULL) setenv("NCORE_WAIT_WARN_S", warn_s, 1);
  else unsetenv("NCORE_WAIT_WARN_S");
  mr_select_device(rank);
  ncore_comm_config_t config = mr_config();
  config.timeout_ms = 45000;
  config.blocking = 1;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_comm_init_rank(&comm, nranks, id, rank, &config);
  if (st != NCORE_OK) {
    harness_fail(__FILE__, __LINE__, "ncore_comm_init_rank: %s (\"%s\")",
                 ncore_status_string(st), ncore_last_error_message());
    return NCORE_NULL_HANDLE;
  }
  if (value != NULL) {
    *value = tb_alloc(sizeof **value);
    if (*value != NULL) tb_put(*value, &mine, sizeof mine);
    else harness_fail(__FILE__, __LINE__, "tb_alloc of 4 bytes failed");
  }
  return comm;
}

/* The needles of a watch (up to three; a NULL ends them). */
static void watch_needles(watch_t *w, const char *first, const char *second,
                          const char *third) {
  w->needles[0] = first;
  w->needles[1] = second;
  w->needles[2] = second != NULL ? third : NULL;
  w->needles[3] = NULL;
}

/* The end of a test: every rank done, nothing left behind. */
static void finish(ncore_comm_t comm, int32_t *value) {
  if (value != NULL) tb_free(value);
  mr_barrier(comm);
  ncore_comm_destroy(comm);
}

/* Every rank but rank 1 enters an allreduce; rank 1 joins it only once
 * they saw their WARN line on stderr (expect_line), or once within_ms
 * passed (!expect_line: no line may come). On the host backend the call
 * waits and names rank 1; on NCCL it returns at once and
 * ncore_comm_synchronize waits for the stream (NCCL cannot tell which peer
 * is missing). */
static void allreduce_with_rank_1_late(int rank, int nranks,
                                       const ncore_unique_id_t *id,
                                       const char *warn_s, int within_ms,
                                       int expect_line) {
  int32_t *value = NULL;
  ncore_comm_t comm = setup(rank, nranks, id, warn_s, &value, rank + 1);
  if (comm == NCORE_NULL_HANDLE || harness_failed()) return;
  if (!harness_is_host()) {
    /* NCCL connects an algorithm's channels inside its first call, and
     * where sockets join the ranks (separate hosts, or ranks
     * oversubscribed on one GPU) that call waits for every peer: one
     * allreduce with everyone first, so the wait under test is on the
     * stream in every topology. */
    int32_t *first = tb_alloc(sizeof *first);
    CHECK(first != NULL);
    if (first == NULL) return;
    CHECK_OK(mr_complete(
        comm, ncore_allreduce(comm, first, first, 1, NCORE_INT32, NCORE_SUM, NULL), NULL));
    tb_free(first);
    if (harness_failed()) return;
  }
  watch_t w;
  if (rank == 1) {
    arrive_late(nranks, within_ms);
  } else {
    if (!expect_line)
      watch_needles(&w, "NCORE WARN", NULL, NULL);
    else if (harness_is_host())
      watch_needles(&w, "NCORE WARN ncore_allreduce has waited",
                    "for rank 1 to reach this allreduce",
                    "s left before the timeout");
    else
      watch_needles(&w, "NCORE WARN ncore_comm_synchronize has waited",
                    "the work on stream", "s left before the timeout");
    watch_begin(&w, nranks, within_ms);
    if (harness_failed()) return;
  }
  ncore_status_t st = mr_complete(
      comm, ncore_allreduce(comm, value, value, 1, NCORE_INT32, NCORE_SUM, NULL),
      NULL);
  if (rank != 1) {
    watch_end(&w);
    if (expect_line) check_warned(&w);
    else if (w.found)
      harness_fail(__FILE__, __LINE__, "NCORE_WAIT_WARN_S=%s, yet: \"%s\"",
                   warn_s, w.seen);
  }
  CHECK_OK(st);
  int32_t sum = 0;
  tb_get(&sum, value, sizeof sum);
  CHECK_EQ(sum, nranks * (nranks + 1) / 2);
  finish(comm, value);
}

/* The case: rank 1 never calls the collective, no debug variable
 * is set, NCORE_WAIT_WARN_S is its default: every other rank says so on
 * stderr within 15 s. Run once (3 ranks): the line takes 10 s. */
MR_TEST_EX(a_rank_missing_from_a_collective_is_named_within_15_s,
           MR_OWN_PROCESSES, 2) {
  if (nranks != 3) SKIP("the default 10 s wait runs once, with 3 ranks");
  unsetenv("NCORE_DEBUG");
  allreduce_with_rank_1_late(rank, nranks, id, NULL, 15000, 1);
}

/* NCORE_WAIT_WARN_S=0 turns the lines off (rather than warning at once):
 * a 1.5 s wait, longer than the 1 s after which the other tests' lines
 * come, says nothing. */
MR_TEST_EX(wait_warnings_can_be_turned_off, MR_OWN_PROCESSES, 2) {
  allreduce_with_rank_1_late(rank, nranks, id, "0", 1500, 0);
}

/* A rank that has not joined is named by the ranks waiting in init (the
 * host backend knows which; NCCL's bootstrap does not, and its line says
 * what it waits on). */
MR_TEST_EX(a_rank_missing_from_init_is_named, MR_OWN_PROCESSES, 2) {
  int late = nranks - 1;
  char rank_words[64];
  snprintf(rank_words, sizeof rank_words, "rank %d to join the communicator", late);
  watch_t w;
  if (rank == late) {
    arrive_late(nranks, 8000);
  } else {
    watch_needles(&w, "NCORE WARN ncore_comm_init_rank has waited",
                  harness_is_host() ? rank_words : "NCCL's bootstrap", NULL);
    watch_begin(&w, nranks, 8000);
    if (harness_failed()) return;
  }
  ncore_comm_t comm = setup(rank, nranks, id, "1", NULL, 0);
  if (rank != late) {
    watch_end(&w);
    check_warned(&w);
  }
  if (comm != NCORE_NULL_HANDLE) finish(comm, NULL);
}

/* A receive names the peer whose message it waits for. */
MR_TEST_EX(a_recv_names_the_peer_it_waits_for, MR_OWN_PROCESSES, 2) {
  int32_t *value = NULL;
  ncore_comm_t comm = setup(rank, nranks, id, "1", &value, 42 + rank);
  if (comm == NCORE_NULL_HANDLE || harness_failed()) return;
  if (rank == 0) {
    watch_t w;
    char nccl_words[96];
    snprintf(nccl_words, sizeof nccl_words,
             "NCCL's ncclRecv to return, rank 0 of %d, with peer 1", nranks);
    if (harness_is_host())
      watch_needles(&w, "NCORE WARN ncore_recv has waited",
                    "for recv from peer 1 to complete", "this is rank 0");
    else /* NCCL connects inside the first recv (core/wait_watch.h) */
      watch_needles(&w, "NCORE WARN ncore_recv has waited", nccl_words, NULL);
    watch_begin(&w, nranks, 8000);
    if (harness_failed()) return;
    ncore_status_t st = mr_complete(
        comm, ncore_recv(comm, value, 1, NCORE_INT32, 1, NULL), NULL);
    watch_end(&w);
    check_warned(&w);
    CHECK_OK(st);
    int32_t got = 0;
    tb_get(&got, value, sizeof got);
    CHECK_EQ(got, 43);
  } else {
    arrive_late(nranks, 8000);
    if (rank == 1)
      CHECK_OK(mr_complete(comm, ncore_send(comm, value, 1, NCORE_INT32, 0, NULL),
                           NULL));
  }
  finish(comm, value);
}

/* wait_signal names the peer whose signal it waits for (host backend: its
 * wait is in the call; on NCCL it is on the stream, as a recv's). */
MR_TEST_EX(wait_signal_names_the_peer_it_waits_for, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("NCCL waits for a signal on the stream, which the "
                       "recv test covers through ncore_comm_synchronize");
  ncore_comm_t comm = setup(rank, nranks, id, "1", NULL, 0);
  if (comm == NCORE_NULL_HANDLE) return;
  if (rank == 0) {
    watch_t w;
    watch_needles(&w, "NCORE WARN ncore_wait_signal has waited",
                  "for wait_signal from peer 1 to complete", NULL);
    watch_begin(&w, nranks, 8000);
    if (harness_failed()) return;
    ncore_wait_signal_desc_t desc = NCORE_WAIT_SIGNAL_DESC_INIT;
    desc.peer = 1;
    desc.op_count = 1;
    ncore_status_t st = ncore_wait_signal(comm, &desc, 1, NULL);
    watch_end(&w);
    check_warned(&w);
    CHECK_OK(st);
  } else {
    arrive_late(nranks, 8000);
    if (rank == 1) CHECK_OK(ncore_signal(comm, 0, 0, 0, 0, NULL));
  }
  finish(comm, NULL);
}

HARNESS_MAIN
