/* Multi-rank tests: signal, wait_signal and put_signal (ncore/onesided.h).
 * Usage: test_onesided N. */
#include <stdlib.h>
#include <unistd.h>

#include "multirank.h"
#include "testbuf.h"

/* A wait descriptor for op_count signals from peer. */
static ncore_wait_signal_desc_t desc_for(int peer, uint32_t op_count) {
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = peer;
  d.op_count = op_count;
  return d;
}

MR_TEST(signal_counts_are_consumed_by_waits) {
  MR_COMM(comm);
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  for (int i = 0; i < 3; i++) CHECK_ONESIDED_CALL(comm, right, ncore_signal(comm, right, 0, 0, 0, NULL));
  ncore_wait_signal_desc_t d = desc_for(left, 2);
  CHECK_ONESIDED_CALL(comm, left, ncore_wait_signal(comm, &d, 1, NULL));
  d.op_count = 1;
  CHECK_ONESIDED_CALL(comm, left, ncore_wait_signal(comm, &d, 1, NULL));
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(wait_on_every_peer_with_multiple_descs) {
  MR_COMM(comm);
  ncore_wait_signal_desc_t *descs = calloc((size_t)nranks, sizeof *descs);
  int k = 0, all_reachable = 1;
  for (int peer = 0; peer < nranks; peer++) {
    if (peer == rank) continue;
    /* peer p sends p + 1 signals to everyone */
    descs[k++] = desc_for(peer, (uint32_t)peer + 1);
    all_reachable = all_reachable && mr_onesided_reachable(comm, peer);
  }
  for (int peer = 0; peer < nranks; peer++)
    if (peer != rank)
      for (int i = 0; i <= rank; i++)
        CHECK_ONESIDED_CALL(comm, peer, ncore_signal(comm, peer, 0, 0, 0, NULL));
  /* One unreachable peer among the descriptors fails the whole wait. */
  if (all_reachable) {
    CHECK_OK(ncore_wait_signal(comm, descs, (size_t)k, NULL));
  } else {
    CHECK_STATUS(ncore_wait_signal(comm, descs, (size_t)k, NULL), NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("LSA team");
  }
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  free(descs);
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(self_signal) {
  MR_COMM(comm);
  CHECK_OK(ncore_signal(comm, rank, 0, 0, 0, NULL));
  ncore_wait_signal_desc_t d = desc_for(rank, 1);
  CHECK_OK(ncore_wait_signal(comm, &d, 1, NULL));
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(wait_really_waits_for_a_late_signal) {
  MR_COMM(comm);
  mr_barrier(comm);
  if (!mr_onesided_reachable(comm, rank == 0 ? 1 : 0)) {
    /* Neither can reach the other: both calls say so, nothing waits. */
    ncore_wait_signal_desc_t d = desc_for(1, 1);
    if (rank == 0) CHECK_ONESIDED_CALL(comm, 1, ncore_wait_signal(comm, &d, 1, NULL));
    if (rank == 1) CHECK_ONESIDED_CALL(comm, 0, ncore_signal(comm, 0, 0, 0, 0, NULL));
  } else if (rank == 0) {
    /* On NCCL the wait is stream-ordered: the stream, not the call, waits. */
    double t0 = mr_now_ms();
    ncore_wait_signal_desc_t d = desc_for(1, 1);
    CHECK_OK(mr_complete(comm, ncore_wait_signal(comm, &d, 1, NULL), NULL));
    double waited = mr_now_ms() - t0;
    if (waited < 180) {
      harness_fail(__FILE__, __LINE__, "wait returned after %.1f ms; the signal came after 200 ms", waited);
      return;
    }
    CHECK(waited < 3000);
  } else if (rank == 1) {
    usleep(200 * 1000);
    CHECK_OK(mr_complete(comm, ncore_signal(comm, 0, 0, 0, 0, NULL), NULL));
  }
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(wait_times_out_without_signal) {
  /* Every rank waits for a signal from itself that never comes (itself is
   * always reachable), with a short timeout: the wait (host) or the stream
   * it was enqueued on (NCCL) times out, and the communicator keeps the
   * error, so later calls fail fast. */
  /* NCCL's init over sockets takes seconds, and the timeout bounds it too. */
  const int TIMEOUT_MS = harness_is_host() ? 1000 : MR_TIMEOUT_MS;
  ncore_comm_config_t config = mr_config();
  config.timeout_ms = TIMEOUT_MS;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_init_rank(&comm, nranks, id, rank, &config));
  mr_track(comm);
  CHECK_OK(harness_settle(NCORE_IN_PROGRESS));
  /* The wait goes on a stream of its own: on NCCL that stream stays
   * blocked until the abort releases it, and nothing else may queue behind
   * it (the test's buffers use the default stream). */
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, harness_backend()));
  double t0 = mr_now_ms();
  ncore_wait_signal_desc_t d = desc_for(rank, 1);
  CHECK_STATUS(mr_complete(comm, ncore_wait_signal(comm, &d, 1, stream), stream),
               NCORE_ERR_TIMEOUT);
  CHECK_MESSAGE_CONTAINS("timed out");
  double waited = mr_now_ms() - t0;
  CHECK(waited >= TIMEOUT_MS * 0.9);
  CHECK(waited < TIMEOUT_MS * 3);
  /* The timeout ended the communicator, as an asynchronous error: later
   * calls fail at once with it. */
  ncore_status_t async = NCORE_OK;
  CHECK_OK(ncore_comm_async_error(comm, &async));
  CHECK_EQ(async, NCORE_ERR_TIMEOUT);
  int32_t *buf = tb_alloc(sizeof(int32_t));
  CHECK(buf);
  double t1 = mr_now_ms();
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 1, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_TIMEOUT);
  CHECK(mr_now_ms() - t1 < TIMEOUT_MS / 2);
  /* Let every rank see its own timeout before this one's abort could tell
   * them it went away. */
  usleep((useconds_t)TIMEOUT_MS * 1000);
  CHECK_OK(ncore_comm_abort(comm));
  /* After the abort released the wait: freeing device memory waits for
   * the device, blocked stream included. */
  tb_free(buf);
  CHECK_OK(ncore_stream_destroy(stream, harness_backend()));
}

MR_TEST(signal_and_wait_argument_errors) {
  MR_COMM(comm);
  CHECK_STATUS(ncore_signal(comm, nranks, 0, 0, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_signal: peer");
  CHECK_STATUS(ncore_signal(comm, 0, 1, 0, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("signal_index");
  CHECK_STATUS(ncore_signal(comm, 0, 0, 2, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("context");
  CHECK_STATUS(ncore_signal(comm, 0, 0, 0, 4, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("flags");
  ncore_wait_signal_desc_t d = desc_for(0, 1);
  CHECK_STATUS(ncore_wait_signal(comm, NULL, 1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("descs");
  CHECK_STATUS(ncore_wait_signal(comm, &d, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ndescs");
  d.peer = nranks;
  CHECK_STATUS(ncore_wait_signal(comm, &d, 1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("peer");
  d = desc_for(0, 0);
  CHECK_STATUS(ncore_wait_signal(comm, &d, 1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("op_count");
  d = desc_for(0, 1);
  d.signal_index = 1;
  CHECK_STATUS(ncore_wait_signal(comm, &d, 1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("signal_index");
  d = desc_for(0, 1);
  d.context = 3;
  CHECK_STATUS(ncore_wait_signal(comm, &d, 1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("context");
  d = desc_for(0, 1);
  d.struct_size = 3;
  CHECK_STATUS(ncore_wait_signal(comm, &d, 1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
  /* Elements with differing struct_size: the second one is read with the
   * first's stride, and its own struct_size disagrees. */
  ncore_wait_signal_desc_t two[2] = {desc_for(0, 1), desc_for(0, 1)};
  two[1].struct_size = (uint32_t)sizeof two[1] - 4;
  CHECK_STATUS(ncore_wait_signal(comm, two, 2, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
  if (harness_is_host()) {
    CHECK_STATUS(ncore_signal(comm, 0, 0, 0, 0, (ncore_stream_t)(uintptr_t)0x77),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("stream");
  }
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_signal(comm, 0, 0, 0, 0, NULL), NCORE_ERR_CLOSED);
  d = desc_for(0, 1);
  CHECK_STATUS(ncore_wait_signal(comm, &d, 1, NULL), NCORE_ERR_CLOSED);
}

/* Each rank puts COUNT int32 into its right neighbour's part of a window
 * over win_mem (window_bytes per rank) at element offset rank * COUNT, then
 * waits for its left neighbour's put and checks the data landed. */
#define COUNT 300
static void put_ring(ncore_comm_t comm, int rank, int nranks, char *win_mem,
                     size_t window_bytes, int mapped) {
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, win_mem, window_bytes, NCORE_WINDOW_DEFAULT));
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  int32_t host[COUNT];
  for (int i = 0; i < COUNT; i++) host[i] = rank * 100000 + i;
  int32_t *src = tb_alloc(sizeof host);
  CHECK(src);
  tb_put(src, host, sizeof host);
  CHECK_ONESIDED_CALL(comm, right, ncore_put_signal(comm, src, COUNT, NCORE_INT32, right, win,
                                               (size_t)rank * COUNT, 0, 0, 0, NULL));
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = left;
  CHECK_ONESIDED_CALL(comm, left, ncore_wait_signal(comm, &d, 1, NULL));
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  int32_t got[COUNT];
  if (mapped) tb_get(got, win_mem + (size_t)left * COUNT * 4, sizeof got);
  else memcpy(got, win_mem + (size_t)left * COUNT * 4, sizeof got);
  for (int i = 0; mr_onesided_reachable(comm, left) && i < COUNT; i++)
    if (got[i] != left * 100000 + i) {
      harness_fail(__FILE__, __LINE__, "%s window: element %d is %d, expected %d",
                   mapped ? "shared" : "malloc", i, got[i], left * 100000 + i);
      return;
    }
  mr_barrier(comm);
  CHECK_OK(ncore_window_close(win));
  tb_free(src);
}

MR_TEST(put_signal_lands_in_mapped_window) {
  MR_COMM(comm);
  size_t bytes = (size_t)nranks * COUNT * 4;
  char *mem = tb_alloc(bytes);
  CHECK(mem);
  put_ring(comm, rank, nranks, mem, bytes, 1);
  if (harness_failed()) return;
  tb_free(mem);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(put_signal_lands_in_malloc_window) {
  MR_COMM(comm);
  size_t bytes = (size_t)nranks * COUNT * 4;
  char *mem = calloc(1, bytes);
  CHECK(mem);
  if (mr_plain_window_refused(comm, mem, bytes)) return; /* NCCL: device memory only */
  put_ring(comm, rank, nranks, mem, bytes, 0);
  if (harness_failed()) return;
  free(mem);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(put_signal_large_and_zero_sized) {
  MR_COMM(comm);
  size_t bytes = (2u << 20) + 8; /* > 1 MiB */
  char *mem = tb_alloc(bytes);
  char *src = tb_alloc(bytes);
  CHECK(mem && src);
  char *host = malloc(bytes);
  for (size_t i = 0; i < bytes; i++) host[i] = (char)(i * 31 + rank);
  tb_put(src, host, bytes);
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, bytes, 0));
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  CHECK_ONESIDED_CALL(comm, right,
                 ncore_put_signal(comm, src, bytes, NCORE_UINT8, right, win, 0, 0, 0, 0, NULL));
  /* A zero-element put still signals. */
  CHECK_ONESIDED_CALL(comm, right,
                 ncore_put_signal(comm, NULL, 0, NCORE_UINT8, right, win, 0, 0, 0, 0, NULL));
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = left;
  d.op_count = 2;
  CHECK_ONESIDED_CALL(comm, left, ncore_wait_signal(comm, &d, 1, NULL));
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  tb_get(host, mem, bytes);
  for (size_t i = 0; mr_onesided_reachable(comm, left) && i < bytes; i++)
    if (host[i] != (char)(i * 31 + left)) {
      harness_fail(__FILE__, __LINE__, "byte %zu differs", i);
      return;
    }
  mr_barrier(comm);
  CHECK_OK(ncore_window_close(win));
  free(host);
  tb_free(mem);
  tb_free(src);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Host: a put into this rank's own part may overlap its source (* memcpy of overlapping buffers under ASan); it moves the bytes as
 * memmove does, both ways. */
MR_TEST(put_signal_to_self_with_overlapping_source) {
  REQUIRE_HOST_BACKEND("the window is host memory written with plain "
                       "stores; on NCCL a put is a device copy, and the "
                       "test's host-side checks do not apply");
  MR_COMM(comm);
  enum { BYTES = 4096, SHIFT = 3, LEN = 1000 };
  unsigned char *mem = NULL;
  CHECK_OK(ncore_mem_alloc((void **)&mem, BYTES, NCORE_BACKEND_HOST));
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, BYTES, 0));
  unsigned char want[BYTES];
  for (int i = 0; i < BYTES; i++) mem[i] = want[i] = (unsigned char)(i * 7 + 1);
  /* Forward: [SHIFT, SHIFT + LEN) onto [0, LEN). */
  memmove(want, want + SHIFT, LEN);
  CHECK_OK(ncore_put_signal(comm, mem + SHIFT, LEN, NCORE_UINT8, rank, win, 0, 0, 0, 0, NULL));
  /* Backward: [0, LEN) onto [SHIFT, SHIFT + LEN). */
  memmove(want + SHIFT, want, LEN);
  CHECK_OK(ncore_put_signal(comm, mem, LEN, NCORE_UINT8, rank, win, SHIFT, 0, 0, 0, NULL));
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = rank;
  d.op_count = 2;
  CHECK_OK(ncore_wait_signal(comm, &d, 1, NULL));
  CHECK(memcmp(mem, want, BYTES) == 0);
  CHECK_OK(ncore_window_close(win));
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_HOST));
}

MR_TEST(put_signal_errors) {
  MR_COMM(comm);
  char *mem = tb_alloc(4096);
  int32_t *src = tb_alloc(8192);
  CHECK(mem && src);
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, 4096, 0));
  int right = (rank + 1) % nranks;
  /* 1025 int32 = 4100 bytes do not fit in 4096. */
  CHECK_STATUS(ncore_put_signal(comm, src, 1025, NCORE_INT32, right, win, 0, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("4096");
  CHECK_MESSAGE_CONTAINS("4100");
  /* Offsets are in elements: 1 + 1024 int32 overflow the part too. */
  CHECK_STATUS(ncore_put_signal(comm, src, 1024, NCORE_INT32, right, win, 1, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_put_signal(comm, NULL, 4, NCORE_INT32, right, win, 0, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("local_buf");
  CHECK_STATUS(ncore_put_signal(comm, src, 4, (ncore_dtype_t)14, right, win, 0, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("dtype");
  CHECK_STATUS(ncore_put_signal(comm, src, 4, NCORE_INT32, nranks, win, 0, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("peer");
  CHECK_STATUS(ncore_put_signal(comm, src, 4, NCORE_INT32, right, win, 0, 1, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("signal_index");
  CHECK_STATUS(ncore_put_signal(comm, src, 4, NCORE_INT32, right, win, 0, 0, 1, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("context");
  CHECK_STATUS(ncore_put_signal(comm, src, 4, NCORE_INT32, right, win, 0, 0, 0, 1, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("flags");
  CHECK_STATUS(ncore_put_signal(comm, src, 4, NCORE_INT32, right, NCORE_NULL_HANDLE, 0, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("peer_window");
  CHECK_STATUS(ncore_put_signal(comm, src, 4, NCORE_INT32, right, (ncore_window_t)comm, 0, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);

  /* A window of another communicator. */
  ncore_comm_t twin;
  CHECK_OK(ncore_comm_split(comm, 0, rank, &twin, NULL));
  mr_track(twin);
  char *twin_mem = tb_alloc(4096);
  ncore_window_t twin_win;
  CHECK_OK(ncore_register_window(&twin_win, twin, twin_mem, 4096, 0));
  CHECK_STATUS(ncore_put_signal(comm, src, 4, NCORE_INT32, right, twin_win, 0, 0, 0, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("peer_window");

  /* A closed window answers CLOSED. */
  CHECK_OK(ncore_window_close(win));
  CHECK_STATUS(ncore_put_signal(comm, src, 4, NCORE_INT32, right, win, 0, 0, 0, 0, NULL),
               NCORE_ERR_CLOSED);
  CHECK_MESSAGE_CONTAINS("peer_window");
  mr_barrier(comm);
  CHECK_OK(ncore_window_close(twin_win));
  CHECK_OK(ncore_comm_destroy(twin));
  tb_free(twin_mem);
  tb_free(mem);
  tb_free(src);
  CHECK_OK(ncore_comm_destroy(comm));
}

HARNESS_MAIN
