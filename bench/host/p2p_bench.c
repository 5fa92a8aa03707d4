/* ncore benchmark: point-to-point and one-sided transfers between ranks,
 * against memcpy measured in the same run. Started by tools/ncore-run -n N.
 *
 * Measures, for message sizes from 8 B up to --max-bytes:
 *  - send/recv bandwidth (rank 0 -> rank 1, others idle; N=4 runs a ring),
 *  - put_signal bandwidth into a window over ncore_mem_alloc memory,
 *  - memcpy bandwidth on rank 0 for the same sizes (the baseline),
 * and the 8-byte ping-pong latency (one way) of send/recv and of
 * put_signal -> wait_signal. Rank 0 prints one JSON object on stdout.
 * Works on both backends: buffers come from ncore_mem_alloc and timing
 * synchronises the default stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ncore.h>

#include "ncore_launch_env.h"

#define CHECK(call)                                                          \
  do {                                                                       \
    ncore_status_t st_ = (call);                                             \
    if (st_ != NCORE_OK) {                                                   \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ncore_status_string(st_), \
              ncore_last_error_message());                                   \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct bench {
  ncore_comm_t comm;
  ncore_backend_t backend;
  int rank, nranks;
  char *src, *dst;
  ncore_window_t window;
} bench_t;

/* Iterations for a size: enough bytes to time, at least a few. */
static int iterations_for(size_t bytes) {
  size_t target = (size_t)256 << 20;
  size_t n = target / (bytes ? bytes : 1);
  if (n > 2000) n = 2000;
  if (n < 3) n = 3;
  return (int)n;
}

static void barrier(bench_t *b) {
  CHECK(ncore_allreduce(b->comm, b->src, b->dst, 1, NCORE_INT8, NCORE_SUM, NULL));
  CHECK(ncore_stream_synchronize(NULL, b->backend));
}

/* One direction of a ring step: send to next, recv from previous. */
static void ring_exchange(bench_t *b, size_t bytes) {
  int next = (b->rank + 1) % b->nranks, prev = (b->rank + b->nranks - 1) % b->nranks;
  CHECK(ncore_group_start());
  CHECK(ncore_send(b->comm, b->src, bytes, NCORE_UINT8, next, NULL));
  CHECK(ncore_recv(b->comm, b->dst, bytes, NCORE_UINT8, prev, NULL));
  CHECK(ncore_group_end());
}

static double sendrecv_bandwidth(bench_t *b, size_t bytes) {
  int iters = iterations_for(bytes);
  ring_exchange(b, bytes); /* warm-up */
  barrier(b);
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++) ring_exchange(b, bytes);
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  double t = now_seconds() - t0;
  return (double)bytes * iters / t / 1e9;
}

static double put_signal_bandwidth(bench_t *b, size_t bytes) {
  int iters = iterations_for(bytes);
  int next = (b->rank + 1) % b->nranks, prev = (b->rank + b->nranks - 1) % b->nranks;
  ncore_wait_signal_desc_t desc = NCORE_WAIT_SIGNAL_DESC_INIT;
  desc.peer = prev;
  /* Warm-up, as for the other measurements: the first touch of the peer's
   * pages maps them. */
  CHECK(ncore_put_signal(b->comm, b->src, bytes, NCORE_UINT8, next, b->window, 0, 0, 0, 0, NULL));
  CHECK(ncore_wait_signal(b->comm, &desc, 1, NULL));
  barrier(b);
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++) {
    CHECK(ncore_put_signal(b->comm, b->src, bytes, NCORE_UINT8, next, b->window, 0, 0, 0, 0,
                           NULL));
    CHECK(ncore_wait_signal(b->comm, &desc, 1, NULL));
  }
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  double t = now_seconds() - t0;
  return (double)bytes * iters / t / 1e9;
}

static double memcpy_bandwidth(bench_t *b, size_t bytes) {
  int iters = iterations_for(bytes);
  CHECK(ncore_memcpy(b->dst, b->src, bytes, NCORE_MEMCPY_DEVICE_TO_DEVICE, NULL, b->backend));
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++)
    CHECK(ncore_memcpy(b->dst, b->src, bytes, NCORE_MEMCPY_DEVICE_TO_DEVICE, NULL, b->backend));
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  return (double)bytes * iters / (now_seconds() - t0) / 1e9;
}

/* 8-byte ping-pong between ranks 0 and 1; returns one-way microseconds. */
static double pingpong_latency(bench_t *b, int one_sided) {
  const int iters = 20000, warmup = 1000;
  ncore_wait_signal_desc_t desc = NCORE_WAIT_SIGNAL_DESC_INIT;
  desc.peer = b->rank == 0 ? 1 : 0;
  int peer = desc.peer;
  barrier(b);
  double t0 = 0;
  for (int i = 0; i < iters + warmup; i++) {
    if (i == warmup) t0 = now_seconds();
    if (b->rank > 1) continue;
    int sender = (b->rank == 0);
    for (int half = 0; half < 2; half++, sender = !sender) {
      if (sender && one_sided)
        CHECK(ncore_put_signal(b->comm, b->src, 8, NCORE_UINT8, peer, b->window, 0, 0, 0, 0,
                               NULL));
      else if (sender)
        CHECK(ncore_send(b->comm, b->src, 8, NCORE_UINT8, peer, NULL));
      else if (one_sided)
        CHECK(ncore_wait_signal(b->comm, &desc, 1, NULL));
      else
        CHECK(ncore_recv(b->comm, b->dst, 8, NCORE_UINT8, peer, NULL));
    }
  }
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  double t = now_seconds() - t0;
  barrier(b);
  return t / iters / 2 * 1e6;
}

int main(int argc, char **argv) {
  size_t max_bytes = (size_t)64 << 20;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--max-bytes") == 0) max_bytes = strtoull(argv[i + 1], NULL, 0);
  bench_t b = {0};
  ncore_launch_env_t env;
  if (ncore_launch_env_read(&env) != 0) {
    fprintf(stderr, "p2p_bench: start me with tools/ncore-run -n N\n");
    return 2;
  }
  b.rank = env.rank;
  b.nranks = env.nranks;
  CHECK(ncore_comm_init_rank(&b.comm, b.nranks, &env.id, b.rank, NULL));
  CHECK(ncore_comm_backend(b.comm, &b.backend));
  void *src, *dst;
  CHECK(ncore_mem_alloc(&src, max_bytes, b.backend));
  CHECK(ncore_mem_alloc(&dst, max_bytes, b.backend));
  b.src = src;
  b.dst = dst;
  CHECK(ncore_memset(b.src, 1, max_bytes, NULL, b.backend));
  CHECK(ncore_register_window(&b.window, b.comm, b.dst, max_bytes, NCORE_WINDOW_DEFAULT));

  double pp = pingpong_latency(&b, 0);
  double ps = pingpong_latency(&b, 1);
  if (b.rank == 0)
    printf("{\"backend\":\"%s\",\"nranks\":%d,\"pingpong_us\":%.3f,"
           "\"put_signal_latency_us\":%.3f,\"sizes\":[",
           b.backend == NCORE_BACKEND_HOST ? "host" : "nccl", b.nranks, pp, ps);
  int first = 1;
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 8) {
    double sr = sendrecv_bandwidth(&b, bytes);
    double put = put_signal_bandwidth(&b, bytes);
    double mc = memcpy_bandwidth(&b, bytes);
    if (b.rank == 0) {
      printf("%s{\"bytes\":%zu,\"sendrecv_gbps\":%.4f,\"put_signal_gbps\":%.4f,"
             "\"memcpy_gbps\":%.4f}",
             first ? "" : ",", bytes, sr, put, mc);
      first = 0;
    }
    if (bytes * 8 > max_bytes && bytes != max_bytes) bytes = max_bytes / 8;
  }
  if (b.rank == 0) printf("]}\n");
  fflush(stdout);
  CHECK(ncore_window_close(b.window));
  CHECK(ncore_mem_free(src, b.backend));
  CHECK(ncore_mem_free(dst, b.backend));
  CHECK(ncore_comm_finalize(b.comm));
  CHECK(ncore_comm_destroy(b.comm));
  return 0;
}
