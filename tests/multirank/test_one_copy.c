/* Multi-rank tests of the host backend's one-copy send/recv
 * (core/host/p2p_direct.c): what a receiver may read of a sender's memory,
 * and for how long (the trust model: docs/reliability.md).
 *  - a rank of another process maps only the pages of a buffer its sender
 *    registered, and nothing of an unregistered one;
 *  - freed memory leaves every peer at once;
 *  - a sender of the same process that gives up returns only once its
 *    receiver has stopped reading its buffer.
 * Host only. Usage: test_one_copy N. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "multirank.h"
#include "testbuf.h"

#define REQUIRE_HOST() \
  REQUIRE_HOST_BACKEND("the one-copy path and its memfds are the host backend's")

/* The inode of the memfd mapped at ptr in this process (from
 * /proc/self/maps), 0 if ptr is not in a file mapping. */
static uint64_t inode_at(const void *ptr) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return 0;
  char line[512];
  uint64_t ino = 0;
  uintptr_t p = (uintptr_t)ptr;
  while (fgets(line, sizeof line, f)) {
    unsigned long start, end, offset, inode;
    char perms[8], dev[16];
    if (sscanf(line, "%lx-%lx %7s %lx %15s %lu", &start, &end, perms, &offset, dev,
               &inode) == 6 &&
        p >= start && p < end) {
      ino = inode;
      break;
    }
  }
  fclose(f);
  return ino;
}

/* Bytes of this process's address space mapped from the file with inode
 * ino (what it can read of it). */
static uint64_t bytes_mapped_of(uint64_t ino) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return UINT64_MAX;
  char line[512];
  uint64_t total = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long start, end, offset, inode;
    char perms[8], dev[16];
    if (sscanf(line, "%lx-%lx %7s %lx %15s %lu", &start, &end, perms, &offset, dev,
               &inode) == 6 &&
        inode == ino && strstr(line, "memfd:"))
      total += end - start;
  }
  fclose(f);
  return total;
}

/* This process's resident shared-memory pages (RssShmem), KiB. */
static long rss_shmem_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "RssShmem: %ld kB", &kib) == 1) break;
  fclose(f);
  return kib;
}

enum { MIB = 1 << 20 };

/* Rank 0 sends `bytes` from offset 0 of an allocation of `total` bytes to
 * rank 1 (registering `registered` bytes from its start first, when not
 * 0); rank 1 receives them into `into` and gets the allocation's inode.
 * Ranks above 1 take no part. */
static void send_from_allocation(ncore_comm_t comm, int rank, char *alloc, size_t total,
                                 size_t bytes, size_t registered, char *into,
                                 uint64_t *ino) {
  ncore_registered_buffer_t reg = NCORE_NULL_HANDLE;
  if (rank == 0) {
    *ino = inode_at(alloc);
    CHECK(*ino != 0);
    if (registered) CHECK_OK(ncore_register_buffer(&reg, comm, alloc, registered));
    CHECK_OK(ncore_send(comm, ino, 1, NCORE_UINT64, 1, NULL));
    CHECK_OK(ncore_send(comm, alloc, bytes, NCORE_UINT8, 1, NULL));
  } else if (rank == 1) {
    CHECK_OK(ncore_recv(comm, ino, 1, NCORE_UINT64, 0, NULL));
    CHECK_OK(ncore_recv(comm, into, bytes, NCORE_UINT8, 0, NULL));
    for (size_t i = 0; i < bytes; i += 4096) CHECK_EQ(into[i], (char)(i / 4096 + 1));
  }
  (void)total;
  if (reg) CHECK_OK(ncore_registered_buffer_close(reg));
}

static void fill_pages(char *p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 4096) p[i] = (char)(i / 4096 + 1);
}

/* A receiver of another process sees what a send exposes and no more: of
 * a registered buffer, its pages (the owner's consent, as ncclCommRegister
 * gives NCCL's zero-copy transfers); of an unregistered one, nothing (the
 * message comes through the ring). e340640 mapped the whole 16 MiB
 * allocation for a 1 MiB message and kept it, showing the receiver a
 * secret 8 MiB in and every later write. */
MR_TEST(receiver_maps_only_what_a_send_exposes) {
  REQUIRE_HOST();
  MR_COMM(comm);
  const size_t total = 16 * MIB, bytes = 1 * MIB;
  char *alloc = NULL, *into = malloc(bytes);
  CHECK_OK(ncore_mem_alloc((void **)&alloc, total, NCORE_BACKEND_HOST));
  CHECK(into);
  if (rank == 0) {
    fill_pages(alloc, total);
    strcpy(alloc + 8 * MIB, "a secret that was never sent");
  }
  uint64_t ino = 0;
  /* Registered: the span mapped is the registered 2 MiB at most. */
  send_from_allocation(comm, rank, alloc, total, bytes, 2 * MIB, into, &ino);
  if (rank == 1) {
    uint64_t mapped = bytes_mapped_of(ino);
    if (mapped > 2 * MIB)
      harness_fail(__FILE__, __LINE__,
                   "the receiver maps %llu bytes of the sender's allocation; "
                   "the sender registered 2 MiB", (unsigned long long)mapped);
  }
  mr_barrier(comm);
  /* Unregistered: a second allocation, of which the receiver maps nothing. */
  char *plain = NULL;
  CHECK_OK(ncore_mem_alloc((void **)&plain, total, NCORE_BACKEND_HOST));
  if (rank == 0) fill_pages(plain, total);
  send_from_allocation(comm, rank, plain, total, bytes, 0, into, &ino);
  if (rank == 1) CHECK_EQ(bytes_mapped_of(ino), 0);
  mr_barrier(comm);
  CHECK_OK(ncore_mem_free(plain, NCORE_BACKEND_HOST));
  CHECK_OK(ncore_mem_free(alloc, NCORE_BACKEND_HOST));
  free(into);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Waits up to 2 s for this process's RssShmem to fall to at most kib. */
static long rss_shmem_falls_to(long kib) {
  long now = rss_shmem_kib();
  for (int i = 0; i < 200 && now > kib; i++) {
    usleep(10000);
    now = rss_shmem_kib();
  }
  return now;
}

/* Freed means freed within a bounded time, in every process: the audit's
 * 4 x (alloc 256 MiB, send, free) left the receiver holding 1 GiB of
 * shared memory until it destroyed its communicator.
 * Here 4 x 32 MiB, registered (so the receiver maps the pages) and then
 * unregistered (the ring). The receiver's resident shared memory must come
 * back within 2 s of the sender's ncore_mem_free. */
MR_TEST(freed_memory_leaves_the_receiver) {
  REQUIRE_HOST();
  MR_COMM(comm);
  const size_t bytes = 32 * MIB;
  char *into = rank == 1 ? malloc(bytes) : NULL;
  CHECK(rank != 1 || into);
  long before = rank == 1 ? rss_shmem_kib() : 0;
  for (int round = 0; round < 8 && !harness_failed(); round++) {
    char *alloc = NULL;
    CHECK_OK(ncore_mem_alloc((void **)&alloc, bytes, NCORE_BACKEND_HOST));
    if (rank == 0) fill_pages(alloc, bytes);
    uint64_t ino = 0;
    send_from_allocation(comm, rank, alloc, bytes, bytes, round < 4 ? bytes : 0, into,
                         &ino);
    mr_barrier(comm);
    CHECK_OK(ncore_mem_free(alloc, NCORE_BACKEND_HOST));
    mr_barrier(comm);
    if (rank == 1) {
      long after = rss_shmem_falls_to(before + 8 * 1024);
      if (after > before + 8 * 1024)
        harness_fail(__FILE__, __LINE__,
                     "round %d: the receiver still holds %ld KiB of shared memory "
                     "more than before, 2 s after the sender freed it", round,
                     after - before);
    }
  }
  free(into);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* An allocation's memfd is private to this user (mode 0600, as the
 * segments are; memfds are born 0777): the kernel's /proc checks are all
 * that kept another user's process out. */
MR_TEST(allocations_are_private_to_their_user) {
  REQUIRE_HOST();
  (void)rank;
  (void)nranks;
  (void)id;
  char *alloc = NULL;
  CHECK_OK(ncore_mem_alloc((void **)&alloc, 4096, NCORE_BACKEND_HOST));
  uint64_t ino = inode_at(alloc);
  CHECK(ino != 0);
  int found = 0;
  for (int fd = 0; fd < 1024 && !found; fd++) {
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != ino) continue;
    found = 1;
    if ((st.st_mode & 077) != 0 || st.st_uid != geteuid())
      harness_fail(__FILE__, __LINE__, "the allocation's memfd has mode %o, owner %u",
                   (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
  }
  CHECK(found);
  CHECK_OK(ncore_mem_free(alloc, NCORE_BACKEND_HOST));
}

/* ---- ranks of one process (ncore_comm_init_all) ---- */

typedef struct late_receiver {
  ncore_comm_t comm;
  char *buf;
  size_t bytes;
  unsigned delay_ms;
  ncore_status_t status;
} late_receiver_t;

static void *receive_late(void *arg) {
  late_receiver_t *r = arg;
  usleep(r->delay_ms * 1000u);
  r->status = ncore_recv(r->comm, r->buf, r->bytes, NCORE_UINT8, 0, NULL);
  return NULL;
}

/* The audit's use-after-free: two ranks of one process,
 * a 512 MiB send with a 400 ms timeout, the receive posted at 370 ms on
 * another thread. The send times out while the receiver copies straight
 * from the send buffer; the caller then unmaps the buffer. e340640's send
 * returned at once, and the receiver died copying from unmapped memory
 * (SIGSEGV in host_direct_receive). The send must return only once nobody
 * reads the buffer: the receiver then reports the message lost, or, had
 * its copy ended first, got it whole. */
MR_TEST(a_sender_giving_up_waits_for_its_receiver_to_stop_reading) {
  REQUIRE_HOST();
  if (rank != 0) return;
  (void)id;
  (void)nranks;
  enum { TIMEOUT_MS = 400 };
  const size_t bytes = 512u * MIB;
  ncore_comm_config_t config = mr_config();
  config.timeout_ms = TIMEOUT_MS;
  ncore_comm_t comms[2];
  CHECK_OK(ncore_comm_init_all(comms, 2, NULL, &config));
  if (harness_failed()) return;
  char *src = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *dst = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(src != MAP_FAILED && dst != MAP_FAILED);
  fill_pages(src, bytes);
  late_receiver_t r = {comms[1], dst, bytes, TIMEOUT_MS - 30, NCORE_OK};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, receive_late, &r) == 0);
  ncore_status_t sent = ncore_send(comms[0], src, bytes, NCORE_UINT8, 1, NULL);
  /* The caller frees its buffer as soon as the send returns. */
  munmap(src, bytes);
  pthread_join(t, NULL);
  printf("# send: %s, recv: %s\n", ncore_status_string(sent),
         ncore_status_string(r.status));
  if (sent == NCORE_OK) {
    CHECK_EQ(r.status, NCORE_OK);
  } else {
    CHECK_EQ(sent, NCORE_ERR_TIMEOUT);
    if (r.status != NCORE_ERR_REMOTE && r.status != NCORE_ERR_TIMEOUT)
      harness_fail(__FILE__, __LINE__, "the receiver of a withdrawn send got %s",
                   ncore_status_string(r.status));
  }
  if (r.status == NCORE_OK)
    for (size_t i = 0; i < bytes; i += 4096) CHECK_EQ(dst[i], (char)(i / 4096 + 1));
  munmap(dst, bytes);
  CHECK_OK(ncore_comm_destroy(comms[0]));
  CHECK_OK(ncore_comm_destroy(comms[1]));
}

HARNESS_MAIN
