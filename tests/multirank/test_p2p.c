/* Multi-rank tests: send / recv and groups. Usage: test_p2p NRANKS.
 * This program also runs under tools/ncore-run (see tests/run.sh). */
#include <stdlib.h>

#include "multirank.h"
#include "testbuf.h"

/* Fills host[i] = seed * 1000003 + i as int32. */
static void fill_pattern(int32_t *host, size_t n, int seed) {
  for (size_t i = 0; i < n; i++) host[i] = (int32_t)(seed * 1000003 + (int32_t)i);
}

/* Finds the first element of host that breaks the pattern, or -1. */
static long first_mismatch(const int32_t *host, size_t n, int seed) {
  for (size_t i = 0; i < n; i++)
    if (host[i] != (int32_t)(seed * 1000003 + (int32_t)i)) return (long)i;
  return -1;
}

MR_TEST(send_recv_pairs) {
  MR_COMM(comm);
  const size_t n = 1000;
  int32_t *host = malloc(n * 4);
  int32_t *buf = tb_alloc(n * 4);
  CHECK(host && buf);
  /* Even ranks send to the next odd rank, which receives. */
  int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (partner < nranks) {
    if (rank % 2 == 0) {
      fill_pattern(host, n, rank);
      tb_put(buf, host, n * 4);
      CHECK_OK(ncore_send(comm, buf, n, NCORE_INT32, partner, NULL));
    } else {
      CHECK_OK(ncore_recv(comm, buf, n, NCORE_INT32, partner, NULL));
      tb_get(host, buf, n * 4);
      CHECK_EQ(first_mismatch(host, n, partner), -1);
    }
  }
  free(host);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Every rank sends to its right and left neighbours and receives from both,
 * bytes bytes each way, in one group. */
static void ring_both_ways(ncore_comm_t comm, int rank, int nranks, size_t bytes,
                           ncore_stream_t stream) {
  size_t n = bytes / 4;
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  int32_t *host = malloc(bytes);
  int32_t *to_right = tb_alloc(bytes), *to_left = tb_alloc(bytes);
  int32_t *from_left = tb_alloc(bytes), *from_right = tb_alloc(bytes);
  CHECK(host && to_right && to_left && from_left && from_right);
  fill_pattern(host, n, 2 * rank);
  tb_put(to_right, host, bytes);
  fill_pattern(host, n, 2 * rank + 1);
  tb_put(to_left, host, bytes);
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_send(comm, to_right, n, NCORE_INT32, right, stream));
  CHECK_OK(ncore_send(comm, to_left, n, NCORE_INT32, left, stream));
  CHECK_OK(ncore_recv(comm, from_left, n, NCORE_INT32, left, stream));
  CHECK_OK(ncore_recv(comm, from_right, n, NCORE_INT32, right, stream));
  CHECK_OK(ncore_group_end());
  CHECK_OK(ncore_stream_synchronize(stream, harness_backend()));
  tb_get(host, from_left, bytes);
  CHECK_EQ(first_mismatch(host, n, 2 * left), -1);
  tb_get(host, from_right, bytes);
  CHECK_EQ(first_mismatch(host, n, 2 * right + 1), -1);
  free(host);
  tb_free(to_right);
  tb_free(to_left);
  tb_free(from_left);
  tb_free(from_right);
}

MR_TEST(group_ring_both_ways_large_messages) {
  MR_COMM(comm);
  ring_both_ways(comm, rank, nranks, (3u << 20) + 12, NULL); /* > 1 MiB, odd size */
  if (harness_failed()) return;
  ring_both_ways(comm, rank, nranks, 64, NULL);
  if (harness_failed()) return;
  ncore_stream_t s;
  CHECK_OK(ncore_stream_create(&s, harness_backend()));
  ring_both_ways(comm, rank, nranks, 1 << 20, s);
  CHECK_OK(ncore_stream_destroy(s, harness_backend()));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(self_send_in_group) {
  MR_COMM(comm);
  const size_t n = 256;
  int32_t host[256];
  int32_t *src = tb_alloc(n * 4), *dst = tb_alloc(n * 4);
  CHECK(src && dst);
  fill_pattern(host, n, 77 + rank);
  tb_put(src, host, sizeof host);
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_send(comm, src, n, NCORE_INT32, rank, NULL));
  CHECK_OK(ncore_recv(comm, dst, n, NCORE_INT32, rank, NULL));
  CHECK_OK(ncore_group_end());
  memset(host, 0, sizeof host);
  tb_get(host, dst, sizeof host);
  CHECK_EQ(first_mismatch(host, n, 77 + rank), -1);
  tb_free(src);
  tb_free(dst);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(messages_between_two_ranks_match_in_order) {
  MR_COMM(comm);
  int32_t *buf = tb_alloc(3 * 64 * 4);
  CHECK(buf);
  if (rank == 0) {
    int32_t host[64];
    for (int m = 0; m < 3; m++) {
      fill_pattern(host, 64, 100 + m);
      tb_put(buf + 64 * m, host, sizeof host);
    }
    CHECK_OK(ncore_group_start());
    for (int m = 0; m < 3; m++) CHECK_OK(ncore_send(comm, buf + 64 * m, 64, NCORE_INT32, 1, NULL));
    CHECK_OK(ncore_group_end());
  } else if (rank == 1) {
    CHECK_OK(ncore_group_start());
    for (int m = 0; m < 3; m++) CHECK_OK(ncore_recv(comm, buf + 64 * m, 64, NCORE_INT32, 0, NULL));
    CHECK_OK(ncore_group_end());
    int32_t host[64];
    for (int m = 0; m < 3; m++) {
      tb_get(host, buf + 64 * m, sizeof host);
      CHECK_EQ(first_mismatch(host, 64, 100 + m), -1);
    }
  }
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(p2p_argument_errors) {
  MR_COMM(comm);
  int32_t *buf = tb_alloc(64);
  CHECK(buf);
  CHECK_STATUS(ncore_send(comm, buf, 4, NCORE_INT32, nranks, NULL), NCORE_ERR_INVALID_ARGUMENT);
  char want[96];
  snprintf(want, sizeof want, "ncore_send: peer: %d is out of range [0, %d)", nranks, nranks);
  CHECK_MESSAGE_CONTAINS(want);
  CHECK_STATUS(ncore_recv(comm, buf, 4, NCORE_INT32, -1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_recv: peer");
  CHECK_STATUS(ncore_send(comm, NULL, 4, NCORE_INT32, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("buf");
  CHECK_STATUS(ncore_recv(comm, NULL, 4, NCORE_INT32, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("buf");
  CHECK_STATUS(ncore_send(comm, buf, 4, (ncore_dtype_t)12, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("dtype");
  CHECK_STATUS(ncore_recv(comm, buf, 4, (ncore_dtype_t)-3, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("dtype");
  if (harness_is_host()) {
    CHECK_STATUS(ncore_send(comm, buf, 4, NCORE_INT32, 0, (ncore_stream_t)(uintptr_t)0x999),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("stream");
  }
  /* NULL buffers with count 0 are fine: a zero-byte exchange in a ring. */
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_send(comm, NULL, 0, NCORE_FLOAT32, right, NULL));
  CHECK_OK(ncore_recv(comm, NULL, 0, NCORE_FLOAT32, left, NULL));
  CHECK_OK(ncore_group_end());
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_send(comm, buf, 1, NCORE_INT32, 0, NULL), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_recv(comm, buf, 1, NCORE_INT32, 0, NULL), NCORE_ERR_CLOSED);
}

MR_TEST(size_mismatch_is_invalid_usage) {
  REQUIRE_HOST_BACKEND("NCCL does not compare the sizes of a matched send "
                       "and recv (a mismatch is undefined behaviour there)");
  MR_COMM(comm);
  int32_t *buf = tb_alloc(64 * 4);
  CHECK(buf);
  if (rank == 0) {
    /* A small send completes eagerly (it fits the ring) before the receiver
     * compares sizes, so only the receiver can report the mismatch. */
    ncore_status_t st = ncore_send(comm, buf, 16, NCORE_INT32, 1, NULL);
    CHECK(st == NCORE_OK || st == NCORE_ERR_INVALID_USAGE);
  } else if (rank == 1) {
    CHECK_STATUS(ncore_recv(comm, buf, 32, NCORE_INT32, 0, NULL), NCORE_ERR_INVALID_USAGE);
    CHECK_MESSAGE_CONTAINS("ncore_recv");
  }
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(same_bytes_different_dtype_matches) {
  /* Matching is by byte size: 8 int32 from rank 0 land as 4 float64 bytes
   * on rank 1 unchanged. */
  MR_COMM(comm);
  int32_t *buf = tb_alloc(32);
  CHECK(buf);
  int32_t host[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  if (rank == 0) {
    tb_put(buf, host, 32);
    CHECK_OK(ncore_send(comm, buf, 8, NCORE_INT32, 1, NULL));
  } else if (rank == 1) {
    CHECK_OK(ncore_recv(comm, buf, 4, NCORE_FLOAT64, 0, NULL));
    int32_t got[8];
    tb_get(got, buf, 32);
    CHECK(memcmp(got, host, 32) == 0);
  }
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(group_end_without_start_is_invalid_usage) {
  (void)rank; (void)nranks; (void)id;
  CHECK_STATUS(ncore_group_end(), NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("ncore_group_end");
  /* Nested groups: only the outermost end runs the calls. */
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_group_end());
  CHECK_OK(ncore_group_end());
  CHECK_STATUS(ncore_group_end(), NCORE_ERR_INVALID_USAGE);
}

MR_TEST(nested_group_runs_at_outermost_end) {
  MR_COMM(comm);
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  int32_t *send = tb_alloc(4), *recv = tb_alloc(4);
  CHECK(send && recv);
  int32_t v = 500 + rank;
  tb_put(send, &v, 4);
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_send(comm, send, 1, NCORE_INT32, right, NULL));
  CHECK_OK(ncore_group_end());
  CHECK_OK(ncore_recv(comm, recv, 1, NCORE_INT32, left, NULL));
  CHECK_OK(ncore_group_end());
  tb_get(&v, recv, 4);
  CHECK_EQ(v, 500 + left);
  tb_free(send);
  tb_free(recv);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(group_reports_first_failure) {
  MR_COMM(comm);
  int32_t *buf = tb_alloc(16);
  CHECK(buf);
  /* A call with a bad peer inside a group: either the call or the end
   * reports INVALID_ARGUMENT, and the group is closed afterwards. */
  CHECK_OK(ncore_group_start());
  ncore_status_t st = ncore_send(comm, buf, 1, NCORE_INT32, nranks + 3, NULL);
  ncore_status_t end = ncore_group_end();
  CHECK(st == NCORE_ERR_INVALID_ARGUMENT || end == NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_group_end(), NCORE_ERR_INVALID_USAGE);
  mr_barrier(comm);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

HARNESS_MAIN
