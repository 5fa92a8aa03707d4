/* Multi-rank tests: symmetric memory (ncore/symmetric.h).
 * Usage: test_symmetric N. */
#include <stdlib.h>

#include "multirank.h"
#include "testbuf.h"

MR_TEST(symmetric_alloc_is_zeroed_and_sized) {
  MR_COMM(comm);
  ncore_symmetric_t sym = NCORE_NULL_HANDLE;
  const size_t size = 10000;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, size));
  CHECK_EQ(ncore_symmetric_is_valid(sym), 1);
  size_t got = 0;
  CHECK_OK(ncore_symmetric_size(sym, &got));
  CHECK_EQ(got, size);
  void *local = NULL;
  CHECK_OK(ncore_symmetric_local_pointer(sym, &local));
  CHECK(local != NULL);
  unsigned char *host = malloc(size);
  tb_get(host, local, size);
  for (size_t i = 0; i < size; i++)
    if (host[i] != 0) {
      harness_fail(__FILE__, __LINE__, "byte %zu of a fresh allocation is %u", i, host[i]);
      return;
    }
  free(host);
  CHECK_STATUS(ncore_symmetric_size(sym, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_symmetric_local_pointer(sym, NULL), NCORE_ERR_INVALID_ARGUMENT);
  mr_barrier(comm);
  CHECK_OK(ncore_symmetric_free(sym));
  CHECK_OK(ncore_symmetric_free(sym));
  CHECK_EQ(ncore_symmetric_is_valid(sym), 0);
  CHECK_STATUS(ncore_symmetric_size(sym, &got), NCORE_ERR_CLOSED);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(symmetric_peer_pointers) {
  MR_COMM(comm);
  ncore_symmetric_t sym;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 4096));
  void *local, *p;
  CHECK_OK(ncore_symmetric_local_pointer(sym, &local));
  CHECK_OK(ncore_symmetric_peer_pointer(sym, rank, &p));
  CHECK(p != NULL);
  if (harness_is_host()) CHECK_PTR_EQ(p, local);
  /* A PE outside the LSA team has no load/store address: NULL, never a
   * fake one. */
  for (int pe = 0; pe < nranks; pe++) {
    CHECK_OK(ncore_symmetric_peer_pointer(sym, pe, &p));
    CHECK_EQ(p != NULL, mr_lsa_reachable(comm, pe));
  }
  CHECK_STATUS(ncore_symmetric_peer_pointer(sym, nranks, &p), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("pe");
  CHECK_STATUS(ncore_symmetric_peer_pointer(sym, -1, &p), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_symmetric_peer_pointer(sym, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  if (harness_is_host()) {
    /* Every PE is load/store reachable: write our rank into byte `rank` of
     * every PE's part through its peer pointer. */
    for (int pe = 0; pe < nranks; pe++) {
      CHECK_OK(ncore_symmetric_peer_pointer(sym, pe, &p));
      CHECK(p != NULL);
      ((volatile char *)p)[rank] = (char)(rank + 1);
    }
    mr_barrier(comm);
    for (int r = 0; r < nranks; r++) CHECK_EQ(((char *)local)[r], r + 1);
  }
  mr_barrier(comm);
  CHECK_OK(ncore_symmetric_free(sym));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(symmetric_put_and_get_to_each_pe) {
  MR_COMM(comm);
  const size_t slot = 64;
  ncore_symmetric_t sym;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, slot * (size_t)nranks));
  unsigned char *src = tb_alloc(slot), *dst = tb_alloc(slot);
  CHECK(src && dst);
  unsigned char host[64];
  for (size_t i = 0; i < slot; i++) host[i] = (unsigned char)(rank * 16 + i);
  tb_put(src, host, slot);
  /* Put our bytes into slot `rank` of every PE (those outside this rank's
   * LSA team refuse: they are not load/store reachable). */
  for (int pe = 0; pe < nranks; pe++)
    CHECK_LSA_CALL(comm, pe, ncore_symmetric_put(sym, (size_t)rank * slot, src, slot, pe, NULL));
  CHECK_OK(ncore_stream_synchronize(NULL, harness_backend()));
  mr_barrier(comm);
  /* Our own part holds the bytes of every rank that could reach it; a get
   * from each reachable PE returns that PE's copy of slot `pe`. */
  void *local;
  CHECK_OK(ncore_symmetric_local_pointer(sym, &local));
  for (int r = 0; r < nranks; r++) {
    if (!mr_lsa_reachable(comm, r)) continue; /* r could not put here */
    tb_get(host, (unsigned char *)local + (size_t)r * slot, slot);
    for (size_t i = 0; i < slot; i++) CHECK_EQ(host[i], (unsigned char)(r * 16 + i));
  }
  for (int pe = 0; pe < nranks; pe++) {
    CHECK_LSA_CALL(comm, pe, ncore_symmetric_get(dst, sym, (size_t)pe * slot, slot, pe, NULL));
    if (!mr_lsa_reachable(comm, pe)) continue;
    CHECK_OK(ncore_stream_synchronize(NULL, harness_backend()));
    tb_get(host, dst, slot);
    for (size_t i = 0; i < slot; i++) CHECK_EQ(host[i], (unsigned char)(pe * 16 + i));
  }
  mr_barrier(comm);
  tb_free(src);
  tb_free(dst);
  CHECK_OK(ncore_symmetric_free(sym));
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(symmetric_bounds_and_errors) {
  MR_COMM(comm);
  ncore_symmetric_t sym;
  CHECK_STATUS(ncore_symmetric_alloc(NULL, comm, 64), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_symmetric_alloc: out");
  CHECK_STATUS(ncore_symmetric_alloc(&sym, comm, 0), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("size");
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 128));
  char *buf = tb_alloc(256);
  CHECK(buf);
  /* This rank's own part: always reachable, whatever the LSA team. */
  CHECK_STATUS(ncore_symmetric_put(sym, 100, buf, 29, rank, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("128");
  CHECK_OK(ncore_symmetric_put(sym, 100, buf, 28, rank, NULL)); /* exactly fits */
  CHECK_STATUS(ncore_symmetric_get(buf, sym, 129, 0, rank, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_symmetric_get(buf, sym, 0, 129, rank, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_symmetric_put(sym, 0, buf, 8, nranks, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("pe");
  CHECK_STATUS(ncore_symmetric_get(buf, sym, 0, 8, -1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_symmetric_put(sym, 0, NULL, 8, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("src");
  CHECK_STATUS(ncore_symmetric_get(NULL, sym, 0, 8, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("dst");
  CHECK_STATUS(ncore_symmetric_put((ncore_symmetric_t)comm, 0, buf, 8, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_symmetric_free((ncore_symmetric_t)comm), NCORE_ERR_INVALID_ARGUMENT);
  mr_barrier(comm);
  CHECK_OK(ncore_symmetric_free(sym));
  CHECK_STATUS(ncore_symmetric_put(sym, 0, buf, 8, 0, NULL), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_symmetric_get(buf, sym, 0, 8, 0, NULL), NCORE_ERR_CLOSED);
  void *p;
  CHECK_STATUS(ncore_symmetric_peer_pointer(sym, 0, &p), NCORE_ERR_CLOSED);
  /* Sizes that differ between ranks are rejected (collectively). */
  CHECK_STATUS(ncore_symmetric_alloc(&sym, comm, 64 + (size_t)rank * 64), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("size");
  tb_free(buf);
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_symmetric_alloc(&sym, comm, 64), NCORE_ERR_CLOSED);
}

MR_TEST(symmetric_freed_with_comm) {
  MR_COMM(comm);
  ncore_symmetric_t sym;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 64));
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_EQ(ncore_symmetric_is_valid(sym), 0);
  size_t size;
  CHECK_STATUS(ncore_symmetric_size(sym, &size), NCORE_ERR_CLOSED);
  CHECK_OK(ncore_symmetric_free(sym));
}

HARNESS_MAIN
