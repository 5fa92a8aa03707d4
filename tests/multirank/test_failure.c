/* Multi-rank tests: failures — a rank SIGKILLed mid-test (also while a
 * child it forked lives on), a rank that aborts, a rank that times out or
 * disagrees; the others get NCORE_ERR_REMOTE or NCORE_ERR_TIMEOUT within the
 * timeout and never hang, and a failed communicator fails every later call
 * at once; shrinking away a dead rank; a fork() child's copy of a
 * communicator. Usage: test_failure N. Every test here is fork-only. */
#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "multirank.h"
#include "testbuf.h"

/* The bound on how long a call may take to notice a dead peer. */
#define DEAD_PEER_LIMIT_MS (MR_TIMEOUT_MS + 2000.0)

/* Checks an operation's outcome (mr_complete: on NCCL the failure shows
 * while waiting for the stream) is REMOTE or TIMEOUT, and came in time. */
#define CHECK_PEER_FAILURE(comm, call)                                      \
  do {                                                                      \
    double t0_ = mr_now_ms();                                               \
    CHECK_STATUS_EITHER(mr_complete((comm), (call), NULL), NCORE_ERR_REMOTE,  \
                        NCORE_ERR_TIMEOUT);                                 \
    double took_ = mr_now_ms() - t0_;                                       \
    if (took_ > DEAD_PEER_LIMIT_MS) {                                       \
      harness_fail(__FILE__, __LINE__, "%s took %.0f ms to fail", #call, took_); \
      return;                                                               \
    }                                                                       \
  } while (0)

MR_TEST_EX(recv_from_killed_peer_fails, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  int victim = nranks - 1;
  int32_t *buf = tb_alloc(64);
  CHECK(buf);
  mr_barrier(comm);
  if (rank == victim) mr_die();
  CHECK_PEER_FAILURE(comm, ncore_recv(comm, buf, 4, NCORE_INT32, victim, NULL));
  CHECK_MESSAGE_CONTAINS(harness_is_host() ? "ncore_recv" : "ncore_comm_synchronize");
  ncore_status_t async = NCORE_OK;
  CHECK_OK(ncore_comm_async_error(comm, &async));
  CHECK(async == NCORE_ERR_REMOTE || async == NCORE_ERR_TIMEOUT);
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

MR_TEST_EX(collective_with_killed_peer_fails, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  int victim = nranks - 1;
  int32_t *buf = tb_alloc(64 * 1024);
  CHECK(buf);
  /* The same calls once while everyone lives: NCCL 2.22+ connects the
   * channels an algorithm needs at its first call, and a connection
   * refused by the dead peer is a system error (NCCL 2.30.7: "connect ...
   * Connection reset by peer"), not the failure of communication this
   * test is about. */
  CHECK_OK(mr_complete(comm, ncore_allreduce(comm, buf, buf, 16 * 1024, NCORE_INT32, NCORE_SUM, NULL), NULL));
  CHECK_OK(mr_complete(comm, ncore_broadcast(comm, buf, buf, 4, NCORE_INT32, 0, NULL), NULL));
  mr_barrier(comm);
  if (rank == victim) mr_die();
  CHECK_PEER_FAILURE(comm, ncore_allreduce(comm, buf, buf, 16 * 1024, NCORE_INT32, NCORE_SUM, NULL));
  /* Later calls fail fast too. */
  CHECK_PEER_FAILURE(comm, ncore_broadcast(comm, buf, buf, 4, NCORE_INT32, 0, NULL));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

MR_TEST_EX(wait_signal_from_killed_peer_fails, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  int victim = nranks - 1;
  mr_barrier(comm);
  if (rank == victim) {
    usleep(100 * 1000); /* die while the others already wait */
    mr_die();
  }
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = victim;
  if (!mr_onesided_reachable(comm, victim)) {
    /* No signal can come from outside the LSA team: no wait is made. */
    CHECK_ONESIDED_CALL(comm, victim, ncore_wait_signal(comm, &d, 1, NULL));
    CHECK_OK(ncore_comm_destroy(comm));
    return;
  }
  CHECK_PEER_FAILURE(comm, ncore_wait_signal(comm, &d, 1, NULL));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST_EX(killed_during_large_send_fails, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  int victim = nranks - 1;
  size_t bytes = 8u << 20;
  char *buf = tb_alloc(bytes);
  CHECK(buf);
  mr_barrier(comm);
  if (rank == victim) {
    /* Take part in the first message, then die before the second. */
    CHECK_OK(mr_complete(comm, ncore_recv(comm, buf, bytes, NCORE_UINT8, 0, NULL), NULL));
    mr_die();
  }
  if (rank == 0) {
    CHECK_OK(mr_complete(comm, ncore_send(comm, buf, bytes, NCORE_UINT8, victim, NULL), NULL));
    /* A send whose bytes the transport's buffers took before the death was
     * seen completes, as a send that left before the death should: over
     * sockets the victim's socket buffers (NCCL 2.28.9, once in a run),
     * over NVLink NCCL's P2P buffers in the victim's memory, which outlive
     * its process (several such messages, one rank per GPU). What must
     * hold is that sending to the dead rank fails, within the limit, once
     * those buffers are full: 64 messages (512 MiB) are far more than they
     * hold. */
    double t0 = mr_now_ms();
    ncore_status_t sent = NCORE_OK;
    for (int i = 0; i < 64 && sent == NCORE_OK; i++)
      sent = mr_complete(comm, ncore_send(comm, buf, bytes, NCORE_UINT8, victim, NULL), NULL);
    CHECK(sent == NCORE_ERR_REMOTE || sent == NCORE_ERR_TIMEOUT);
    CHECK(mr_now_ms() - t0 <= DEAD_PEER_LIMIT_MS);
  } else {
    CHECK_PEER_FAILURE(comm, ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL));
  }
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

/* The victim's side of init_fails_when_a_rank_dies_during_it: it makes its
 * communicator on a thread of its own, so that its main thread can die at
 * any moment of the init. */
typedef struct victim_init {
  int rank, nranks;
  const ncore_unique_id_t *id;
} victim_init_t;

static void *init_and_keep(void *arg) {
  const victim_init_t *init = arg;
  (void)mr_comm_init(init->rank, init->nranks, init->id);
  return NULL;
}

/* A rank killed while the communicator is being made: every other rank's
 * init fails with REMOTE or TIMEOUT within its timeout — or, where the
 * victim got through init first, the first collective does (host) or the
 * communicator aborts (NCCL) — and none of them crashes (NCCL 2.30.7 under
 * load once aborted with a double free after such an init).
 * NCORE_TEST_DIE_AFTER_MS (default 300) is when the victim dies, so a loop
 * over it reaches each phase of NCCL's init. */
MR_TEST_EX(init_fails_when_a_rank_dies_during_it, MR_OWN_PROCESSES, 2) {
  const char *after = getenv("NCORE_TEST_DIE_AFTER_MS");
  int die_after_ms = after && *after ? atoi(after) : 300;
  int victim = nranks - 1;
  if (rank == victim) {
    victim_init_t init = {rank, nranks, id};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, init_and_keep, &init) == 0);
    usleep((useconds_t)die_after_ms * 1000);
    mr_die();
  }
  ncore_comm_config_t config = mr_config();
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  mr_select_device(rank);
  double t0 = mr_now_ms();
  ncore_status_t st = ncore_comm_init_rank(&comm, nranks, id, rank, &config);
  if (st == NCORE_OK) {
    /* The victim got through init. On NCCL a first collective would connect
     * to it inside NCCL and wait for NCCL's own connection timeout (comm.h,
     * ncore_comm_abort): there the communicator is only aborted. */
    if (!harness_is_host()) {
      CHECK_OK(ncore_comm_abort(comm));
      return;
    }
    int32_t *buf = tb_alloc(sizeof(int32_t));
    CHECK(buf);
    CHECK_PEER_FAILURE(comm, ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL));
    CHECK_OK(ncore_comm_destroy(comm));
    tb_free(buf);
    return;
  }
  CHECK(st == NCORE_ERR_REMOTE || st == NCORE_ERR_TIMEOUT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_init_rank");
  CHECK_EQ(comm, NCORE_NULL_HANDLE);
  CHECK(mr_now_ms() - t0 <= die_after_ms + DEAD_PEER_LIMIT_MS);
}

MR_TEST_EX(shrink_away_killed_rank, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  int victim = nranks - 1;
  int32_t *buf = tb_alloc(64);
  CHECK(buf);
  mr_barrier(comm);
  if (rank == victim) mr_die();
  CHECK_PEER_FAILURE(comm, ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL));
  ncore_comm_t survivors = NCORE_NULL_HANDLE;
  ncore_status_t shrunk = ncore_comm_shrink(comm, &victim, 1, &survivors, NULL, NCORE_SHRINK_ABORT);
  if (!harness_is_host() && shrunk != NCORE_OK) {
    /* NCCL refuses to shrink a parent whose asynchronous error it set
     * itself (comm.h): the parent's error comes back, and it is the one
     * ncore_comm_async_error reports. */
    CHECK_EQ(shrunk, NCORE_ERR_REMOTE);
    ncore_status_t async = NCORE_OK;
    CHECK_OK(ncore_comm_async_error(comm, &async));
    CHECK_EQ(async, NCORE_ERR_REMOTE);
    CHECK_OK(ncore_comm_abort(comm));
    tb_free(buf);
    return;
  }
  CHECK_OK(shrunk);
  int v;
  CHECK_OK(ncore_comm_size(survivors, &v));
  CHECK_EQ(v, nranks - 1);
  CHECK_OK(ncore_comm_rank(survivors, &v));
  CHECK_EQ(v, rank);
  int32_t one = 1;
  tb_put(buf, &one, 4);
  CHECK_OK(mr_complete(survivors,
                       ncore_allreduce(survivors, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL),
                       NULL));
  int32_t got = 0;
  tb_get(&got, buf, 4);
  CHECK_EQ(got, nranks - 1);
  CHECK_OK(ncore_comm_destroy(survivors));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

MR_TEST_EX(peers_of_aborted_rank_get_remote, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  int32_t *buf = tb_alloc(64);
  CHECK(buf);
  mr_barrier(comm);
  if (rank == 0) {
    CHECK_OK(ncore_comm_abort(comm));
    int v;
    CHECK_STATUS(ncore_comm_rank(comm, &v), NCORE_ERR_CLOSED);
    CHECK_STATUS(ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL), NCORE_ERR_CLOSED);
  } else {
    double t0 = mr_now_ms();
    CHECK_STATUS(mr_complete(comm, ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL),
                             NULL),
                 NCORE_ERR_REMOTE);
    CHECK(mr_now_ms() - t0 < MR_TIMEOUT_MS);
    CHECK_STATUS(mr_complete(comm, ncore_recv(comm, buf, 1, NCORE_INT32, 0, NULL), NULL),
                 NCORE_ERR_REMOTE);
  }
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

/* An allreduce whose
 * last rank never takes part, and whose rank 0 aborts while it is on the
 * streams. NCCL's kernels on rank 0 end early and pass on what they hold,
 * which can complete rank 1's allreduce: its stream completes, NCCL reports
 * nothing, and ncore_comm_synchronize answered NCORE_OK over results that
 * are garbage. It answers NCORE_ERR_REMOTE (naming rank 0 within an LSA
 * team), here asked only after rank 0 aborted (the conformance case lost
 * that race 14 times in 30). */
MR_TEST_EX(stream_completed_by_an_aborting_peer_fails, MR_OWN_PROCESSES, 3) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  int32_t *buf = tb_alloc(64);
  CHECK(buf);
  /* Once with everyone: NCCL connects an algorithm's channels at its first
   * call, and that is not what this test is about. */
  CHECK_OK(mr_complete(comm, ncore_allreduce(comm, buf, buf, 4, NCORE_INT32, NCORE_SUM, NULL), NULL));
  mr_barrier(comm);
  int absent = nranks - 1;
  if (rank == 0) {
    /* From a thread of its own: on the host backend the allreduce rank 0
     * joined blocks until the abort. */
    mr_aborter_t a = {comm, 200, NCORE_ERR_INTERNAL};
    pthread_t aborter;
    CHECK_EQ(pthread_create(&aborter, NULL, mr_abort_later, &a), 0);
    CHECK_STATUS_EITHER(ncore_allreduce(comm, buf, buf, 4, NCORE_INT32, NCORE_SUM, NULL),
                        NCORE_OK, NCORE_ERR_CLOSED);
    pthread_join(aborter, NULL);
    CHECK_OK(a.status);
  } else if (rank != absent) {
    CHECK_STATUS_EITHER(ncore_allreduce(comm, buf, buf, 4, NCORE_INT32, NCORE_SUM, NULL),
                        NCORE_OK, NCORE_ERR_REMOTE);
  }
  CHECK_EQ(mr_host_barrier_within(nranks, 60000), 0);
  if (rank != 0 && rank != absent) {
    /* ncore names rank 0 where it shares this rank's LSA team (its
     * liveness page); across LSA teams NCCL's sockets report the abort,
     * in NCCL's words ("remote process exited or there was a network
     * error"), as on NCCL 2.30.7 with ranks oversubscribed on one GPU. */
    int lsa_size = 0;
    CHECK_OK(ncore_comm_lsa_size(comm, &lsa_size));
    CHECK_STATUS(ncore_comm_synchronize(comm, NULL), NCORE_ERR_REMOTE);
    if (lsa_size > 0 && rank / lsa_size == 0) CHECK_MESSAGE_CONTAINS("0 aborted");
  }
  if (rank == absent) CHECK_OK(ncore_comm_abort(comm));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

MR_TEST_EX(resources_of_aborted_comm_are_closed, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  char *mem = tb_alloc(4096);
  CHECK(mem);
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, 4096, 0));
  ncore_symmetric_t sym;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 256));
  ncore_registered_buffer_t rb;
  CHECK_OK(ncore_register_buffer(&rb, comm, mem, 4096));
  mr_barrier(comm);
  CHECK_OK(ncore_comm_abort(comm));
  size_t size;
  CHECK_STATUS(ncore_window_size(win, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_symmetric_size(sym, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_registered_buffer_size(rb, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_put_signal(comm, mem, 1, NCORE_UINT8, 0, win, 0, 0, 0, 0, NULL),
               NCORE_ERR_CLOSED);
  CHECK_OK(ncore_window_close(win));
  CHECK_OK(ncore_symmetric_free(sym));
  CHECK_OK(ncore_registered_buffer_close(rb));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(mem);
}

/* The harness's host barrier, which mr_barrier adds on NCCL's behalf: a
 * rank whose allreduce is over may still have its last bytes in NCCL's
 * proxy, so a rank that aborted at once stranded its peers in the barrier
 * (resources_of_aborted_comm_are_closed hung, NCCL 2.30.7). A late rank
 * holds the others; a rank that waits alone gives up after its timeout,
 * and the barrier after it still pairs up. */
MR_TEST_EX(host_barrier_waits_for_every_rank, MR_OWN_PROCESSES, 2) {
  (void)id;
  int late = nranks - 1;
  /* Lined up first: the ranks' processes start at different times (on a
   * loaded GPU machine CUDA's start alone differs by more than the late
   * rank's 300 ms), and a rank that comes late by itself must not look like
   * a barrier that did not wait. */
  CHECK_EQ(mr_host_barrier_within(nranks, 60000), 0);
  if (rank == late) usleep(300 * 1000);
  double t0 = mr_now_ms();
  CHECK_EQ(mr_host_barrier_within(nranks, 5000), 0);
  if (rank != late) CHECK(mr_now_ms() - t0 >= 250);
  if (rank == 0) {
    t0 = mr_now_ms();
    CHECK_EQ(mr_host_barrier_within(nranks, 200), -1);
    CHECK(mr_now_ms() - t0 >= 200);
  } else {
    usleep(500 * 1000); /* rank 0 gives up meanwhile */
    CHECK_EQ(mr_host_barrier_within(nranks, 5000), 0);
  }
  t0 = mr_now_ms();
  CHECK_EQ(mr_host_barrier_within(nranks, 5000), 0);
  CHECK(mr_now_ms() - t0 < 5000);
}

/* A rank that leaves politely (destroy) is never taken for dead by a peer
 * that looks at that moment: the host backend tells a departure from a
 * death by the rank's `left` mark and its liveness lock, and once read the
 * mark before the lock, so a peer that read "not left" just before the
 * rank left, then found the lock gone, answered REMOTE (seen once in CI as
 * forked_child_cannot_use_the_communicator's async error). Each round makes
 * a fresh communicator; rank 0 destroys it at once while the others ask
 * for its asynchronous error again and again. */
MR_TEST_EX(a_peer_that_leaves_is_not_taken_for_dead, MR_OWN_PROCESSES, 2) {
  /* Host: the liveness marks of the shared segment. NCCL: the state word a
   * polite destroy leaves in the signal window (core/nccl/liveness.c), read
   * at most every 100 ms, so each round polls longer there; its splits take
   * a tenth of a second, so there are fewer rounds. */
  int rounds = harness_is_host() ? 300 : 10;
  double poll_ms = harness_is_host() ? 2.0 : 250.0;
  MR_COMM(base);
  int lsa_size = 0;
  CHECK_OK(ncore_comm_lsa_size(base, &lsa_size));
  if (!harness_is_host() && lsa_size < nranks) {
    CHECK_OK(ncore_comm_destroy(base));
    SKIP("ranks in separate LSA teams: NCCL's sockets, not ncore's liveness "
         "marks, tell a peer that left");
  }
  /* Every rank goes through every round (a rank that saw the failure
   * only stops looking), so that the others are not left waiting. */
  for (int round = 0; round < rounds; round++) {
    ncore_comm_t comm = NCORE_NULL_HANDLE;
    CHECK_OK(ncore_comm_split(base, 0, rank, &comm, NULL));
    if (comm == NCORE_NULL_HANDLE) break;
    if (rank == 0) {
      CHECK_OK(ncore_comm_destroy(comm));
    } else {
      double until = mr_now_ms() + poll_ms;
      while (mr_now_ms() < until && !harness_failed()) {
        ncore_status_t async = NCORE_ERR_INTERNAL;
        CHECK_OK(ncore_comm_async_error(comm, &async));
        if (async != NCORE_OK)
          harness_fail(__FILE__, __LINE__, "round %d: async error %s (%s)", round,
                       ncore_status_string(async), ncore_last_error_message());
      }
      CHECK_OK(ncore_comm_destroy(comm));
    }
    mr_barrier(base);
  }
  CHECK_OK(ncore_comm_destroy(base));
}

/* A communicator of this test with a short timeout. */
static ncore_comm_t comm_with_timeout(int rank, int nranks, const ncore_unique_id_t *id,
                                      int timeout_ms) {
  ncore_comm_config_t config = mr_config();
  config.timeout_ms = timeout_ms;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_comm_init_rank(&comm, nranks, id, rank, &config);
  if (st != NCORE_OK)
    harness_fail(__FILE__, __LINE__, "init: %s (%s)", ncore_status_string(st),
                 ncore_last_error_message());
  return comm;
}

/* When the others gave up on a collective, a rank that
 * comes late fails like them instead of completing it alone, and every
 * later call on every rank fails at once with the same status. Host only:
 * the failure is shared through the host segment (an NCCL peer would wait
 * in NCCL). */
MR_TEST_EX(late_rank_fails_like_the_others, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("the failure is shared through the host segment; an "
                       "NCCL rank learns of it only inside NCCL");
  enum { TIMEOUT_MS = 400 };
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, TIMEOUT_MS);
  if (!comm) return;
  int late = nranks - 1;
  int32_t *buf = tb_alloc(64 * sizeof(int32_t));
  CHECK(buf);
  if (rank == late) usleep(TIMEOUT_MS * 3 * 1000);
  double t0 = mr_now_ms();
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 64, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_TIMEOUT);
  if (rank == late) {
    CHECK(mr_now_ms() - t0 < TIMEOUT_MS / 2);
    CHECK_MESSAGE_CONTAINS("failed");
  }
  double t1 = mr_now_ms();
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 64, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_TIMEOUT);
  CHECK_MESSAGE_CONTAINS("failed earlier");
  CHECK_STATUS(ncore_send(comm, buf, 1, NCORE_INT32, (rank + 1) % nranks, NULL),
               NCORE_ERR_TIMEOUT);
  ncore_window_t win;
  CHECK_STATUS(ncore_register_window(&win, comm, buf, 64, 0), NCORE_ERR_TIMEOUT);
  CHECK(mr_now_ms() - t1 < TIMEOUT_MS / 2);
  ncore_status_t async = NCORE_OK;
  CHECK_OK(ncore_comm_async_error(comm, &async));
  CHECK_EQ(async, NCORE_ERR_TIMEOUT);
  int v;
  CHECK_OK(ncore_comm_rank(comm, &v)); /* queries still answer */
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

/* After ranks disagreed on a collective, the next one fails
 * at once on every rank (it used to wait for the whole timeout), and the
 * survivors can go on through ncore_comm_shrink. */
MR_TEST_EX(calls_after_a_mismatch_fail_fast, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("NCCL does not detect mismatched collectives "
                       "(undefined behaviour there)");
  enum { TIMEOUT_MS = 3000 };
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, TIMEOUT_MS);
  if (!comm) return;
  int32_t *buf = tb_alloc(8 * sizeof(int32_t));
  CHECK(buf);
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, rank == 0 ? 4 : 8, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("mismatch");
  double t0 = mr_now_ms();
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 4, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("failed earlier");
  CHECK(mr_now_ms() - t0 < TIMEOUT_MS / 2);
  ncore_status_t async = NCORE_OK;
  CHECK_OK(ncore_comm_async_error(comm, &async));
  CHECK_EQ(async, NCORE_ERR_INVALID_USAGE);
  ncore_comm_t fresh = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_shrink(comm, NULL, 0, &fresh, NULL, 0));
  int32_t one = 1, got = 0;
  tb_put(buf, &one, sizeof one);
  CHECK_OK(ncore_allreduce(fresh, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL));
  tb_get(&got, buf, sizeof got);
  CHECK_EQ(got, nranks);
  CHECK_OK(ncore_comm_destroy(fresh));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

/* A mismatch names what each rank called, operators by name (sum, max),
 * not by number. Host only, as above. */
MR_TEST_EX(mismatch_message_names_each_ranks_operator, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("NCCL does not detect mismatched collectives "
                       "(undefined behaviour there)");
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, 3000);
  if (!comm) return;
  int32_t *buf = tb_alloc(4 * sizeof(int32_t));
  CHECK(buf);
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 4, NCORE_INT32,
                               rank == 0 ? NCORE_SUM : NCORE_MAX, NULL),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("allreduce(count 4, int32, op sum)");
  CHECK_MESSAGE_CONTAINS("allreduce(count 4, int32, op max)");
  CHECK_MESSAGE_CONTAINS("same count, dtype and operator");
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

/* A rank that forked a worker (a data loader) and then
 * died is seen dead at once, named by its peers; the worker living on must
 * not keep its liveness. The worker keeps every inherited descriptor, as a
 * real one does; rank 0 kills it afterwards. */
MR_TEST_EX(death_seen_despite_a_forked_worker, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  int victim = nranks - 1;
  int64_t *pid_buf = tb_alloc(sizeof(int64_t));
  CHECK(pid_buf);
  int64_t worker = 0;
  if (rank == victim) {
    pid_t child = fork();
    if (child == 0) {
      int devnull = open("/dev/null", O_RDWR);
      dup2(devnull, 1); /* the test's output pipe must not wait for it */
      dup2(devnull, 2);
      sleep(30);
      _exit(0);
    }
    worker = child;
  }
  tb_put(pid_buf, &worker, sizeof worker);
  CHECK_OK(ncore_allreduce(comm, pid_buf, pid_buf, 1, NCORE_INT64, NCORE_MAX, NULL));
  tb_get(&worker, pid_buf, sizeof worker);
  CHECK(worker > 0);
  if (rank == victim) mr_die();
  double t0 = mr_now_ms();
  /* On NCCL the call is enqueued and the death shows while waiting. */
  ncore_status_t st = mr_complete(
      comm, ncore_allreduce(comm, pid_buf, pid_buf, 1, NCORE_INT64, NCORE_MAX, NULL),
      NULL);
  double took = mr_now_ms() - t0;
  if (rank == 0) kill((pid_t)worker, SIGKILL);
  if (harness_is_host()) {
    CHECK_EQ(st, NCORE_ERR_REMOTE);
    char named[32];
    snprintf(named, sizeof named, "peer %d died", victim);
    CHECK_MESSAGE_CONTAINS(named);
    CHECK(took < MR_TIMEOUT_MS / 2);
  } else {
    CHECK(st == NCORE_ERR_REMOTE || st == NCORE_ERR_TIMEOUT);
  }
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(pid_buf);
}

/* A fork() child's copy of a communicator is not a rank:
 * its calls answer INVALID_USAGE, and its abort and destroy are local (the
 * peers neither see an abort nor a departure). */
MR_TEST_EX(forked_child_cannot_use_the_communicator, MR_OWN_PROCESSES, 2) {
  MR_COMM(comm);
  int32_t *buf = tb_alloc(sizeof(int32_t));
  CHECK(buf);
  pid_t child = fork();
  if (child == 0) {
    int bad = 0;
    bad |= ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL) !=
           NCORE_ERR_INVALID_USAGE;
    bad |= strstr(ncore_last_error_message(), "fork()") == NULL;
    bad |= ncore_send(comm, buf, 1, NCORE_INT32, 0, NULL) != NCORE_ERR_INVALID_USAGE;
    int v = -1;
    bad |= ncore_comm_rank(comm, &v) != NCORE_OK || v != rank;
    bad |= ncore_comm_abort(comm) != NCORE_OK;
    _exit(bad);
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  int32_t one = 1, got = 0;
  tb_put(buf, &one, sizeof one);
  CHECK_OK(ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL));
  tb_get(&got, buf, sizeof got);
  CHECK_EQ(got, nranks);
  ncore_status_t async = NCORE_ERR_INTERNAL;
  CHECK_OK(ncore_comm_async_error(comm, &async));
  CHECK_EQ(async, NCORE_OK);
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

HARNESS_MAIN

/* ---- the host backend's one-copy send/recv (core/host/p2p_direct.c) ----
 * The receiver copies straight from the sender's registered ncore_mem_alloc
 * buffer; a rank dying or giving up on either side must neither hang the
 * other, crash it (SIGBUS), nor hand it data as received that was not. */

enum { ONE_COPY_BYTES = 32 << 20 };

static void *die_after(void *ms) {
  usleep((useconds_t)(uintptr_t)ms * 1000);
  mr_die();
}

/* A buffer of bytes from ncore_mem_alloc, registered with comm (so a
 * receiver of another process copies straight from it); *reg gets the
 * registration. */
static uint32_t *registered_alloc(ncore_comm_t comm, size_t bytes,
                                  ncore_registered_buffer_t *reg) {
  uint32_t *buf = tb_alloc(bytes);
  *reg = NCORE_NULL_HANDLE;
  if (buf && ncore_register_buffer(reg, comm, buf, bytes) != NCORE_OK) {
    harness_fail(__FILE__, __LINE__, "ncore_register_buffer: %s",
                 ncore_last_error_message());
    tb_free(buf);
    return NULL;
  }
  return buf;
}

/* Kills this rank ms milliseconds from now, whatever it is doing. */
static void die_in(unsigned ms) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, die_after, (void *)(uintptr_t)ms) == 0);
}

static void fill_words(uint32_t *w, size_t n) {
  for (size_t i = 0; i < n; i++) w[i] = (uint32_t)(i * 2654435761u);
}

static size_t first_bad_word(const uint32_t *w, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (w[i] != (uint32_t)(i * 2654435761u)) return i;
  return n;
}

/* Rank 0 sends ONE_COPY_BYTES from ncore_mem_alloc memory to rank 1, and
 * rank `victim` is killed a few milliseconds in, most likely while the
 * receiver copies. The survivor must end in time with the whole message
 * (the copy ended first; a dead sender's pages stay mapped until the copy
 * ends) or with the death, never with a partial message as received. */
static void one_copy_with_a_death(ncore_comm_t comm, int rank, int nranks, int victim) {
  mr_connect_peers(comm, rank, nranks);
  if (harness_failed()) return;
  ncore_registered_buffer_t reg;
  uint32_t *buf = registered_alloc(comm, ONE_COPY_BYTES, &reg);
  CHECK(buf);
  if (rank == 0) fill_words(buf, ONE_COPY_BYTES / 4);
  mr_barrier(comm);
  if (rank == victim) die_in(3);
  double t0 = mr_now_ms();
  ncore_status_t st = NCORE_OK;
  if (rank == 0) st = ncore_send(comm, buf, ONE_COPY_BYTES / 4, NCORE_UINT32, 1, NULL);
  if (rank == 1) st = ncore_recv(comm, buf, ONE_COPY_BYTES / 4, NCORE_UINT32, 0, NULL);
  if (rank == victim) for (;;) pause();
  if (st != NCORE_OK) CHECK_STATUS_EITHER(st, NCORE_ERR_REMOTE, NCORE_ERR_TIMEOUT);
  else if (rank == 1) CHECK_EQ(first_bad_word(buf, ONE_COPY_BYTES / 4), ONE_COPY_BYTES / 4);
  CHECK(mr_now_ms() - t0 < DEAD_PEER_LIMIT_MS);
  CHECK_OK(ncore_registered_buffer_close(reg));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

MR_TEST_EX(sender_killed_during_a_one_copy_message, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("the one-copy path is the host backend's");
  MR_COMM(comm);
  one_copy_with_a_death(comm, rank, nranks, 0);
}

MR_TEST_EX(receiver_killed_during_a_one_copy_message, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("the one-copy path is the host backend's");
  MR_COMM(comm);
  one_copy_with_a_death(comm, rank, nranks, 1);
}

MR_TEST_EX(a_withdrawn_one_copy_send_is_never_received, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("the one-copy path is the host backend's");
  enum { TIMEOUT_MS = 400 };
  const size_t n = (1u << 20) / 4;
  ncore_comm_t comm = comm_with_timeout(rank, nranks, id, TIMEOUT_MS);
  if (!comm) return;
  ncore_registered_buffer_t reg;
  uint32_t *buf = registered_alloc(comm, n * 4, &reg);
  CHECK(buf);
  if (rank == 0) {
    /* The receiver comes too late: the send times out and takes its
     * offer back; the caller may now reuse its buffer. */
    CHECK_STATUS(ncore_send(comm, buf, n, NCORE_UINT32, 1, NULL), NCORE_ERR_TIMEOUT);
    memset(buf, 0xff, n * 4);
  } else if (rank == 1) {
    usleep(TIMEOUT_MS * 3 * 1000);
    CHECK_STATUS_EITHER(ncore_recv(comm, buf, n, NCORE_UINT32, 0, NULL), NCORE_ERR_REMOTE,
                        NCORE_ERR_TIMEOUT);
  }
  CHECK_OK(ncore_registered_buffer_close(reg));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

/* Drops CAP_SYS_PTRACE from this process's effective capabilities (root
 * keeps the others); 0 on success. */
static int drop_ptrace_capability(void) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  if (syscall(SYS_capget, &h, d) != 0) return -1;
  d[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective &= ~CAP_TO_MASK(CAP_SYS_PTRACE);
  return (int)syscall(SYS_capset, &h, d);
}

MR_TEST_EX(an_unreachable_send_buffer_goes_through_the_ring, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("the one-copy path is the host backend's");
  MR_COMM(comm);
  const size_t n = (3u << 20) / 4 + 5;
  ncore_registered_buffer_t reg;
  uint32_t *buf = registered_alloc(comm, n * 4, &reg);
  int64_t *pid = tb_alloc(sizeof *pid);
  CHECK(buf && pid);
  /* Rank 0 becomes non-dumpable and rank 1 loses CAP_SYS_PTRACE: rank 1
   * can no longer open /proc/<rank 0>/fd/..., so it must refuse the
   * one-copy offer and take the payload from the ring. */
  if (rank == 0) {
    CHECK(prctl(PR_SET_DUMPABLE, 0) == 0);
    *pid = getpid();
    fill_words(buf, n);
  }
  if (rank == 1) CHECK(drop_ptrace_capability() == 0);
  CHECK_OK(ncore_broadcast(comm, pid, pid, 1, NCORE_INT64, 0, NULL));
  int reachable = 0;
  if (rank == 1) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%lld/fd", (long long)*pid);
    /* Listing the directory may be allowed; following an entry is what
     * the ptrace check guards. */
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char entry[320];
      snprintf(entry, sizeof entry, "%s/%s", path, e->d_name);
      int f = open(entry, O_RDONLY | O_CLOEXEC);
      if (f >= 0) {
        reachable = 1;
        close(f);
      }
      break;
    }
    if (d) closedir(d);
  }
  int32_t skip = reachable;
  CHECK_OK(ncore_allreduce(comm, &skip, &skip, 1, NCORE_INT32, NCORE_MAX, NULL));
  if (skip) {
    CHECK_OK(ncore_registered_buffer_close(reg));
    CHECK_OK(ncore_comm_destroy(comm));
    SKIP("this machine lets a process without CAP_SYS_PTRACE open a "
         "non-dumpable peer's /proc/<pid>/fd");
  }
  if (rank == 0) CHECK_OK(ncore_send(comm, buf, n, NCORE_UINT32, 1, NULL));
  if (rank == 1) {
    CHECK_OK(ncore_recv(comm, buf, n, NCORE_UINT32, 0, NULL));
    CHECK_EQ(first_bad_word(buf, n), n);
  }
  /* The stream stays in step: a small message after it. */
  if (rank == 0) CHECK_OK(ncore_send(comm, buf, 4, NCORE_UINT32, 1, NULL));
  if (rank == 1) CHECK_OK(ncore_recv(comm, buf, 4, NCORE_UINT32, 0, NULL));
  CHECK_OK(ncore_registered_buffer_close(reg));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
  tb_free(pid);
}
