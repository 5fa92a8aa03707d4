/* Multi-rank tests: a long wait explains itself without a debug flag
 * (issue 41, item 6). After NCORE_WAIT_WARN_S seconds (default 10) of
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

/* A communicator with a timeout long enough for the wait under test (the
 * harness's is 5 s on the host backend). */
static ncore_comm_t comm_with_timeout(int rank, int nranks,
                                      const ncore_unique_id_t *id,
                                      int timeout_ms) {
  mr_select_device(rank);
  ncore_comm_config_t config = mr_config();
  config.timeout_ms = timeout_ms;
  config.blocking = 1;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_comm_init_rank(&comm, nranks, id, rank, &config);
  if (st != NCORE_OK) {
    harness_fail(__FILE__, __LINE__, "ncore_comm_init_rank: %s (\"%s\")",
                 ncore_status_string(st), ncore_last_error_message());
    return NCORE_NULL_HANDLE;
  }
  return comm;
}

/* The words of a waiting collective's line: on the host backend the call
 * waits and names the missing rank; on NCCL the call returns at once and
 * ncore_comm_synchronize waits for the stream (NCCL cannot tell which peer
 * is missing). */
static void collective_needles(watch_t *w, int missing) {
  static char rank_words[64];
  if (harness_is_host()) {
    snprintf(rank_words, sizeof rank_words, "for rank %d to reach this allreduce",
             missing);
    w->needles[0] = "NCORE WARN ncore_allreduce has waited";
    w->needles[1] = rank_words;
  } else {
    w->needles[0] = "NCORE WARN ncore_comm_synchronize has waited";
    w->needles[1] = "the work on stream";
  }
  w->needles[2] = "s left before the timeout";
  w->needles[3] = NULL;
}

/* The case: rank 1 never calls the collective, no debug variable
 * is set, NCORE_WAIT_WARN_S is its default: every other rank says so on
 * stderr within 15 s. Run once (3 ranks): the line takes 10 s. */
MR_TEST_EX(a_rank_missing_from_a_collective_is_named_within_15_s,
           MR_OWN_PROCESSES, 2) {
  if (nranks != 3) SKIP("the default 10 s wait runs once, with 3 ranks");
  unsetenv("NCORE_WAIT_WARN_S");
  unsetenv("NCORE_DEBUG");
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, 45000);
  if (comm == NCORE_NULL_HANDLE) return;
  int32_t *value = tb_alloc(sizeof *value), mine = rank + 1;
  CHECK(value != NULL);
  tb_put(value, &mine, sizeof mine);
  watch_t w;
  if (rank == 1) {
    arrive_late(nranks, 15000);
  } else {
    collective_needles(&w, 1);
    watch_begin(&w, nranks, 15000);
    if (harness_failed()) return;
  }
  ncore_status_t st = ncore_allreduce(comm, value, value, 1, NCORE_INT32,
                                      NCORE_SUM, NULL);
  st = mr_complete(comm, st, NULL);
  if (rank != 1) {
    watch_end(&w);
    check_warned(&w);
  }
  CHECK_OK(st);
  int32_t sum = 0;
  tb_get(&sum, value, sizeof sum);
  CHECK_EQ(sum, nranks * (nranks + 1) / 2);
  tb_free(value);
  mr_barrier(comm);
  ncore_comm_destroy(comm);
}

/* A rank that has not joined is named by the ranks waiting in init (the
 * host backend knows which; NCCL's bootstrap does not, and its line says
 * what it waits on). */
MR_TEST_EX(a_rank_missing_from_init_is_named, MR_OWN_PROCESSES, 2) {
  setenv("NCORE_WAIT_WARN_S", "1", 1);
  int late = nranks - 1;
  static char rank_words[64];
  watch_t w;
  if (rank == late) {
    arrive_late(nranks, 8000);
  } else {
    snprintf(rank_words, sizeof rank_words, "rank %d to join the communicator",
             late);
    w.needles[0] = "NCORE WARN ncore_comm_init_rank has waited";
    w.needles[1] = harness_is_host() ? rank_words : "NCCL's bootstrap";
    w.needles[2] = NULL;
    watch_begin(&w, nranks, 8000);
    if (harness_failed()) return;
  }
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, 30000);
  if (rank != late) {
    watch_end(&w);
    check_warned(&w);
  }
  if (comm == NCORE_NULL_HANDLE) return;
  mr_barrier(comm);
  ncore_comm_destroy(comm);
}

/* A receive names the peer whose message it waits for. */
MR_TEST_EX(a_recv_names_the_peer_it_waits_for, MR_OWN_PROCESSES, 2) {
  setenv("NCORE_WAIT_WARN_S", "1", 1);
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, 30000);
  if (comm == NCORE_NULL_HANDLE) return;
  int32_t *value = tb_alloc(sizeof *value), mine = 42 + rank;
  CHECK(value != NULL);
  tb_put(value, &mine, sizeof mine);
  if (rank == 0) {
    watch_t w;
    w.needles[0] = harness_is_host() ? "NCORE WARN ncore_recv has waited"
                                     : "NCORE WARN ncore_comm_synchronize has waited";
    w.needles[1] = harness_is_host() ? "for recv from peer 1 to complete"
                                     : "the work on stream";
    w.needles[2] = "this is rank 0";
    w.needles[3] = NULL;
    if (!harness_is_host()) w.needles[2] = NULL;
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
  tb_free(value);
  mr_barrier(comm);
  ncore_comm_destroy(comm);
}

/* wait_signal names the peer whose signal it waits for (host backend: its
 * wait is in the call; on NCCL it is on the stream, as a recv's). */
MR_TEST_EX(wait_signal_names_the_peer_it_waits_for, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("NCCL waits for a signal on the stream, which the "
                       "recv test covers through ncore_comm_synchronize");
  setenv("NCORE_WAIT_WARN_S", "1", 1);
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, 30000);
  if (comm == NCORE_NULL_HANDLE) return;
  if (rank == 0) {
    watch_t w;
    w.needles[0] = "NCORE WARN ncore_wait_signal has waited";
    w.needles[1] = "for wait_signal from peer 1 to complete";
    w.needles[2] = NULL;
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
  mr_barrier(comm);
  ncore_comm_destroy(comm);
}

/* NCORE_WAIT_WARN_S=0 turns the lines off: a wait as long as the others'
 * says nothing. */
MR_TEST_EX(wait_warnings_can_be_turned_off, MR_OWN_PROCESSES, 2) {
  setenv("NCORE_WAIT_WARN_S", "0", 1);
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, 30000);
  if (comm == NCORE_NULL_HANDLE) return;
  int32_t *value = tb_alloc(sizeof *value), mine = rank;
  CHECK(value != NULL);
  tb_put(value, &mine, sizeof mine);
  watch_t w;
  if (rank == 1) {
    arrive_late(nranks, 1500);
  } else {
    /* No needle can appear: the watch lasts its 1.5 s, then lets rank 1 go. */
    w.needles[0] = "NCORE WARN";
    w.needles[1] = NULL;
    watch_begin(&w, nranks, 1500);
    if (harness_failed()) return;
  }
  ncore_status_t st = mr_complete(
      comm, ncore_allreduce(comm, value, value, 1, NCORE_INT32, NCORE_SUM, NULL),
      NULL);
  if (rank != 1) {
    watch_end(&w);
    if (w.found)
      harness_fail(__FILE__, __LINE__, "NCORE_WAIT_WARN_S=0, yet: \"%s\"", w.seen);
  }
  CHECK_OK(st);
  tb_free(value);
  mr_barrier(comm);
  ncore_comm_destroy(comm);
}

HARNESS_MAIN
