/* Multi-rank tests: registered buffers and registered windows (properties,
 * pointers, bounds, lifecycle). Usage: test_resources N. */
#include <stdlib.h>

#include "multirank.h"
#include "testbuf.h"

MR_TEST(register_buffer_properties_and_close) {
  MR_COMM(comm);
  char *mem = tb_alloc(4096);
  CHECK(mem);
  ncore_registered_buffer_t rb = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_register_buffer(NULL, comm, mem, 16), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_register_buffer: out");
  CHECK_STATUS(ncore_register_buffer(&rb, comm, NULL, 16), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ptr");
  CHECK_STATUS(ncore_register_buffer(&rb, comm, mem, 0), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("size");
  CHECK_OK(ncore_register_buffer(&rb, comm, mem + 128, 1000));
  size_t size = 0;
  CHECK_OK(ncore_registered_buffer_size(rb, &size));
  CHECK_EQ(size, 1000);
  void *p = NULL;
  CHECK_OK(ncore_registered_buffer_pointer(rb, &p));
  CHECK_PTR_EQ(p, mem + 128);
  uintptr_t native = 0;
  CHECK_OK(ncore_registered_buffer_native_handle(rb, &native));
  CHECK(native != 0);
  CHECK_STATUS(ncore_registered_buffer_size(rb, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_registered_buffer_pointer(rb, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_registered_buffer_native_handle(rb, NULL), NCORE_ERR_INVALID_ARGUMENT);
  /* A registered buffer is usable for communication as before. */
  int32_t *data = (int32_t *)(mem + 128);
  int32_t one = 1;
  tb_put(data, &one, 4);
  CHECK_OK(ncore_allreduce(comm, data, data, 1, NCORE_INT32, NCORE_SUM, NULL));
  int32_t got = 0;
  tb_get(&got, data, 4);
  CHECK_EQ(got, nranks);
  CHECK_OK(ncore_registered_buffer_close(rb));
  CHECK_OK(ncore_registered_buffer_close(rb));
  CHECK_EQ(ncore_registered_buffer_is_valid(rb), 0);
  CHECK_STATUS(ncore_registered_buffer_size(rb, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_registered_buffer_pointer(rb, &p), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_registered_buffer_native_handle(rb, &native), NCORE_ERR_CLOSED);
  CHECK_OK(ncore_register_buffer(&rb, comm, mem, 64));
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_registered_buffer_size(rb, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_register_buffer(&rb, comm, mem, 64), NCORE_ERR_CLOSED);
  tb_free(mem);
}

MR_TEST(register_window_properties) {
  MR_COMM(comm);
  REQUIRE_WINDOWS(comm);
  const size_t size = 8192;
  char *mem = tb_alloc(size);
  CHECK(mem);
  ncore_window_t win = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_register_window(NULL, comm, mem, size, 0), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_register_window: out");
  CHECK_STATUS(ncore_register_window(&win, comm, NULL, size, 0), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ptr");
  CHECK_STATUS(ncore_register_window(&win, comm, mem, 0, 0), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("size");
  CHECK_STATUS(ncore_register_window(&win, comm, mem, size, 0x80), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("flags");
  CHECK_OK(ncore_register_window(&win, comm, mem, size, NCORE_WINDOW_COLL_SYMMETRIC));
  size_t got = 0;
  CHECK_OK(ncore_window_size(win, &got));
  CHECK_EQ(got, size);
  for (int peer = 0; peer < nranks; peer++) {
    CHECK_OK(ncore_window_peer_size(win, peer, &got));
    CHECK_EQ(got, size);
  }
  CHECK_STATUS(ncore_window_peer_size(win, nranks, &got), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("peer");
  void *p = NULL;
  CHECK_OK(ncore_window_user_pointer(win, &p));
  CHECK_PTR_EQ(p, mem);
  uint32_t flags = 99;
  CHECK_OK(ncore_window_flags(win, &flags));
  CHECK_EQ(flags, NCORE_WINDOW_COLL_SYMMETRIC);
  uintptr_t native = 0;
  CHECK_OK(ncore_window_native_handle(win, &native));
  CHECK(native != 0);
  CHECK_STATUS(ncore_window_size(win, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_user_pointer(win, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_flags(win, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_window_close(win));
  CHECK_OK(ncore_window_close(win));
  CHECK_STATUS(ncore_window_size(win, &got), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_window_flags(win, &flags), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_window_peer_device_pointer(win, 0, 0, &p), NCORE_ERR_CLOSED);
  mr_barrier(comm);
  tb_free(mem);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(window_sizes_may_differ_without_symmetric_flag) {
  MR_COMM(comm);
  REQUIRE_WINDOWS(comm);
  size_t mine = 4096 * (size_t)(rank + 1);
  char *mem = tb_alloc(mine);
  CHECK(mem);
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, mine, NCORE_WINDOW_DEFAULT));
  for (int peer = 0; peer < nranks; peer++) {
    size_t got = 0;
    CHECK_OK(ncore_window_peer_size(win, peer, &got));
    CHECK_EQ(got, 4096 * (size_t)(peer + 1));
  }
  CHECK_OK(ncore_window_close(win));
  /* With COLL_SYMMETRIC, differing sizes are rejected on every rank. */
  CHECK_STATUS(ncore_register_window(&win, comm, mem, mine, NCORE_WINDOW_COLL_SYMMETRIC),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("size");
  mr_barrier(comm);
  tb_free(mem);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(window_pointers_of_shared_memory_are_real) {
  MR_COMM(comm);
  REQUIRE_WINDOWS(comm);
  const size_t size = 4096;
  char *mem = tb_alloc(size);
  CHECK(mem);
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, size, NCORE_WINDOW_DEFAULT));
  int lsa_size = 0, lsa_rank = -1;
  CHECK_OK(ncore_comm_lsa_size(comm, &lsa_size));
  CHECK_OK(ncore_comm_lsa_rank(comm, &lsa_rank));
  void *p = NULL;
  /* Our own part: the peer pointer of ourselves is our buffer. */
  CHECK_OK(ncore_window_peer_device_pointer(win, rank, 0, &p));
  CHECK(p != NULL);
  if (harness_is_host()) CHECK_PTR_EQ(p, mem);
  void *q = NULL;
  CHECK_OK(ncore_window_lsa_device_pointer(win, lsa_rank, 16, &q));
  CHECK_PTR_EQ(q, (char *)p + 16);
  CHECK_OK(ncore_window_peer_device_pointer(win, rank, size, &p)); /* offset == size ok */
  CHECK_STATUS(ncore_window_peer_device_pointer(win, rank, size + 1, &p), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("offset");
  CHECK_STATUS(ncore_window_peer_device_pointer(win, nranks, 0, &p), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("peer");
  CHECK_STATUS(ncore_window_lsa_device_pointer(win, lsa_size, 0, &p), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("lsa_rank");
  CHECK_STATUS(ncore_window_peer_device_pointer(win, 0, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  /* Multimem is never faked: NULL on the host backend. */
  CHECK_OK(ncore_window_lsa_multimem_device_pointer(win, 0, &p));
  if (harness_is_host()) CHECK(p == NULL);
  CHECK_STATUS(ncore_window_lsa_multimem_device_pointer(win, size + 1, &p), NCORE_ERR_INVALID_ARGUMENT);

  /* Each rank writes its rank into byte 'rank' of every peer's part through
   * the peer pointer; after a barrier every part holds 0..n-1. */
  if (harness_is_host()) {
    for (int peer = 0; peer < nranks; peer++) {
      CHECK_OK(ncore_window_peer_device_pointer(win, peer, (size_t)rank, &p));
      CHECK(p != NULL);
      *(volatile char *)p = (char)(rank + 1);
    }
    mr_barrier(comm);
    for (int r = 0; r < nranks; r++) CHECK_EQ(mem[r], r + 1);
  }
  mr_barrier(comm);
  CHECK_OK(ncore_window_close(win));
  tb_free(mem);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(window_over_malloc_memory_has_null_peer_pointers) {
  MR_COMM(comm);
  REQUIRE_WINDOWS(comm);
  const size_t size = 4096;
  char *mem = aligned_alloc(4096, size);
  CHECK(mem);
  ncore_window_t win;
  if (mr_plain_window_refused(comm, mem, size)) return; /* NCCL: device memory only */
  CHECK_OK(ncore_register_window(&win, comm, mem, size, NCORE_WINDOW_DEFAULT));
  for (int peer = 0; peer < nranks; peer++) {
    void *p = (void *)1;
    CHECK_OK(ncore_window_peer_device_pointer(win, peer, 0, &p));
    if (peer == rank) CHECK(p == NULL || p == mem);
    else CHECK(p == NULL);
  }
  void *p = (void *)1;
  CHECK_OK(ncore_window_lsa_multimem_device_pointer(win, 0, &p));
  CHECK(p == NULL);
  CHECK_OK(ncore_window_close(win));
  mr_barrier(comm);
  free(mem);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(window_closed_with_comm) {
  MR_COMM(comm);
  REQUIRE_WINDOWS(comm);
  char *mem = tb_alloc(4096);
  CHECK(mem);
  ncore_window_t win;
  CHECK_OK(ncore_register_window(&win, comm, mem, 4096, 0));
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_EQ(ncore_window_is_valid(win), 0);
  size_t size;
  CHECK_STATUS(ncore_window_size(win, &size), NCORE_ERR_CLOSED);
  ncore_window_t again = (ncore_window_t)1;
  CHECK_STATUS(ncore_register_window(&again, comm, mem, 4096, 0), NCORE_ERR_CLOSED);
  CHECK_EQ(again, NCORE_NULL_HANDLE); /* out is cleared on failure */
  CHECK_OK(ncore_window_close(win)); /* closing an orphaned handle is a no-op */
  tb_free(mem);
}

HARNESS_MAIN
