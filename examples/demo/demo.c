/* examples/demo — what ncore does, on N ranks started by ncore-run, mpirun,
 * srun or torchrun (or alone, one rank):
 *   1. a window over ncore_mem_alloc memory on every rank;
 *   2. a ring exchange: each rank put_signals a block into the next rank's
 *      window and waits for the previous rank's signal, then checks the bytes
 *      (between ranks whose memory is load/store reachable, i.e. in one LSA
 *      team; across teams, as across nodes without GIN, ncore answers
 *      NCORE_ERR_NOT_SUPPORTED and the demo says so and leaves that hop out);
 *   3. an allreduce (SUM, float32) checked against the expected sums;
 *   4. the bandwidth of a loop of large puts and of allreduces.
 * Only the public API is used (ncore_memcpy / ncore_memset move data to and
 * from "device" buffers), so the same program runs on the host backend and,
 * with NCORE_BACKEND=nccl, on GPUs.
 *
 *   build/bin/ncore-run -n 4 build/bin/ncore-demo [MIB] [ITERATIONS]   (make demo)
 * MIB: block size in MiB (default 8 on the host backend, whose shared memory
 * may be small in containers; 256 on NCCL). ITERATIONS: default 20. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ncore.h>

/* Stops the rank with the failing call, its status and ncore's message. */
#define CHECK(call)                                                            \
  do {                                                                         \
    ncore_status_t st_ = (call);                                               \
    if (st_ != NCORE_OK) {                                                     \
      fprintf(stderr, "demo: %s failed: %s: %s\n", #call,                      \
              ncore_status_string(st_), ncore_last_error_message());           \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

typedef struct demo {
  struct { int rank, nranks; } env; /* this rank's place, from comm */
  ncore_backend_t backend;
  ncore_comm_t comm;
  ncore_stream_t stream;
  size_t bytes;
  int iterations;
  int put_next, wait_prev; /* next / previous rank is in this rank's LSA team */
} demo_t;

/* Whether rank peer is in this rank's LSA team (the block of lsa_size
 * consecutive ranks around it), i.e. reachable by put_signal. */
static int in_lsa_team(const demo_t *d, int peer) {
  int lsa_rank, lsa_size;
  CHECK(ncore_comm_lsa_rank(d->comm, &lsa_rank));
  CHECK(ncore_comm_lsa_size(d->comm, &lsa_size));
  int first = d->env.rank - lsa_rank;
  return peer >= first && peer < first + lsa_size;
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The byte that rank `rank` puts at position i: differs per rank and
 * position, so a block from the wrong rank or offset is caught. */
static unsigned char pattern_byte(int rank, size_t i) {
  return (unsigned char)((size_t)rank * 131u + i * 7u + (i >> 12));
}

/* Waits for the work queued on the demo's stream (a no-op on the host). */
static void sync_stream(const demo_t *d) {
  CHECK(ncore_stream_synchronize(d->stream, d->backend));
}

/* All ranks meet: a one-element allreduce. */
static void barrier(const demo_t *d, float *scratch) {
  CHECK(ncore_allreduce(d->comm, scratch, scratch, 1, NCORE_FLOAT32, NCORE_SUM, d->stream));
  sync_stream(d);
}

/* Copies `bytes` of buffer (device or host) to a new host array. */
static void *to_host(const demo_t *d, const void *buffer, size_t bytes) {
  void *host = malloc(bytes);
  if (!host) { perror("malloc"); exit(1); }
  CHECK(ncore_memcpy(host, buffer, bytes, NCORE_MEMCPY_DEFAULT, d->stream, d->backend));
  sync_stream(d);
  return host;
}

/* One step of the ring: put into next, wait for previous. */
static void ring_step(const demo_t *d, const void *src, ncore_window_t window) {
  int next = (d->env.rank + 1) % d->env.nranks;
  int prev = (d->env.rank + d->env.nranks - 1) % d->env.nranks;
  if (d->put_next)
    CHECK(ncore_put_signal(d->comm, src, d->bytes, NCORE_UINT8, next, window, 0, 0, 0, 0,
                           d->stream));
  ncore_wait_signal_desc_t wait = NCORE_WAIT_SIGNAL_DESC_INIT;
  wait.peer = prev;
  if (d->wait_prev) CHECK(ncore_wait_signal(d->comm, &wait, 1, d->stream));
}

/* Whether the window holds the previous rank's pattern; says where not. */
static int ring_verified(const demo_t *d, const void *window_buffer) {
  int prev = (d->env.rank + d->env.nranks - 1) % d->env.nranks;
  unsigned char *got = to_host(d, window_buffer, d->bytes);
  for (size_t i = 0; i < d->bytes; i++)
    if (got[i] != pattern_byte(prev, i)) {
      fprintf(stderr, "demo: rank %d: byte %zu from rank %d is %u, expected %u\n",
              d->env.rank, i, prev, got[i], pattern_byte(prev, i));
      free(got);
      return 0;
    }
  free(got);
  return 1;
}

/* Part 1 and 2: the ring of put_signal, verified, then timed. Returns 0 if
 * the data arrived intact. */
static int demo_ring(demo_t *d, float *scratch) {
  int next = (d->env.rank + 1) % d->env.nranks;
  int prev = (d->env.rank + d->env.nranks - 1) % d->env.nranks;
  d->put_next = in_lsa_team(d, next);
  d->wait_prev = in_lsa_team(d, prev);
  if (!d->put_next)
    printf("rank %d: rank %d is outside this rank's LSA team (not load/store "
           "reachable, as across nodes without GIN): that hop of the ring is "
           "left out\n", d->env.rank, next);
  if (!d->put_next && !d->wait_prev) return 0;
  void *src, *window_buffer;
  CHECK(ncore_mem_alloc(&src, d->bytes, d->backend));
  CHECK(ncore_mem_alloc(&window_buffer, d->bytes, d->backend));
  CHECK(ncore_memset(window_buffer, 0, d->bytes, d->stream, d->backend));
  unsigned char *pattern = malloc(d->bytes);
  if (!pattern) { perror("malloc"); exit(1); }
  for (size_t i = 0; i < d->bytes; i++) pattern[i] = pattern_byte(d->env.rank, i);
  CHECK(ncore_memcpy(src, pattern, d->bytes, NCORE_MEMCPY_DEFAULT, d->stream, d->backend));
  sync_stream(d);
  free(pattern);

  ncore_window_t window;
  CHECK(ncore_register_window(&window, d->comm, window_buffer, d->bytes, NCORE_WINDOW_DEFAULT));
  ring_step(d, src, window);
  sync_stream(d);
  int ok = !d->wait_prev || ring_verified(d, window_buffer);

  barrier(d, scratch);
  double start = seconds_now();
  for (int i = 0; i < d->iterations; i++) ring_step(d, src, window);
  sync_stream(d);
  double elapsed = seconds_now() - start;
  ok = ok && (!d->wait_prev || ring_verified(d, window_buffer));
  printf("rank %d: ring put_signal %zu MiB x %d to rank %d: %.2f GB/s, data %s\n",
         d->env.rank, d->bytes >> 20, d->iterations, (d->env.rank + 1) % d->env.nranks,
         (double)d->bytes * d->iterations / elapsed / 1e9, ok ? "verified" : "WRONG");

  barrier(d, scratch); /* nobody puts into a closed window */
  CHECK(ncore_window_close(window));
  CHECK(ncore_mem_free(window_buffer, d->backend));
  CHECK(ncore_mem_free(src, d->backend));
  return ok ? 0 : 1;
}

/* Part 3 and 4: allreduce, checked, then timed. Returns 0 if the sums match. */
static int demo_allreduce(const demo_t *d) {
  size_t count = d->bytes / sizeof(float);
  int n = d->env.nranks;
  float *host = malloc(d->bytes);
  if (!host) { perror("malloc"); exit(1); }
  /* Small integers: their float sums are exact. */
  for (size_t i = 0; i < count; i++) host[i] = (float)(d->env.rank + 1) + (float)(i % 7);
  void *send, *recv;
  CHECK(ncore_mem_alloc(&send, d->bytes, d->backend));
  CHECK(ncore_mem_alloc(&recv, d->bytes, d->backend));
  CHECK(ncore_memcpy(send, host, d->bytes, NCORE_MEMCPY_DEFAULT, d->stream, d->backend));
  CHECK(ncore_allreduce(d->comm, send, recv, count, NCORE_FLOAT32, NCORE_SUM, d->stream));
  float *got = to_host(d, recv, d->bytes);
  int ok = 1;
  for (size_t i = 0; i < count && ok; i++) {
    float expected = (float)(n * (n + 1) / 2) + (float)(n * (int)(i % 7));
    if (got[i] != expected) {
      fprintf(stderr, "demo: rank %d: allreduce element %zu is %g, expected %g\n",
              d->env.rank, i, got[i], expected);
      ok = 0;
    }
  }
  free(got);

  double start = seconds_now();
  for (int i = 0; i < d->iterations; i++)
    CHECK(ncore_allreduce(d->comm, send, recv, count, NCORE_FLOAT32, NCORE_SUM, d->stream));
  sync_stream(d);
  double elapsed = seconds_now() - start;
  double algbw = (double)d->bytes * d->iterations / elapsed / 1e9;
  /* Bus bandwidth, as nccl-tests reports it: 2(n-1)/n of the algorithm's. */
  printf("rank %d: allreduce sum float32 %zu MiB x %d: %.2f GB/s (bus %.2f GB/s), sums %s\n",
         d->env.rank, d->bytes >> 20, d->iterations, algbw, algbw * 2 * (n - 1) / n,
         ok ? "verified" : "WRONG");
  CHECK(ncore_mem_free(recv, d->backend));
  CHECK(ncore_mem_free(send, d->backend));
  free(host);
  return ok ? 0 : 1;
}

#define DEMO_USAGE "usage: build/bin/ncore-run -n N build/bin/ncore-demo [MIB] [ITERATIONS]"

int main(int argc, char **argv) {
  demo_t d = {0};
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf("%s\n(from the checkout, after make lib; make demo runs it on 4 ranks;\n"
           "mpirun, srun and torchrun start it too, and alone it is one rank)\n"
           "MIB: block size in MiB (default 8 on the host backend, 256 on NCCL); "
           "ITERATIONS: default 20.\n", DEMO_USAGE);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("ncore-demo (ncore %s)\n", ncore_version_string());
    return 0;
  }
  CHECK(ncore_backend_resolve(NCORE_BACKEND_AUTO, &d.backend));
  size_t mib = d.backend == NCORE_BACKEND_NCCL ? 256 : 8;
  if (argc > 1) mib = (size_t)strtoul(argv[1], NULL, 10);
  d.iterations = argc > 2 ? atoi(argv[2]) : 20;
  if (mib < 1 || d.iterations < 1) { fprintf(stderr, "%s\n", DEMO_USAGE); return 2; }
  d.bytes = mib << 20;

  /* Joins the job of whichever launcher started it (or runs alone); on
   * NCCL each rank takes GPU local rank % visible devices. */
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = 60000;
  CHECK(ncore_comm_init_from_env(&d.comm, &config));
  CHECK(ncore_comm_rank(d.comm, &d.env.rank));
  CHECK(ncore_comm_size(d.comm, &d.env.nranks));
  CHECK(ncore_stream_create(&d.stream, d.backend));
  if (d.env.rank == 0)
    printf("rank 0: ncore %s, %d ranks on the %s backend\n", ncore_version_string(),
           d.env.nranks, d.backend == NCORE_BACKEND_NCCL ? "nccl" : "host");

  float *scratch;
  CHECK(ncore_mem_alloc((void **)&scratch, sizeof(float), d.backend));
  CHECK(ncore_memset(scratch, 0, sizeof(float), d.stream, d.backend));
  int failures = demo_ring(&d, scratch) + demo_allreduce(&d);

  CHECK(ncore_mem_free(scratch, d.backend));
  CHECK(ncore_stream_destroy(d.stream, d.backend));
  CHECK(ncore_comm_destroy(d.comm));
  return failures ? 1 : 0;
}
