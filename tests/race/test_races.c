/* tests/race — ThreadSanitizer tests of what may run at the same time on
 * one communicator: ncore_comm_abort (or a window's close) on one thread
 * while another waits in ncore_wait_signal and lands a peer's puts (issue
 * 14 item 5: the teardown freed a window the waiter was landing into, and
 * both landed the same pieces), and ncore_comm_abort while another thread
 * is inside ncore_group_end (item 2), and handle lookups (lock-free, since a
 * table mutex was most of a call's cost) while the handle is closed and its slot reused. Ranks are threads of this process
 * (ncore_comm_init_all), so TSan sees every access. Built and run by
 * tests/race/run.sh; a report fails the run. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

enum { PIECE = 64 * 1024, WINDOW = 4 * PIECE };

typedef struct rank_job {
  ncore_comm_t comm;
  char *window_memory;
  ncore_window_t window;
  int rank;
  int iterations;
  ncore_status_t status;
} rank_job_t;

/* Both ranks register their window at once (a collective). */
static void *register_window(void *arg) {
  rank_job_t *j = arg;
  j->status = ncore_register_window(&j->window, j->comm, j->window_memory, WINDOW, 0);
  return NULL;
}

/* Rank 1: puts into rank 0's (malloc) window through the put ring until
 * rank 0 is gone. */
static void *putter(void *arg) {
  rank_job_t *j = arg;
  char *src = calloc(1, PIECE);
  for (int i = 0; i < j->iterations; i++) {
    ncore_status_t st = ncore_put_signal(j->comm, src, PIECE, NCORE_UINT8, 0, j->window,
                                         (size_t)(i % 4) * PIECE, 0, 0, 0, NULL);
    if (st != NCORE_OK) break;
  }
  free(src);
  return NULL;
}

/* Rank 0: waits for every signal until its communicator is aborted. */
static void *waiter(void *arg) {
  rank_job_t *j = arg;
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = 1;
  for (int i = 0; i < j->iterations; i++) {
    j->status = ncore_wait_signal(j->comm, &d, 1, NULL);
    if (j->status != NCORE_OK) break;
  }
  return NULL;
}

/* Two ranks as threads with a malloc window each. */
static void make_ranks(rank_job_t jobs[2], int iterations) {
  ncore_comm_t comms[2];
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = 5000;
  CHECK_OK(ncore_comm_init_all(comms, 2, NULL, &config));
  pthread_t t[2];
  for (int r = 0; r < 2; r++) {
    jobs[r] = (rank_job_t){comms[r], calloc(1, WINDOW), 0, r, iterations, NCORE_OK};
    CHECK(pthread_create(&t[r], NULL, register_window, &jobs[r]) == 0);
  }
  for (int r = 0; r < 2; r++) pthread_join(t[r], NULL);
  CHECK_OK(jobs[0].status);
  CHECK_OK(jobs[1].status);
}

/* Closes rank 0 in one of two ways while it waits and lands puts. */
static void teardown_while_waiting(int abort_comm) {
  rank_job_t jobs[2];
  make_ranks(jobs, 1 << 20);
  if (harness_failed()) return;
  pthread_t wait_thread, put_thread;
  CHECK(pthread_create(&wait_thread, NULL, waiter, &jobs[0]) == 0);
  CHECK(pthread_create(&put_thread, NULL, putter, &jobs[1]) == 0);
  usleep(200 * 1000);
  if (abort_comm) {
    CHECK_OK(ncore_comm_abort(jobs[0].comm));
  } else {
    CHECK_OK(ncore_window_close(jobs[0].window));
    usleep(50 * 1000);
    CHECK_OK(ncore_comm_abort(jobs[0].comm));
  }
  pthread_join(wait_thread, NULL);
  CHECK(jobs[0].status == NCORE_ERR_CLOSED || jobs[0].status == NCORE_OK);
  CHECK_OK(ncore_comm_abort(jobs[1].comm));
  pthread_join(put_thread, NULL);
  for (int r = 0; r < 2; r++) free(jobs[r].window_memory);
}

TEST(abort_while_waiting_and_landing_puts) { teardown_while_waiting(1); }
TEST(window_close_while_waiting_and_landing_puts) { teardown_while_waiting(0); }

typedef struct grouper {
  ncore_comm_t comm;
  ncore_status_t status;
} grouper_t;

/* A group whose receive never comes: it waits until the abort. */
static void *group_waiting(void *arg) {
  grouper_t *g = arg;
  int32_t buf[4];
  ncore_group_start();
  ncore_recv(g->comm, buf, 4, NCORE_INT32, 1, NULL);
  g->status = ncore_group_end();
  return NULL;
}

TEST(abort_while_another_thread_is_in_group_end) {
  ncore_comm_t comms[2];
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = 5000;
  CHECK_OK(ncore_comm_init_all(comms, 2, NULL, &config));
  grouper_t g = {comms[0], NCORE_ERR_INTERNAL};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, group_waiting, &g) == 0);
  usleep(200 * 1000);
  CHECK_OK(ncore_comm_abort(comms[0]));
  pthread_join(t, NULL);
  CHECK_EQ(g.status, NCORE_ERR_CLOSED);
  CHECK_OK(ncore_comm_destroy(comms[1]));
}

typedef struct looker {
  ncore_comm_t comm;
  int expected_size;
  atomic_int *stop;
  long answered, closed, wrong;
} looker_t;

/* Asks the communicator's size until told to stop: every answer is the
 * right size or CLOSED, never another communicator's. */
static void *look_up_until_stopped(void *arg) {
  looker_t *l = arg;
  while (!atomic_load(l->stop)) {
    int size = -1;
    ncore_status_t st = ncore_comm_size(l->comm, &size);
    if (st == NCORE_OK && size == l->expected_size)
      l->answered++;
    else if (st == NCORE_ERR_CLOSED)
      l->closed++;
    else
      l->wrong++;
  }
  return NULL;
}

TEST(handle_lookups_race_with_close_and_slot_reuse) {
  /* Lookups take no lock (core/handles.c): threads look a handle up while
   * it is destroyed and its slot is handed to new communicators. */
  enum { LOOKERS = 4 };
  ncore_comm_t comms[2];
  CHECK_OK(ncore_comm_init_all(comms, 2, NULL, NULL));
  atomic_int stop = 0;
  looker_t lookers[LOOKERS];
  pthread_t threads[LOOKERS];
  for (int i = 0; i < LOOKERS; i++) {
    lookers[i] = (looker_t){comms[1], 2, &stop, 0, 0, 0};
    CHECK(pthread_create(&threads[i], NULL, look_up_until_stopped, &lookers[i]) == 0);
  }
  usleep(50 * 1000);
  CHECK_OK(ncore_comm_destroy(comms[1]));
  ncore_comm_t after[3];
  CHECK_OK(ncore_comm_init_all(after, 3, NULL, NULL));
  usleep(50 * 1000);
  atomic_store(&stop, 1);
  for (int i = 0; i < LOOKERS; i++) {
    pthread_join(threads[i], NULL);
    CHECK_EQ(lookers[i].wrong, 0);
    CHECK(lookers[i].answered > 0);
    CHECK(lookers[i].closed > 0);
  }
  CHECK_OK(ncore_comm_destroy(comms[0]));
  for (int i = 0; i < 3; i++) CHECK_OK(ncore_comm_destroy(after[i]));
}

HARNESS_MAIN
