/* tests/harness — multi-rank tests.
 *
 * MR_TEST(name) defines a function run on every rank:
 *   void name(int rank, int nranks, const ncore_unique_id_t *id)
 * Each rank creates its own communicator from `id` (mr_comm_init gives one
 * with a short timeout) and runs its checks.
 *
 * Two ways to run the ranks:
 * - forked (default): `prog N` makes a fresh unique id per test, forks N
 *   children, collects each child's result through a pipe and its exit
 *   status, and kills them all after a 60 s watchdog. A failing rank prints
 *   "rank R: FAIL name: reason"; the parent prints one line per test.
 * - under tools/ncore-run: NCORE_RANK, NCORE_NRANKS and NCORE_UNIQUE_ID come
 *   from the environment; every rank joins a base communicator from that id,
 *   rank 0 makes a fresh id per test and broadcasts it. Tests flagged
 *   MR_FORK_ONLY (they kill ranks or init ranks at different times) are
 *   skipped there. */
#ifndef NCORE_TESTS_MULTIRANK_H
#define NCORE_TESTS_MULTIRANK_H

#include "harness.h"

typedef void (*mr_test_fn)(int rank, int nranks, const ncore_unique_id_t *id);

/* The test kills ranks or needs separate processes: not under ncore-run. */
#define MR_FORK_ONLY 1u

/* Registers a multi-rank test needing at least min_ranks ranks. */
void harness_register_mr(const char *name, mr_test_fn fn, unsigned flags,
                         int min_ranks);

#define MR_TEST_EX(name, flags, min_ranks)                                 \
  static void name(int rank, int nranks, const ncore_unique_id_t *id);     \
  __attribute__((constructor)) static void harness_register_##name(void) { \
    harness_register_mr(#name, name, flags, min_ranks);                    \
  }                                                                        \
  static void name(int rank, int nranks, const ncore_unique_id_t *id)

#define MR_TEST(name) MR_TEST_EX(name, 0u, 2)

/* Runs fn on nranks forked ranks (or, under ncore-run, on this rank).
 * Prints the test's line. Returns 0 passed, 1 failed, 2 skipped. */
int mr_run(const char *name, int nranks, mr_test_fn fn, unsigned flags);

/* The timeout (ms) mr_comm_init configures: short, so dead peers show fast. */
#define MR_TIMEOUT_MS 5000

/* A config with backend AUTO and timeout MR_TIMEOUT_MS. */
ncore_comm_config_t mr_config(void);

/* Creates this rank's communicator with mr_config(); on failure records a
 * test failure and returns NCORE_NULL_HANDLE. On the NCCL backend it first
 * selects device rank % device_count. */
ncore_comm_t mr_comm_init(int rank, int nranks, const ncore_unique_id_t *id);

/* Declares `comm`, this rank's communicator from mr_comm_init; returns from
 * the test (failure recorded) when it cannot be made. */
#define MR_COMM(comm)                                            \
  ncore_comm_t comm = mr_comm_init(rank, nranks, id);            \
  if (comm == NCORE_NULL_HANDLE) return

/* Declares that this rank is killed on purpose, then SIGKILLs itself. */
void mr_die(void) __attribute__((noreturn));

/* 1 when running under tools/ncore-run. */
int mr_in_launcher(void);

/* A barrier: a one-element allreduce. Records a failure if it fails. */
void mr_barrier(ncore_comm_t comm);

/* Milliseconds of a monotonic clock. */
double mr_now_ms(void);

#endif /* NCORE_TESTS_MULTIRANK_H */
