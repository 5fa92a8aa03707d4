/* Multi-rank tests: send / recv and groups. Usage: test_p2p NRANKS.
 * This program also runs under tools/ncore-run (see tests/run.sh). */
#include <stdlib.h>
#include <string.h>

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
  CHECK_MESSAGE_CONTAINS("no group was started");
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

/* ---- the host backend's one-copy path (core/host/p2p_direct.c) ---- */

/* A buffer of each kind a host-backend message can use: ncore_mem_alloc
 * memory registered with the communicator (a receiver of another process
 * maps its pages: one copy), ncore_mem_alloc memory not registered and
 * plain malloc memory (a receiver of another process never maps them: the
 * ring), and a symmetric allocation. */
enum { KIND_REGISTERED, KIND_MEM_ALLOC, KIND_MALLOC, KIND_SYMMETRIC, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = {
    "registered ncore_mem_alloc", "ncore_mem_alloc", "malloc", "symmetric"};

/* A buffer of `kind` for this rank; `sym` is the symmetric allocation
 * every rank made (collectively) when either side uses one. */
static char *kind_alloc(int kind, size_t bytes, char *sym) {
  char *p = kind == KIND_MEM_ALLOC || kind == KIND_REGISTERED ? tb_alloc(bytes)
            : kind == KIND_MALLOC                            ? calloc(1, bytes)
                                                             : sym;
  CHECK(p);
  return p;
}

static void kind_free(int kind, char *p) {
  if (kind == KIND_MEM_ALLOC || kind == KIND_REGISTERED) tb_free(p);
  else if (kind == KIND_MALLOC) free(p);
}

/* Rank 0 sends `bytes` from `offset` into its buffer of kind sk; rank 1
 * receives them at `offset` of its buffer of kind rk and checks every byte
 * and that nothing around them was written. */
static void send_between_kinds(ncore_comm_t comm, int rank, int sk, int rk,
                               size_t bytes, size_t offset) {
  size_t total = offset + bytes + 64;
  ncore_symmetric_t sym = NCORE_NULL_HANDLE;
  void *sym_ptr = NULL;
  if (sk == KIND_SYMMETRIC || rk == KIND_SYMMETRIC) {
    CHECK_OK(ncore_symmetric_alloc(&sym, comm, total));
    CHECK_OK(ncore_symmetric_local_pointer(sym, &sym_ptr));
  }
  int kind = rank == 0 ? sk : rank == 1 ? rk : KIND_MALLOC;
  char *buf = harness_failed() ? NULL : kind_alloc(kind, total, sym_ptr);
  if (harness_failed()) return;
  ncore_registered_buffer_t reg = NCORE_NULL_HANDLE;
  if (kind == KIND_REGISTERED) CHECK_OK(ncore_register_buffer(&reg, comm, buf, total));
  size_t n = bytes / 4;
  int32_t *pattern = malloc(bytes);
  CHECK(pattern);
  fill_pattern(pattern, n, 31 * sk + rk);
  if (rank == 0) {
    memcpy(buf + offset, pattern, bytes);
    CHECK_OK(ncore_send(comm, buf + offset, n, NCORE_INT32, 1, NULL));
  } else if (rank == 1) {
    memset(buf, 0x5a, total);
    CHECK_OK(ncore_recv(comm, buf + offset, n, NCORE_INT32, 0, NULL));
    if (memcmp(buf + offset, pattern, bytes) != 0)
      harness_fail(__FILE__, __LINE__, "%zu bytes from %s into %s differ", bytes,
                   kind_names[sk], kind_names[rk]);
    for (size_t i = 0; i < total; i++)
      if ((i < offset || i >= offset + bytes) && buf[i] != 0x5a) {
        harness_fail(__FILE__, __LINE__, "byte %zu outside the message was written", i);
        break;
      }
  }
  free(pattern);
  if (reg) CHECK_OK(ncore_registered_buffer_close(reg));
  kind_free(kind, buf);
  if (sym) CHECK_OK(ncore_symmetric_free(sym));
}

MR_TEST(large_messages_between_every_kind_of_buffer) {
  REQUIRE_HOST_BACKEND("NCCL needs device memory; plain malloc memory is "
                       "refused there");
  MR_COMM(comm);
  /* Around the one-copy threshold (32 KiB), large and at an odd offset. */
  const size_t sizes[] = {32 * 1024 - 4, 32 * 1024, 32 * 1024 + 4, (3u << 20) + 12};
  for (int sk = 0; sk < KIND_COUNT; sk++)
    for (int rk = 0; rk < KIND_COUNT; rk++)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes && !harness_failed(); s++)
        send_between_kinds(comm, rank, sk, rk, sizes[s], s % 2 ? 4100 : 0);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(large_messages_in_order_and_to_oneself) {
  /* One-copy messages keep their order with small ones in between, both
   * ways at once, and a rank's message to itself is copied too. */
  MR_COMM(comm);
  const size_t big = 1u << 20, n = big / 4;
  int32_t *host = malloc(big);
  char *src = tb_alloc(3 * big), *dst = tb_alloc(3 * big), *self = tb_alloc(big);
  CHECK(host && src && dst && self);
  int peer = rank ^ 1;
  if (peer < nranks) {
    for (int m = 0; m < 3; m++) {
      fill_pattern(host, n, 100 * rank + m);
      tb_put(src + m * big, host, big);
    }
    CHECK_OK(ncore_group_start());
    for (int m = 0; m < 3; m++) {
      CHECK_OK(ncore_send(comm, src + m * big, m == 1 ? 16 : n, NCORE_INT32, peer, NULL));
      CHECK_OK(ncore_recv(comm, dst + m * big, m == 1 ? 16 : n, NCORE_INT32, peer, NULL));
    }
    CHECK_OK(ncore_send(comm, src, n, NCORE_INT32, rank, NULL));
    CHECK_OK(ncore_recv(comm, self, n, NCORE_INT32, rank, NULL));
    CHECK_OK(ncore_group_end());
    for (int m = 0; m < 3; m++) {
      tb_get(host, dst + m * big, big);
      CHECK_EQ(first_mismatch(host, m == 1 ? 16 : n, 100 * peer + m), -1);
    }
    tb_get(host, self, big);
    CHECK_EQ(first_mismatch(host, n, 100 * rank), -1);
  }
  free(host);
  tb_free(src);
  tb_free(dst);
  tb_free(self);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(large_messages_between_ranks_of_one_process) {
  /* ncore_comm_init_all: the ranks share the address space, so the
   * receiver copies straight from any send buffer (malloc memory too). */
  REQUIRE_HOST_BACKEND("NCCL needs one device per rank and device memory");
  if (rank != 0) return;
  (void)id;
  ncore_comm_t comms[2];
  CHECK_OK(ncore_comm_init_all(comms, 2, NULL, NULL));
  if (harness_failed()) return;
  const size_t n = (1u << 20) / 4 + 3;
  int32_t *a = malloc(n * 4), *b = calloc(n, 4);
  CHECK(a && b);
  fill_pattern(a, n, 5);
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_send(comms[0], a, n, NCORE_INT32, 1, NULL));
  CHECK_OK(ncore_recv(comms[1], b, n, NCORE_INT32, 0, NULL));
  CHECK_OK(ncore_group_end());
  CHECK_EQ(first_mismatch(b, n, 5), -1);
  free(a);
  free(b);
  CHECK_OK(ncore_comm_destroy(comms[0]));
  CHECK_OK(ncore_comm_destroy(comms[1]));
}

MR_TEST(large_size_mismatch_is_invalid_usage) {
  REQUIRE_HOST_BACKEND("NCCL does not compare the sizes of a matched send "
                       "and recv (a mismatch is undefined behaviour there)");
  MR_COMM(comm);
  const size_t n = 64 * 1024;
  int32_t *buf = tb_alloc(2 * n * 4);
  CHECK(buf);
  if (rank == 0) {
    /* The offer waits for the receiver, which refuses the size: the send
     * fails with the communicator the receiver failed. */
    CHECK_STATUS(ncore_send(comm, buf, n, NCORE_INT32, 1, NULL), NCORE_ERR_INVALID_USAGE);
  } else if (rank == 1) {
    CHECK_STATUS(ncore_recv(comm, buf, 2 * n, NCORE_INT32, 0, NULL), NCORE_ERR_INVALID_USAGE);
    CHECK_MESSAGE_CONTAINS("matched a send of");
  }
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* One exchange of n int32 around the ring in a group: from src to the right
 * neighbour, into dst from the left one; then dst checked. */
static void ring_once(ncore_comm_t comm, int rank, int nranks, int32_t *src,
                      int32_t *dst, size_t n, int seed, ncore_stream_t stream) {
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  int32_t *host = malloc(n * 4);
  CHECK(host != NULL);
  fill_pattern(host, n, seed + rank);
  tb_put(src, host, n * 4);
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_send(comm, src, n, NCORE_INT32, right, stream));
  CHECK_OK(ncore_recv(comm, dst, n, NCORE_INT32, left, stream));
  CHECK_OK(ncore_group_end());
  CHECK_OK(ncore_stream_synchronize(stream, harness_backend()));
  tb_get(host, dst, n * 4);
  CHECK_EQ(first_mismatch(host, n, seed + left), -1);
  free(host);
}

/* A window is about one-sided operations: send/recv between window memory
 * and plain memory must behave as between plain buffers. On NCCL a window's
 * memory is also registered as a user buffer, and a receive into it from an
 * unregistered send buffer never completed (a hang NCCL's own calls reproduce:
 * tests/gpu/nccl_one_side_registered.cu). Both directions, several
 * messages of 1 MiB (NCCL's SIMPLE protocol), alltoall (send/recv inside
 * NCCL), then the same window range registered on every rank by the
 * program, where NCCL's own rule (both sides registered) holds. */
MR_TEST(window_memory_and_plain_memory_exchange_messages) {
  MR_COMM(comm);
  const size_t n = (1u << 20) / 4, bytes = n * 4;
  int32_t *in_window = tb_alloc(4 * bytes), *plain = tb_alloc(4 * bytes);
  CHECK(in_window && plain);
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, harness_backend()));
  ncore_window_t window = 0;
  CHECK_OK(ncore_register_window(&window, comm, in_window, 4 * bytes, 0));
  for (int round = 0; round < 3 && !harness_failed(); round++)
    ring_once(comm, rank, nranks, plain, in_window + round * n, n, 10 * round, stream);
  for (int round = 0; round < 3 && !harness_failed(); round++)
    ring_once(comm, rank, nranks, in_window + round * n, plain, n, 100 + round, stream);
  /* alltoall: every rank's block r goes to rank r. */
  size_t per = n / (size_t)nranks;
  int32_t *host = malloc(bytes);
  CHECK(host != NULL);
  for (size_t i = 0; i < per * (size_t)nranks; i++) host[i] = (int32_t)(rank * 7919 + i);
  tb_put(plain, host, per * (size_t)nranks * 4);
  CHECK_OK(ncore_alltoall(comm, plain, in_window, per, NCORE_INT32, stream));
  CHECK_OK(ncore_stream_synchronize(stream, harness_backend()));
  tb_get(host, in_window, per * (size_t)nranks * 4);
  for (int r = 0; r < nranks; r++)
    for (size_t i = 0; i < per; i++)
      CHECK_EQ(host[(size_t)r * per + i], (int32_t)(r * 7919 + (size_t)rank * per + i));
  /* Registered by the program on every rank, on both sides. */
  ncore_registered_buffer_t in_window_registered = 0, plain_registered = 0;
  CHECK_OK(ncore_register_buffer(&in_window_registered, comm, in_window, 4 * bytes));
  CHECK_OK(ncore_register_buffer(&plain_registered, comm, plain, 4 * bytes));
  for (int round = 0; round < 2 && !harness_failed(); round++)
    ring_once(comm, rank, nranks, plain, in_window + round * n, n, 1000 + round, stream);
  CHECK_OK(ncore_registered_buffer_close(plain_registered));
  CHECK_OK(ncore_registered_buffer_close(in_window_registered));
  CHECK_OK(ncore_window_close(window));
  CHECK_OK(ncore_stream_destroy(stream, harness_backend()));
  free(host);
  tb_free(in_window);
  tb_free(plain);
  CHECK_OK(ncore_comm_destroy(comm));
}
