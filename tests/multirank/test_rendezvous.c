/* Multi-rank tests of who joins a host-backend communicator
 * (core/host/rendezvous.c): a rank number joins at most once. A unique id
 * serves one communicator at a time; when a second process claims a rank
 * of it — a second job started with the same id, one rank of another job
 * given this id — the claimant and every rank of the communicator get a
 * clear error (NCORE_ERR_INVALID_USAGE saying the rank was claimed twice),
 * never a communicator with a stranger in it (job B's
 * rank 1 joined job A's rank 0 and both reported a mixed sum).
 *
 * The stranger is a child the test forks, which calls ncore_comm_init_rank
 * with the test's id. Host only. Usage: test_rendezvous N. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "multirank.h"

#define REQUIRE_HOST() \
  REQUIRE_HOST_BACKEND("checks the host backend's rendezvous; NCCL bootstraps itself")

/* What the stranger got, as its exit status: 0 when its init answered
 * INVALID_USAGE naming the doubly claimed rank, 1 when it answered
 * something else (printed), 2 when it joined. */
static int stranger_claims(const ncore_unique_id_t *id, int nranks, int rank) {
  ncore_comm_config_t config = mr_config();
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_comm_init_rank(&comm, nranks, id, rank, &config);
  const char *m = ncore_last_error_message();
  if (st == NCORE_OK) {
    ncore_comm_destroy(comm);
    return 2;
  }
  char want[64];
  snprintf(want, sizeof want, "rank %d", rank);
  if (st == NCORE_ERR_INVALID_USAGE && strstr(m, want) && strstr(m, "claimed"))
    return 0;
  printf("# the stranger's init gave %s (\"%s\")\n", ncore_status_string(st), m);
  return 1;
}

/* Forks the stranger claiming rank of this test's id; returns its pid. */
static pid_t start_stranger(const ncore_unique_id_t *id, int nranks, int rank) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit(stranger_claims(id, nranks, rank));
  return pid;
}

/* The stranger's exit status, failing the test unless it is 0. */
static void stranger_was_refused(pid_t pid) {
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2)
    harness_fail(__FILE__, __LINE__, "a second process joined as a rank already taken");
  CHECK_EQ(WEXITSTATUS(status), 0);
}

/* A communicator's call after a stranger was refused: INVALID_USAGE saying
 * a rank was claimed twice (rank 0's own words, or a peer's quote). */
static void fails_for_the_stranger(ncore_status_t st) {
  CHECK_STATUS(st, NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("claimed");
  CHECK_MESSAGE_CONTAINS("used by two jobs");
}

/* Job A (the test's ranks) is complete; a second process claims rank 1
 * (or, below, rank 0) of it while rank 0 waits in a collective. */
static void claim_after_the_join(int rank, int nranks, const ncore_unique_id_t *id,
                                 int claimed) {
  MR_COMM(comm);
  mr_host_barrier(nranks);
  if (harness_failed()) return;
  int32_t v = rank + 1;
  if (rank == 1) {
    /* Rank 0 is in the allreduce below, waiting for us, meanwhile. */
    stranger_was_refused(start_stranger(id, nranks, claimed));
    if (harness_failed()) return;
  }
  fails_for_the_stranger(ncore_allreduce(comm, &v, &v, 1, NCORE_INT32, NCORE_SUM, NULL));
  /* And every later call, at once. */
  fails_for_the_stranger(ncore_allreduce(comm, &v, &v, 1, NCORE_INT32, NCORE_SUM, NULL));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST_EX(a_rank_claimed_after_the_join_fails_the_communicator, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST();
  claim_after_the_join(rank, nranks, id, 1);
}

/* Job B's rank 0, started with job A's id: its rendezvous name is taken,
 * so it claims rank 0 of the communicator holding it, which refuses and
 * fails (e340640: B's rank 0 failed alone, and A went on). */
MR_TEST_EX(a_second_rank_0_fails_the_communicator_holding_the_id, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST();
  claim_after_the_join(rank, nranks, id, 0);
}

/* Three ranks; while rank 2 has not joined, a second process claims rank
 * 1. Whichever of the two claimants of rank 1 comes second is refused, and
 * rank 0 fails the communicator: ranks 0 and 1 and the stranger all get
 * INVALID_USAGE from their init (e340640: the second claimant alone failed,
 * "joined twice", and the others made a communicator of ranks 0, 2 and the
 * first claimant). Rank 2 comes once rank 0 has given up, and gets an
 * error too. */
MR_TEST_EX(a_rank_claimed_twice_while_joining_fails_every_rank, MR_OWN_PROCESSES, 3) {
  REQUIRE_HOST();
  enum { RANKS = 3 }; /* a communicator of the test's first three ranks */
  (void)nranks;
  if (rank >= RANKS) return;
  ncore_comm_config_t config = mr_config();
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  if (rank == 2) {
    stranger_was_refused(start_stranger(id, RANKS, 1));
    mr_host_barrier(RANKS); /* ranks 0 and 1 are done with their init */
    config.timeout_ms = 1000;
    ncore_status_t st = ncore_comm_init_rank(&comm, RANKS, id, rank, &config);
    if (st == NCORE_OK) {
      ncore_comm_destroy(comm);
      harness_fail(__FILE__, __LINE__, "rank 2 joined a communicator that failed");
    }
    return;
  }
  fails_for_the_stranger(ncore_comm_init_rank(&comm, RANKS, id, rank, &config));
  CHECK(comm == NCORE_NULL_HANDLE);
  mr_host_barrier(RANKS);
}

HARNESS_MAIN
