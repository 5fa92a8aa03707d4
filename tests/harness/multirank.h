/* tests/harness — multi-rank tests.
 *
 * MR_TEST(name) defines a function run on every rank:
 *   void name(int rank, int nranks, const ncore_unique_id_t *id)
 * Each rank creates its own communicator from `id` (mr_comm_init gives one
 * with a short timeout) and runs its checks.
 *
 * Two ways to run the ranks:
 * - child processes (default): `prog N` makes a fresh unique id per test,
 *   starts N children (fork + exec of the program in its child mode, so no
 *   rank inherits a CUDA state from the parent), collects each child's
 *   result through a pipe and its exit status, and kills them all after a
 *   60 s watchdog. With NCORE_OVERSUBSCRIBE=1 each child gets its own NCCL
 *   host identity, so several NCCL ranks can share one GPU. A failing rank prints
 *   "rank R: FAIL name: reason"; the parent prints one line per test.
 * - under tools/ncore-run: NCORE_RANK, NCORE_NRANKS and NCORE_UNIQUE_ID come
 *   from the environment; every rank joins a base communicator from that id,
 *   rank 0 makes a fresh id per test and broadcasts it. Tests flagged
 *   MR_OWN_PROCESSES (they kill ranks or init ranks at different times) are
 *   skipped there. */
#ifndef NCORE_TESTS_MULTIRANK_H
#define NCORE_TESTS_MULTIRANK_H

#include "harness.h"

typedef void (*mr_test_fn)(int rank, int nranks, const ncore_unique_id_t *id);

/* The test kills ranks or needs separate processes: not under ncore-run. */
#define MR_OWN_PROCESSES 1u

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

/* Child mode (harness.c): runs rank `rank` of test `name` with the id from
 * the environment (spawn.h), reports through fd. Returns the exit status. */
int mr_child_main(const char *name, int rank, int nranks, mr_test_fn fn,
                  int fd);

/* Runs fn on nranks child ranks (or, under ncore-run, on this rank).
 * Prints the test's line. Returns 0 passed, 1 failed, 2 skipped. */
int mr_run(const char *name, int nranks, mr_test_fn fn, unsigned flags);

/* The timeout (ms) mr_comm_init configures: short, so dead peers show fast
 * (5 s on the host backend), yet long enough for NCCL's init over sockets
 * on a shared GPU (several ranks per GPU, several tests at once: 15 s).
 * It bounds init too (ncore_comm_init_rank). */
int mr_timeout_ms(void);
#define MR_TIMEOUT_MS mr_timeout_ms()

/* A config with backend AUTO and timeout MR_TIMEOUT_MS; non-blocking
 * (blocking = 0) when NCORE_TEST_NONBLOCKING=1, so the same tests check
 * non-blocking communicators. */
ncore_comm_config_t mr_config(void);

/* 1 when NCORE_TEST_NONBLOCKING=1 asks for non-blocking communicators. */
int mr_nonblocking(void);

/* On the NCCL backend makes device rank % device_count the calling thread's
 * current device (the one its communicator will use); nothing on the host. */
void mr_select_device(int rank);

/* Creates this rank's communicator with mr_config(); on failure records a
 * test failure and returns NCORE_NULL_HANDLE. On the NCCL backend it first
 * selects device rank % device_count. A non-blocking init is polled with
 * ncore_comm_async_error until ready, and the communicator is remembered
 * so that harness_settle can wait for its calls. */
ncore_comm_t mr_comm_init(int rank, int nranks, const ncore_unique_id_t *id);

/* Remembers a communicator the test made itself (split, shrink) for
 * harness_settle. */
void mr_track(ncore_comm_t comm);

/* The outcome of an operation, not just of its enqueueing: enqueued when
 * that is not NCORE_OK, else ncore_comm_synchronize(comm, stream). On NCCL
 * operations run on the stream after the call returned, so a dead peer or
 * a timeout shows only here; on the host backend they completed already. */
ncore_status_t mr_complete(ncore_comm_t comm, ncore_status_t enqueued,
                           ncore_stream_t stream);

/* 1 if peer is in this rank's load/store-accessible (LSA) team, the ranks
 * signal, wait_signal and put_signal can reach (NCCL's team is the block of
 * lsa_size consecutive ranks around this one; every rank on the host). */
int mr_lsa_reachable(ncore_comm_t comm, int peer);

/* 1 if signal, wait_signal and put_signal reach peer: inside the LSA team,
 * or anywhere when the communicator has host RMA support (NCCL 2.29+'s own
 * one-sided calls; ncore_comm_properties). */
int mr_onesided_reachable(ncore_comm_t comm, int peer);

/* Checks a call to peer: NCORE_OK when reachable is non-zero, else exactly
 * NCORE_ERR_NOT_SUPPORTED with a message naming the LSA team. */
#define CHECK_REACHABLE_CALL(reachable, call)                    \
  do {                                                           \
    if (reachable) {                                             \
      CHECK_OK(call);                                            \
    } else {                                                     \
      CHECK_STATUS(call, NCORE_ERR_NOT_SUPPORTED);               \
      CHECK_MESSAGE_CONTAINS("LSA team");                        \
    }                                                            \
  } while (0)

/* A one-sided call to peer (mr_onesided_reachable decides). */
#define CHECK_ONESIDED_CALL(comm, peer, call) \
  CHECK_REACHABLE_CALL(mr_onesided_reachable((comm), (peer)), call)

/* A call that reaches peer through its memory (symmetric put and get):
 * the LSA team decides. */
#define CHECK_LSA_CALL(comm, peer, call) \
  CHECK_REACHABLE_CALL(mr_lsa_reachable((comm), (peer)), call)

/* Declares `comm`, this rank's communicator from mr_comm_init; returns from
 * the test (failure recorded) when it cannot be made. */
#define MR_COMM(comm)                                            \
  ncore_comm_t comm = mr_comm_init(rank, nranks, id);            \
  if (comm == NCORE_NULL_HANDLE) return

/* 1 if comm can register a window at all; else 0 with the library's
 * reason in why (NCCL without GIN gives no window over several LSA teams to
 * a non-blocking communicator). Collective: every rank gets the same. */
int mr_windows_available(ncore_comm_t comm, char *why, size_t cap);

/* Skips the rest of the test, destroying comm, where comm can have no
 * window (mr_windows_available): a fact of NCCL and the topology. */
#define REQUIRE_WINDOWS(comm)                                       \
  do {                                                              \
    char why_[400];                                                 \
    if (!mr_windows_available((comm), why_, sizeof why_)) {         \
      ncore_comm_destroy(comm);                                     \
      SKIP("no window on this communicator: %s", why_);             \
    }                                                               \
  } while (0)

/* On NCCL, where windows need device memory from ncore_mem_alloc, checks
 * that a window over plain host memory `mem` is refused (INVALID_ARGUMENT
 * naming ptr), then frees mem, destroys comm and returns 1: the caller's
 * test is over. On the host backend returns 0 (such windows work there). */
int mr_plain_window_refused(ncore_comm_t comm, void *mem, size_t bytes);

/* For tests where a peer dies or aborts: every rank exchanges one element
 * with every other rank (a group of sends and recvs, completed), so that
 * NCCL's point-to-point connections exist before anyone fails. NCCL makes
 * them inside the first send/recv to a peer, and a dead peer blocks that
 * call in NCCL's connection setup for NCCL's own timeout (a minute), not the
 * communicator's (see ncore_comm_abort). Records a failure if it fails. */
void mr_connect_peers(ncore_comm_t comm, int rank, int nranks);

/* Declares that this rank is killed on purpose, then SIGKILLs itself. */
void mr_die(void) __attribute__((noreturn));

/* 1 when running under tools/ncore-run. */
int mr_in_launcher(void);

/* A barrier: a one-element allreduce, completed (mr_complete); where comm
 * holds all of the test's ranks (ranks of their own), also mr_host_barrier,
 * so that no rank leaves before every rank's allreduce is over. Records a
 * failure if it fails. */
void mr_barrier(ncore_comm_t comm);

/* A barrier outside any communicator: a counter in a file the harness's
 * parent shares with the test's ranks. Returns once all nranks ranks of the
 * test called it as often as this one; records a failure after
 * MR_TIMEOUT_MS. For ranks started by the harness only (not ncore-run). */
void mr_host_barrier(int nranks);

/* mr_host_barrier with its own timeout, recording no failure of its own
 * for a timeout. Returns 0 once every rank arrived, -1 after timeout_ms (or
 * when the barrier's file is missing: then a failure is recorded). */
int mr_host_barrier_within(int nranks, int timeout_ms);

/* An abort of comm from a thread of its own, delay_ms after the thread
 * starts (what a program's watchdog does while a call waits):
 *   mr_aborter_t a = {comm, 200, NCORE_ERR_INTERNAL};
 *   pthread_create(&thread, NULL, mr_abort_later, &a); ... pthread_join;
 * then a.status is what ncore_comm_abort answered. */
typedef struct mr_aborter {
  ncore_comm_t comm;
  int delay_ms;
  ncore_status_t status;
} mr_aborter_t;
void *mr_abort_later(void *aborter);

/* Milliseconds of a monotonic clock. */
double mr_now_ms(void);

#endif /* NCORE_TESTS_MULTIRANK_H */
