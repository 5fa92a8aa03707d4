/* Multi-rank tests: what a group holds on to. A call queued between
 * ncore_group_start and ncore_group_end keeps its communicator and custom
 * operator until the group has run it: destroying or closing them in
 * between, or aborting the communicator from another thread while
 * ncore_group_end runs, must never free them under the group (it was
 * SIGSEGV and heap use-after-free before). Usage: test_groups N. */
#include <pthread.h>
#include <unistd.h>

#include "multirank.h"
#include "testbuf.h"

enum { COUNT = 1000 };

/* Fills buf (COUNT int32, communication memory) with rank * 1000 + i. */
static void fill(int32_t *buf, int rank) {
  int32_t host[COUNT];
  for (int i = 0; i < COUNT; i++) host[i] = rank * 1000 + i;
  tb_put(buf, host, sizeof host);
}

/* Checks buf holds what fill(buf, from) wrote. */
static void check_filled(const int32_t *buf, int from) {
  int32_t host[COUNT];
  tb_get(host, buf, sizeof host);
  for (int i = 0; i < COUNT; i++)
    if (host[i] != from * 1000 + i) {
      harness_fail(__FILE__, __LINE__, "element %d is %d, expected %d", i, host[i],
                   from * 1000 + i);
      return;
    }
}

/* A queued ring exchange still runs when its communicator was destroyed
 * before ncore_group_end: the group keeps it until then. */
MR_TEST(destroy_between_group_start_and_end) {
  MR_COMM(comm);
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  int32_t *send = tb_alloc(COUNT * sizeof(int32_t));
  int32_t *recv = tb_alloc(COUNT * sizeof(int32_t));
  CHECK(send && recv);
  fill(send, rank);
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_send(comm, send, COUNT, NCORE_INT32, right, NULL));
  CHECK_OK(ncore_recv(comm, recv, COUNT, NCORE_INT32, left, NULL));
  CHECK_OK(ncore_comm_destroy(comm));
  int v;
  CHECK_STATUS(ncore_comm_rank(comm, &v), NCORE_ERR_CLOSED);
  CHECK_OK(ncore_group_end());
  CHECK_OK(ncore_stream_synchronize(NULL, harness_backend()));
  check_filled(recv, left);
  tb_free(send);
  tb_free(recv);
}

/* A custom operator closed before ncore_group_end still reduces the
 * collective queued with it. */
MR_TEST(close_operator_between_group_start_and_end) {
  MR_COMM(comm);
  float scalar = 2;
  ncore_custom_redop_t op;
  CHECK_OK(ncore_create_pre_mul_sum(&op, comm, &scalar, NCORE_FLOAT32,
                                    NCORE_SCALAR_HOST_IMMEDIATE));
  ncore_redop_t value;
  CHECK_OK(ncore_custom_redop_value(op, &value));
  float *buf = tb_alloc(COUNT * sizeof(float));
  CHECK(buf);
  float host[COUNT];
  for (int i = 0; i < COUNT; i++) host[i] = (float)(rank + i);
  tb_put(buf, host, sizeof host);
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_allreduce(comm, buf, buf, COUNT, NCORE_FLOAT32, value, NULL));
  CHECK_OK(ncore_custom_redop_close(op));
  CHECK_EQ(ncore_custom_redop_is_valid(op), 0);
  CHECK_OK(ncore_group_end());
  tb_get(host, buf, sizeof host);
  float ranks_sum = (float)nranks * (float)(nranks - 1) / 2;
  for (int i = 0; i < COUNT; i++) {
    float want = 2 * (ranks_sum + (float)nranks * (float)i);
    if (host[i] != want) {
      harness_fail(__FILE__, __LINE__, "element %d is %g, expected %g", i, host[i], want);
      return;
    }
  }
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(buf);
}

/* Host: ncore_comm_abort from another thread while ncore_group_end waits
 * for a message that never comes: the group's call returns CLOSED, and the
 * communicator goes once the group let go of it. */
MR_TEST(abort_from_another_thread_during_group_end) {
  REQUIRE_HOST_BACKEND("the host backend's group_end waits for the message; "
                       "NCCL's only enqueues (its wait is in "
                       "ncore_comm_synchronize, tested elsewhere)");
  MR_COMM(comm);
  int32_t *buf = tb_alloc(COUNT * sizeof(int32_t));
  CHECK(buf);
  mr_barrier(comm);
  if (rank == 0) {
    mr_aborter_t a = {comm, 200, NCORE_ERR_INTERNAL};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, mr_abort_later, &a) == 0);
    CHECK_OK(ncore_group_start());
    CHECK_OK(ncore_recv(comm, buf, COUNT, NCORE_INT32, 1, NULL));
    CHECK_OK(ncore_recv(comm, buf, 1, NCORE_INT32, nranks - 1, NULL));
    CHECK_STATUS(ncore_group_end(), NCORE_ERR_CLOSED);
    pthread_join(thread, NULL);
    CHECK_OK(a.status);
  } else {
    /* Nothing is sent: rank 0's group waits until its own abort. */
    ncore_status_t st = ncore_recv(comm, buf, 1, NCORE_INT32, 0, NULL);
    CHECK_EQ(st, NCORE_ERR_REMOTE);
    CHECK_OK(ncore_comm_destroy(comm));
  }
  tb_free(buf);
}

/* Host: aborting a communicator whose calls are queued, on the same thread,
 * makes the group fail with CLOSED instead of running them. */
MR_TEST(abort_between_group_start_and_end) {
  REQUIRE_HOST_BACKEND("an NCCL group holds the queued calls inside NCCL, "
                       "which no ncore call can take back out");
  MR_COMM(comm);
  int32_t *buf = tb_alloc(sizeof(int32_t));
  CHECK(buf);
  mr_barrier(comm);
  if (rank == 0) {
    CHECK_OK(ncore_group_start());
    CHECK_OK(ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL));
    CHECK_OK(ncore_comm_abort(comm));
    CHECK_STATUS(ncore_group_end(), NCORE_ERR_CLOSED);
  } else {
    CHECK_OK(ncore_comm_destroy(comm));
  }
  tb_free(buf);
}

HARNESS_MAIN
