/* tests/gpu-smoke — a two-rank smoke test of ncore's NCCL backend through the
 * public API only: init, allreduce, send/recv, windows and their device
 * pointers, put_signal + wait_signal with a data check, signal alone, and
 * teardown. Ranks are fork()ed before any CUDA or NCCL call (CUDA does not
 * survive fork); rank 0 makes the unique id and hands it to rank 1 through a
 * pipe. Each rank prints "rank R: <step>: ok" or "FAIL ..."; the exit status
 * is 0 only if every step of both ranks passed.
 * Build and run: tests/gpu-smoke/run.sh */
#include <ncore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define B NCORE_BACKEND_NCCL
static int my_rank;
static int failures;

/* Reports a step; on a non-OK status prints the status and message. */
static int step(const char *what, ncore_status_t s) {
  if (s == NCORE_OK) {
    printf("rank %d: %s: ok\n", my_rank, what);
  } else {
    printf("rank %d: %s: FAIL %s: %s\n", my_rank, what, ncore_status_string(s),
           ncore_last_error_message());
    failures++;
  }
  fflush(stdout);
  return s == NCORE_OK;
}

/* Reports a data check. */
static void check(const char *what, int ok) {
  printf("rank %d: %s: %s\n", my_rank, what, ok ? "ok" : "FAIL (data)");
  if (!ok) failures++;
  fflush(stdout);
}

#define N 1024 /* floats per buffer */
#define BIG (4u << 20) /* bytes of the large put (copy-engine path) */

static int run_rank(int rank, const ncore_unique_id_t *id) {
  my_rank = rank;
  int peer = 1 - rank;
  ncore_comm_config_t cfg;
  ncore_comm_config_init(&cfg, sizeof cfg);
  cfg.backend = B;
  cfg.device = rank; /* one GPU per rank */
  ncore_comm_t comm = 0;
  if (!step("init_rank", ncore_comm_init_rank(&comm, 2, id, rank, &cfg)))
    return 1;
  int r = -1, n = -1, dev = -2, lsa = -1;
  ncore_comm_rank(comm, &r);
  ncore_comm_size(comm, &n);
  ncore_comm_device(comm, &dev);
  ncore_comm_lsa_size(comm, &lsa);
  check("rank/size/device", r == rank && n == 2 && dev == rank);
  printf("rank %d: lsa_size=%d\n", rank, lsa);

  ncore_stream_t stream = NULL;
  step("stream_create", ncore_stream_create(&stream, B));

  /* allreduce: rank r contributes r+1 everywhere; the sum is 3. */
  float host[N];
  float *buf = NULL;
  step("mem_alloc", ncore_mem_alloc((void **)&buf, 2 * BIG, B));
  for (int i = 0; i < N; i++) host[i] = (float)(rank + 1);
  step("memcpy H2D", ncore_memcpy(buf, host, sizeof host,
                                  NCORE_MEMCPY_HOST_TO_DEVICE, stream, B));
  step("allreduce", ncore_allreduce(comm, buf, buf, N, NCORE_FLOAT32, NCORE_SUM,
                                    stream));
  step("memcpy D2H", ncore_memcpy(host, buf, sizeof host,
                                  NCORE_MEMCPY_DEVICE_TO_HOST, stream, B));
  step("synchronize", ncore_stream_synchronize(stream, B));
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= host[i] == 3.0f;
  check("allreduce data", ok);

  /* send/recv inside a group: each sends i + 1000*rank. */
  float *rbuf = buf + N;
  for (int i = 0; i < N; i++) host[i] = (float)(i + 1000 * rank);
  ncore_memcpy(buf, host, sizeof host, NCORE_MEMCPY_HOST_TO_DEVICE, stream, B);
  step("group_start", ncore_group_start());
  step("send", ncore_send(comm, buf, N, NCORE_FLOAT32, peer, stream));
  step("recv", ncore_recv(comm, rbuf, N, NCORE_FLOAT32, peer, stream));
  step("group_end", ncore_group_end());
  ncore_memcpy(host, rbuf, sizeof host, NCORE_MEMCPY_DEVICE_TO_HOST, stream, B);
  step("synchronize", ncore_stream_synchronize(stream, B));
  ok = 1;
  for (int i = 0; i < N; i++) ok &= host[i] == (float)(i + 1000 * peer);
  check("send/recv data", ok);

  /* A window over 2*BIG bytes of ncclMemAlloc memory, zeroed first. */
  unsigned char *wbuf = NULL;
  step("mem_alloc(window)", ncore_mem_alloc((void **)&wbuf, 2 * BIG, B));
  ncore_memset(wbuf, 0, 2 * BIG, stream, B);
  ncore_stream_synchronize(stream, B);
  ncore_window_t win = 0;
  if (!step("register_window",
            ncore_register_window(&win, comm, wbuf, 2 * BIG,
                                  NCORE_WINDOW_COLL_SYMMETRIC)))
    return 1;
  void *self = NULL, *other = NULL, *lsa0 = NULL, *mm = (void *)1;
  step("peer_device_pointer(self)",
       ncore_window_peer_device_pointer(win, rank, 0, &self));
  step("peer_device_pointer(peer)",
       ncore_window_peer_device_pointer(win, peer, 64, &other));
  step("lsa_device_pointer(0)", ncore_window_lsa_device_pointer(win, 0, 0, &lsa0));
  step("multimem_device_pointer",
       ncore_window_lsa_multimem_device_pointer(win, 0, &mm));
  printf("rank %d: self=%p (buffer %p) peer+64=%p lsa0=%p multimem=%p\n", rank,
         self, (void *)wbuf, other, lsa0, mm);
  /* The rank's own part through NCCL's address is the buffer's memory
   * (window.h: not necessarily the buffer's address): a pattern written
   * through it reads back from the buffer. */
  unsigned char through[64], back[64];
  for (int i = 0; i < 64; i++) through[i] = (unsigned char)(0xc3 ^ i ^ rank);
  step("write through the self pointer",
       ncore_memcpy(self, through, sizeof through, NCORE_MEMCPY_HOST_TO_DEVICE,
                    stream, B));
  step("read the buffer", ncore_memcpy(back, wbuf, sizeof back,
                                       NCORE_MEMCPY_DEVICE_TO_HOST, stream, B));
  step("sync", ncore_stream_synchronize(stream, B));
  check("self pointer reaches the buffer's memory",
        self != NULL && memcmp(through, back, sizeof back) == 0);
  check("peer pointer non-NULL", other != NULL);

  /* Small put_signal (fused kernel): rank 0 -> rank 1, 256 bytes at 128. */
  unsigned char pattern[256];
  for (int i = 0; i < 256; i++) pattern[i] = (unsigned char)(i ^ 0x5a);
  unsigned char *src = (unsigned char *)buf;
  ncore_memcpy(src, pattern, sizeof pattern, NCORE_MEMCPY_HOST_TO_DEVICE, stream,
               B);
  ncore_wait_signal_desc_t desc;
  ncore_wait_signal_desc_init(&desc, sizeof desc);
  desc.peer = peer;
  if (rank == 0) {
    step("put_signal small", ncore_put_signal(comm, src, 256, NCORE_UINT8, 1, win,
                                              128, 0, 0, 0, stream));
  } else {
    step("wait_signal small", ncore_wait_signal(comm, &desc, 1, stream));
    unsigned char got[256];
    ncore_memcpy(got, wbuf + 128, 256, NCORE_MEMCPY_DEVICE_TO_HOST, stream, B);
    step("synchronize", ncore_stream_synchronize(stream, B));
    check("put_signal small data", memcmp(got, pattern, 256) == 0);
  }

  /* Large put_signal (copy engine): rank 1 -> rank 0, BIG bytes at BIG. */
  unsigned char *big = malloc(BIG);
  for (size_t i = 0; i < BIG; i++) big[i] = (unsigned char)(i * 7 + 3);
  ncore_memcpy(src, big, BIG, NCORE_MEMCPY_HOST_TO_DEVICE, stream, B);
  if (rank == 1) {
    step("put_signal large", ncore_put_signal(comm, src, BIG, NCORE_UINT8, 0, win,
                                              BIG, 0, 0, 0, stream));
  } else {
    step("wait_signal large", ncore_wait_signal(comm, &desc, 1, stream));
    unsigned char *got = malloc(BIG);
    ncore_memcpy(got, wbuf + BIG, BIG, NCORE_MEMCPY_DEVICE_TO_HOST, stream, B);
    step("synchronize", ncore_stream_synchronize(stream, B));
    check("put_signal large data", memcmp(got, big, BIG) == 0);
    free(got);
  }
  free(big);

  /* Three bare signals each way, consumed by one wait of op_count 3. */
  for (int i = 0; i < 3; i++) step("signal", ncore_signal(comm, peer, 0, 0, 0, stream));
  desc.op_count = 3;
  step("wait_signal x3", ncore_wait_signal(comm, &desc, 1, stream));
  step("synchronize", ncore_stream_synchronize(stream, B));

  /* Error path: a put beyond the window must be refused with a message. */
  ncore_status_t s = ncore_put_signal(comm, src, 16, NCORE_UINT8, peer, win,
                                      2 * BIG, 0, 0, 0, stream);
  check("out-of-window put refused", s == NCORE_ERR_INVALID_ARGUMENT);
  printf("rank %d:   (message: %s)\n", rank, ncore_last_error_message());

  /* Everyone done before windows go away. */
  step("barrier allreduce", ncore_allreduce(comm, buf, buf, 1, NCORE_FLOAT32,
                                            NCORE_SUM, stream));
  step("synchronize", ncore_stream_synchronize(stream, B));
  step("window_close", ncore_window_close(win));
  step("comm_destroy", ncore_comm_destroy(comm));
  ncore_mem_free(wbuf, B);
  ncore_mem_free(buf, B);
  ncore_stream_destroy(stream, B);
  printf("rank %d: %s (%d failures)\n", rank, failures ? "FAILED" : "PASSED",
         failures);
  return failures ? 1 : 0;
}

int main(void) {
  int fds[2];
  if (pipe(fds) != 0) return 2;
  pid_t pids[2];
  for (int rank = 0; rank < 2; rank++) {
    pids[rank] = fork();
    if (pids[rank] == 0) {
      ncore_unique_id_t id;
      my_rank = rank;
      if (rank == 0) {
        if (!step("get_unique_id", ncore_get_unique_id(&id, B))) {
          memset(&id, 0, sizeof id); /* rank 1 fails init instead of hanging */
        }
        if (write(fds[1], &id, sizeof id) != (ssize_t)sizeof id) _exit(2);
      } else if (read(fds[0], &id, sizeof id) != (ssize_t)sizeof id) {
        _exit(2);
      }
      _exit(run_rank(rank, &id));
    }
  }
  int rc = 0;
  for (int rank = 0; rank < 2; rank++) {
    int st = 0;
    waitpid(pids[rank], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) rc = 1;
  }
  printf("smoke_nccl: %s\n", rc ? "FAILED" : "PASSED");
  return rc;
}
