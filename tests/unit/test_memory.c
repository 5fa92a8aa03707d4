/* Unit tests: memory, streams, devices and backend resolution
 * (ncore/memory.h). */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "testbuf.h"
#include "unit_comm.h"

TEST(mem_alloc_and_free) {
  ncore_backend_t b = harness_backend();
  void *p = NULL;
  CHECK_OK(ncore_mem_alloc(&p, 1 << 20, b));
  CHECK(p != NULL);
  CHECK_OK(ncore_mem_free(p, b));
  CHECK_STATUS(ncore_mem_free(p, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_mem_free: ptr");
  CHECK_OK(ncore_mem_free(NULL, b));
  CHECK_STATUS(ncore_mem_alloc(&p, 0, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("size");
  CHECK_STATUS(ncore_mem_alloc(NULL, 16, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("out");
  CHECK_STATUS(ncore_mem_alloc(&p, 16, (ncore_backend_t)9), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("backend");
}

TEST(mem_free_rejects_foreign_pointer) {
  char local[16];
  CHECK_STATUS(ncore_mem_free(local, harness_backend()), NCORE_ERR_INVALID_ARGUMENT);
  void *heap = malloc(64);
  CHECK_STATUS(ncore_mem_free(heap, harness_backend()), NCORE_ERR_INVALID_ARGUMENT);
  free(heap);
}

TEST(memcpy_and_memset_roundtrip) {
  ncore_backend_t b = harness_backend();
  const size_t n = 4096;
  unsigned char *dev = NULL;
  CHECK_OK(ncore_mem_alloc((void **)&dev, n, b));
  unsigned char host[4096], back[4096];
  for (size_t i = 0; i < n; i++) host[i] = (unsigned char)(i * 7);
  CHECK_OK(ncore_memcpy(dev, host, n, NCORE_MEMCPY_HOST_TO_DEVICE, NULL, b));
  CHECK_OK(ncore_memset(dev + 100, 0xAB, 50, NULL, b));
  CHECK_OK(ncore_stream_synchronize(NULL, b));
  CHECK_OK(ncore_memcpy(back, dev, n, NCORE_MEMCPY_DEFAULT, NULL, b));
  CHECK_OK(ncore_stream_synchronize(NULL, b));
  for (size_t i = 0; i < n; i++) {
    unsigned char want = (i >= 100 && i < 150) ? 0xAB : (unsigned char)(i * 7);
    if (back[i] != want) {
      harness_fail(__FILE__, __LINE__, "byte %zu: got %u, expected %u", i, back[i], want);
      return;
    }
  }
  CHECK_OK(ncore_memcpy(NULL, NULL, 0, NCORE_MEMCPY_DEFAULT, NULL, b));
  CHECK_STATUS(ncore_memcpy(NULL, host, 4, NCORE_MEMCPY_DEFAULT, NULL, b),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("dst");
  CHECK_STATUS(ncore_memcpy(back, NULL, 4, NCORE_MEMCPY_DEFAULT, NULL, b),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("src");
  CHECK_STATUS(ncore_memcpy(back, host, 4, (ncore_memcpy_kind_t)17, NULL, b),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("kind");
  CHECK_STATUS(ncore_memset(NULL, 0, 4, NULL, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_mem_free(dev, b));
}

TEST(streams_create_use_destroy) {
  ncore_backend_t b = harness_backend();
  ncore_stream_t s = NULL;
  CHECK_OK(ncore_stream_create(&s, b));
  CHECK(s != NULL);
  unsigned char *dev = NULL;
  CHECK_OK(ncore_mem_alloc((void **)&dev, 64, b));
  CHECK_OK(ncore_memset(dev, 3, 64, s, b));
  CHECK_OK(ncore_stream_synchronize(s, b));
  unsigned char host[64];
  CHECK_OK(ncore_memcpy(host, dev, 64, NCORE_MEMCPY_DEVICE_TO_HOST, s, b));
  CHECK_OK(ncore_stream_synchronize(s, b));
  CHECK_EQ(host[63], 3);
  CHECK_OK(ncore_stream_destroy(s, b));
  CHECK_OK(ncore_stream_destroy(NULL, b));
  CHECK_STATUS(ncore_stream_create(NULL, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_mem_free(dev, b));
}

TEST(host_stream_destroy_twice_and_bogus_stream_rejected) {
  /* Names the host backend explicitly: runs whatever AUTO resolves to. */
  ncore_stream_t s = NULL;
  CHECK_OK(ncore_stream_create(&s, NCORE_BACKEND_HOST));
  CHECK_OK(ncore_stream_destroy(s, NCORE_BACKEND_HOST));
  CHECK_STATUS(ncore_stream_destroy(s, NCORE_BACKEND_HOST), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("stream");
  ncore_stream_t bogus = (ncore_stream_t)(uintptr_t)0x1234;
  CHECK_STATUS(ncore_stream_synchronize(bogus, NCORE_BACKEND_HOST), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("stream");
  char buf[8];
  CHECK_STATUS(ncore_memset(buf, 0, 8, bogus, NCORE_BACKEND_HOST), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("stream");
  CHECK_STATUS(ncore_stream_synchronize(s, NCORE_BACKEND_HOST), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(host_devices) {
  int n = 0;
  CHECK_OK(ncore_device_count(NCORE_BACKEND_HOST, &n));
  CHECK_EQ(n, 1);
  int d = 5;
  CHECK_OK(ncore_device_get(NCORE_BACKEND_HOST, &d));
  CHECK_EQ(d, -1);
  CHECK_OK(ncore_device_set(NCORE_BACKEND_HOST, -1));
  CHECK_OK(ncore_device_set(NCORE_BACKEND_HOST, 0));
  CHECK_STATUS(ncore_device_set(NCORE_BACKEND_HOST, 1), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("device");
  CHECK_STATUS(ncore_device_count(NCORE_BACKEND_HOST, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_device_get(NCORE_BACKEND_HOST, NULL), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(backend_resolve_concrete_and_auto) {
  ncore_backend_t out = (ncore_backend_t)-1;
  CHECK_OK(ncore_backend_resolve(NCORE_BACKEND_HOST, &out));
  CHECK_EQ(out, NCORE_BACKEND_HOST);
  CHECK_OK(ncore_backend_resolve(NCORE_BACKEND_AUTO, &out));
  CHECK(out == NCORE_BACKEND_HOST || out == NCORE_BACKEND_NCCL);
  CHECK_STATUS(ncore_backend_resolve((ncore_backend_t)3, &out), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("backend");
  CHECK_STATUS(ncore_backend_resolve(NCORE_BACKEND_AUTO, NULL), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(nccl_unavailable_names_what_is_missing) {
  ncore_backend_t out;
  ncore_status_t st = ncore_backend_resolve(NCORE_BACKEND_NCCL, &out);
  if (st == NCORE_OK) SKIP("the NCCL backend is available here");
  CHECK_EQ(st, NCORE_ERR_UNAVAILABLE);
  const char *m = ncore_last_error_message();
  if (!strstr(m, "libnccl") && !strstr(m, "libcuda") && !strstr(m, "device")) {
    harness_fail(__FILE__, __LINE__, "message \"%s\" names neither libnccl, libcuda nor a device", m);
    return;
  }
  ncore_unique_id_t id;
  CHECK_STATUS(ncore_get_unique_id(&id, NCORE_BACKEND_NCCL), NCORE_ERR_UNAVAILABLE);
  void *p;
  CHECK_STATUS(ncore_mem_alloc(&p, 16, NCORE_BACKEND_NCCL), NCORE_ERR_UNAVAILABLE);
}

/* Runs body in a child with NCORE_BACKEND=value (so no cached resolution
 * in this process interferes); returns the child's exit status. */
static int resolve_in_child(const char *value, ncore_status_t expected) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("NCORE_BACKEND", value, 1);
    ncore_backend_t out;
    ncore_status_t st = ncore_backend_resolve(NCORE_BACKEND_AUTO, &out);
    if (st != expected) {
      printf("  NCORE_BACKEND=%s: expected %s, got %s (\"%s\")\n", value,
             ncore_status_string(expected), ncore_status_string(st),
             ncore_last_error_message());
      _exit(1);
    }
    if (st != NCORE_OK && !strstr(ncore_last_error_message(), "NCORE_BACKEND")) {
      printf("  message \"%s\" does not name NCORE_BACKEND\n", ncore_last_error_message());
      _exit(2);
    }
    if (st == NCORE_OK && strcmp(value, "host") == 0 && out != NCORE_BACKEND_HOST) _exit(3);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST(backend_env_bogus_rejected) {
  CHECK_EQ(resolve_in_child("bogus", NCORE_ERR_INVALID_ARGUMENT), 0);
  CHECK_EQ(resolve_in_child("host", NCORE_OK), 0);
}

/* Sizes no allocation can have are rejected, never rounded into a small
 * mapping (ncore_mem_alloc(SIZE_MAX) returned a 4 KiB block). */
TEST(mem_alloc_rejects_sizes_beyond_any_object) {
  ncore_backend_t b = harness_backend();
  void *p = (void *)1;
  CHECK_STATUS(ncore_mem_alloc(&p, SIZE_MAX, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_mem_alloc: size: ");
  CHECK(p == NULL);
  CHECK_STATUS(ncore_mem_alloc(&p, (size_t)PTRDIFF_MAX + 1, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_mem_alloc(&p, SIZE_MAX - 4095, b), NCORE_ERR_INVALID_ARGUMENT);
}

/* Copies over ranges that wrap the address space are refused. */
TEST(memcpy_rejects_ranges_past_the_address_space) {
  ncore_backend_t b = harness_backend();
  char local[8];
  CHECK_STATUS(ncore_memcpy(local, local, SIZE_MAX, NCORE_MEMCPY_DEFAULT, NULL, b),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("run past the end of the address space");
  CHECK_STATUS(ncore_memset(local, 0, SIZE_MAX - 2, NULL, b), NCORE_ERR_INVALID_ARGUMENT);
}

/* The same bound at every entry point that takes a size: symmetric memory,
 * windows and registered buffers, on both backends (SIZE_MAX
 * symmetric memory was reported as allocated, and a window of SIZE_MAX - 4
 * bytes over 4 KiB registered). */
TEST(resources_reject_sizes_beyond_any_object) {
  UNIT_COMM(comm);
  ncore_symmetric_t sym = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_symmetric_alloc(&sym, comm, SIZE_MAX), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_symmetric_alloc: size: ");
  CHECK_EQ(sym, NCORE_NULL_HANDLE);
  char *mem = tb_alloc(4096);
  CHECK(mem);
  ncore_window_t win = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_register_window(&win, comm, mem, SIZE_MAX - 4, 0),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_register_window: size: ");
  CHECK_STATUS(ncore_register_window(&win, comm, mem + 64, SIZE_MAX / 2, 0),
               NCORE_ERR_INVALID_ARGUMENT);
  ncore_registered_buffer_t rb = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_register_buffer(&rb, comm, mem, SIZE_MAX), NCORE_ERR_INVALID_ARGUMENT);
  /* The communicator is unharmed. */
  CHECK_OK(ncore_register_window(&win, comm, mem, 4096, 0));
  CHECK_OK(ncore_window_close(win));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(mem);
}

/* Host: a window part must lie inside its ncore_mem_alloc allocation, or in
 * memory of this process: a peer's put must never land past it. */
TEST(host_window_beyond_its_memory_rejected) {
  REQUIRE_HOST_BACKEND("checks how the host backend maps window parts; NCCL "
                       "windows are ncclMemAlloc memory that NCCL checks");
  UNIT_COMM(comm);
  char *mem = NULL;
  CHECK_OK(ncore_mem_alloc((void **)&mem, 4096, NCORE_BACKEND_HOST));
  ncore_window_t win = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_register_window(&win, comm, mem, 1 << 20, 0),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("past the end of its ncore_mem_alloc allocation");
  CHECK_STATUS(ncore_register_window(&win, comm, mem + 4000, 200, 0),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_register_window(&win, comm, mem + 4000, 96, 0));
  CHECK_OK(ncore_window_close(win));
  /* Unmapped memory (a page just released) is refused too. */
  void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED);
  munmap(page, 4096);
  CHECK_STATUS(ncore_register_window(&win, comm, page, 4096, 0), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("not all memory of this process");
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_HOST));
}

/* Host: a rank count whose segment would not fit the address space is an
 * argument error at once, not a wait for rank 0 (no overflow
 * check in the segment size). */
TEST(host_rank_count_beyond_the_address_space_rejected) {
  /* Names the host backend explicitly: runs whatever AUTO resolves to. */
  ncore_unique_id_t id;
  CHECK_OK(ncore_get_unique_id(&id, NCORE_BACKEND_HOST));
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.backend = NCORE_BACKEND_HOST;
  config.timeout_ms = 20000;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  int counts[] = {INT_MAX, 1 << 20, 100000};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    CHECK_STATUS(ncore_comm_init_rank(&comm, counts[i], &id, 1, &config),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("nranks: ");
    CHECK_STATUS(ncore_comm_init_rank(&comm, counts[i], &id, 0, &config),
                 NCORE_ERR_INVALID_ARGUMENT);
  }
}

/* A symmetric allocation's local part is not the caller's to free: only
 * ncore_symmetric_free releases it, so later puts stay valid. */
TEST(mem_free_refuses_a_symmetric_part) {
  UNIT_COMM(comm);
  ncore_backend_t b = harness_backend();
  ncore_symmetric_t sym;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 4096));
  void *local = NULL;
  CHECK_OK(ncore_symmetric_local_pointer(sym, &local));
  CHECK_STATUS(ncore_mem_free(local, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_symmetric_free");
  char *src = tb_alloc(64);
  CHECK(src);
  CHECK_OK(ncore_symmetric_put(sym, 0, src, 64, 0, NULL));
  CHECK_OK(ncore_stream_synchronize(NULL, b));
  CHECK_OK(ncore_symmetric_free(sym));
  /* Released with its allocation: now it is nobody's pointer. */
  CHECK_STATUS(ncore_mem_free(local, b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(src);
}

/* Empty transfers never hand a NULL pointer to memcpy (UBSan). */
TEST(empty_symmetric_transfers_accept_null) {
  UNIT_COMM(comm);
  ncore_symmetric_t sym;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 64));
  CHECK_OK(ncore_symmetric_put(sym, 64, NULL, 0, 0, NULL));
  CHECK_OK(ncore_symmetric_get(NULL, sym, 0, 0, 0, NULL));
  CHECK_EQ(ncore_last_error_status(), NCORE_OK);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* The NCCL backend's memory calls answer UNAVAILABLE where it is missing
 * (documented in ncore/memory.h). */
TEST(mem_calls_on_a_missing_backend_are_unavailable) {
  ncore_backend_t resolved;
  if (ncore_backend_resolve(NCORE_BACKEND_NCCL, &resolved) == NCORE_OK)
    SKIP("the NCCL backend is available here");
  CHECK_STATUS(ncore_mem_free((void *)16, NCORE_BACKEND_NCCL), NCORE_ERR_UNAVAILABLE);
  void *p;
  CHECK_STATUS(ncore_mem_alloc(&p, 64, NCORE_BACKEND_NCCL), NCORE_ERR_UNAVAILABLE);
}

HARNESS_MAIN
