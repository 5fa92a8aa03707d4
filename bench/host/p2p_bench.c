/* ncore benchmark: point-to-point, one-sided and allreduce between ranks,
 * against baselines measured in the same run, in interleaved rounds.
 *
 * Two builds of this one file:
 *  - Bazel's p2p_bench (//bench/host:p2p_bench), started by tools/ncore-run
 *    -n N, either backend: ncore against memcpy.
 *  - bench/run-host.sh's mpi_p2p_bench (mpicc -DNCORE_BENCH_MPI), started by
 *    mpirun -np N: the same, plus Open MPI's send/recv, ping-pong and
 *    MPI_Allreduce as baselines. Rank 0 makes the host unique id and
 *    MPI_Bcast hands it to the others.
 *
 * Measures, each as the best of --rounds rounds, the candidates of one
 * figure run one after another within each round (A/B interleaved, so a
 * noisy neighbour hurts both alike):
 *  - 8-byte ping-pong between ranks 0 and 1, one way: send/recv,
 *    put_signal -> wait_signal, MPI_Send/MPI_Recv;
 *  - send/recv bandwidth in a ring (send to next, recv from previous, in one
 *    group; MPI_Sendrecv), put_signal into a window over ncore_mem_alloc
 *    memory, and memcpy of the same size on each rank;
 *  - allreduce of float sums (ncore_allreduce, MPI_Allreduce), microseconds.
 * Buffers come from ncore_mem_alloc, the send buffer registered with the
 * communicator (ncore_register_buffer, as NCCL's zero-copy transfers need
 * ncclCommRegister): the host's one-copy path applies.
 * Rank 0 prints one JSON object on stdout. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ncore.h>

#ifdef NCORE_BENCH_MPI
#include <mpi.h>
#else
#endif

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
  int rank, nranks, next, prev;
  char *src, *dst;
  ncore_window_t window;
  ncore_registered_buffer_t registered_src;
} bench_t;

/* One candidate of a figure: runs `iters` operations of `bytes`, returns
 * the seconds they took on this rank (every rank starts together). */
typedef double (*timed_fn)(bench_t *b, size_t bytes, int iters);

/* Iterations for a size: enough bytes to time, at least a few. */
static int iterations_for(size_t bytes) {
  size_t target = (size_t)128 << 20;
  size_t n = target / (bytes ? bytes : 1);
  if (n > 2000) n = 2000;
  if (n < 3) n = 3;
  return (int)n;
}

static void barrier(bench_t *b) {
  CHECK(ncore_allreduce(b->comm, b->src, b->dst, 1, NCORE_INT8, NCORE_SUM, NULL));
  CHECK(ncore_stream_synchronize(NULL, b->backend));
}

/* ---- ncore candidates ---- */

static double bench_ncore_sendrecv(bench_t *b, size_t bytes, int iters) {
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++) {
    CHECK(ncore_group_start());
    CHECK(ncore_send(b->comm, b->src, bytes, NCORE_UINT8, b->next, NULL));
    CHECK(ncore_recv(b->comm, b->dst, bytes, NCORE_UINT8, b->prev, NULL));
    CHECK(ncore_group_end());
  }
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  return now_seconds() - t0;
}

static double bench_ncore_put_signal(bench_t *b, size_t bytes, int iters) {
  ncore_wait_signal_desc_t desc = NCORE_WAIT_SIGNAL_DESC_INIT;
  desc.peer = b->prev;
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++) {
    CHECK(ncore_put_signal(b->comm, b->src, bytes, NCORE_UINT8, b->next, b->window, 0, 0, 0, 0,
                           NULL));
    CHECK(ncore_wait_signal(b->comm, &desc, 1, NULL));
  }
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  return now_seconds() - t0;
}

static double bench_ncore_memcpy_copy(bench_t *b, size_t bytes, int iters) {
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++)
    CHECK(ncore_memcpy(b->dst, b->src, bytes, NCORE_MEMCPY_DEVICE_TO_DEVICE, NULL, b->backend));
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  return now_seconds() - t0;
}

static double bench_ncore_allreduce_sum(bench_t *b, size_t bytes, int iters) {
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++)
    CHECK(ncore_allreduce(b->comm, b->src, b->dst, bytes / sizeof(float), NCORE_FLOAT32,
                          NCORE_SUM, NULL));
  CHECK(ncore_stream_synchronize(NULL, b->backend));
  return now_seconds() - t0;
}

/* 8-byte ping-pong between ranks 0 and 1 (the others only wait); `bytes`
 * is unused, iters round trips. */
static double bench_ncore_pingpong_either(bench_t *b, int iters, int one_sided) {
  ncore_wait_signal_desc_t desc = NCORE_WAIT_SIGNAL_DESC_INIT;
  int peer = desc.peer = b->rank == 0 ? 1 : 0;
  double t0 = now_seconds();
  for (int i = 0; i < iters && b->rank < 2; i++) {
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
  return now_seconds() - t0;
}
static double bench_ncore_pingpong(bench_t *b, size_t bytes, int iters) {
  (void)bytes;
  return bench_ncore_pingpong_either(b, iters, 0);
}
static double bench_ncore_put_pingpong(bench_t *b, size_t bytes, int iters) {
  (void)bytes;
  return bench_ncore_pingpong_either(b, iters, 1);
}

/* ---- Open MPI candidates (the baselines) ---- */
#ifdef NCORE_BENCH_MPI
static double mpi_sendrecv(bench_t *b, size_t bytes, int iters) {
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++)
    MPI_Sendrecv(b->src, (int)bytes, MPI_BYTE, b->next, 7, b->dst, (int)bytes, MPI_BYTE,
                 b->prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return now_seconds() - t0;
}

static double mpi_allreduce_sum(bench_t *b, size_t bytes, int iters) {
  double t0 = now_seconds();
  for (int i = 0; i < iters; i++)
    MPI_Allreduce(b->src, b->dst, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
  return now_seconds() - t0;
}

static double mpi_pingpong(bench_t *b, size_t bytes, int iters) {
  (void)bytes;
  int peer = b->rank == 0 ? 1 : 0;
  double t0 = now_seconds();
  for (int i = 0; i < iters && b->rank < 2; i++) {
    if (b->rank == 0) {
      MPI_Send(b->src, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
      MPI_Recv(b->dst, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(b->dst, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(b->src, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
    }
  }
  return now_seconds() - t0;
}
#define HAVE_MPI 1
#else
#define HAVE_MPI 0
#define mpi_sendrecv NULL
#define mpi_allreduce_sum NULL
#define mpi_pingpong NULL
#endif

/* Best-of-rounds seconds of each of n candidates (NULL ones skipped), the
 * candidates interleaved within each round, after one warm-up call each
 * (the first touch of a peer's pages maps them). */
static void best_of(bench_t *b, int rounds, size_t bytes, int iters, int n,
                    const timed_fn *fns, double *best) {
  for (int k = 0; k < n; k++) {
    best[k] = -1;
    if (fns[k]) {
      barrier(b);
      fns[k](b, bytes, 1);
    }
  }
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < n; k++) {
      if (!fns[k]) continue;
      barrier(b);
      double t = fns[k](b, bytes, iters);
      if (best[k] < 0 || t < best[k]) best[k] = t;
    }
  barrier(b);
}

/* GB/s of one rank moving iters * bytes in t seconds; -1 stays -1 (JSON
 * null is written for it). */
static double gbps(size_t bytes, int iters, double t) {
  return t < 0 ? -1 : (double)bytes * iters / t / 1e9;
}

static void print_number(const char *key, double v, int comma) {
  if (v < 0) printf("\"%s\":null%s", key, comma ? "," : "");
  else printf("\"%s\":%.4f%s", key, v, comma ? "," : "");
}

static void usage_exit(void) {
  fprintf(stderr, "usage: p2p_bench [--max-bytes N] [--rounds R]\n");
  exit(2);
}

int main(int argc, char **argv) {
  size_t max_bytes = (size_t)64 << 20;
  int rounds = 5;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) usage_exit();
    if (strcmp(argv[i], "--max-bytes") == 0) max_bytes = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[++i]);
    else usage_exit();
  }
  if (max_bytes < 4096 || rounds < 1) usage_exit();
  bench_t b = {0};
#ifdef NCORE_BENCH_MPI
  ncore_unique_id_t id;
#endif
#ifdef NCORE_BENCH_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.nranks);
  if (b.rank == 0) CHECK(ncore_get_unique_id(&id, NCORE_BACKEND_HOST));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
#else
  /* Under ncore-run: the launcher's job (ncore_comm_init_from_env). */
  CHECK(ncore_comm_init_from_env(&b.comm, NULL));
  CHECK(ncore_comm_rank(b.comm, &b.rank));
  CHECK(ncore_comm_size(b.comm, &b.nranks));
#endif
  if (b.nranks < 2) {
    fprintf(stderr, "p2p_bench: needs at least 2 ranks\n");
    return 2;
  }
  b.next = (b.rank + 1) % b.nranks;
  b.prev = (b.rank + b.nranks - 1) % b.nranks;
#ifdef NCORE_BENCH_MPI
  CHECK(ncore_comm_init_rank(&b.comm, b.nranks, &id, b.rank, NULL));
#endif
  CHECK(ncore_comm_backend(b.comm, &b.backend));
  void *src, *dst;
  CHECK(ncore_mem_alloc(&src, max_bytes, b.backend));
  CHECK(ncore_mem_alloc(&dst, max_bytes, b.backend));
  b.src = src;
  b.dst = dst;
  CHECK(ncore_memset(b.src, 1, max_bytes, NULL, b.backend));
  CHECK(ncore_memset(b.dst, 0, max_bytes, NULL, b.backend));
  CHECK(ncore_register_window(&b.window, b.comm, b.dst, max_bytes, NCORE_WINDOW_DEFAULT));
  CHECK(ncore_register_buffer(&b.registered_src, b.comm, b.src, max_bytes));

  const int pp_iters = 20000;
  const timed_fn pp[3] = {bench_ncore_pingpong, bench_ncore_put_pingpong, mpi_pingpong};
  double pp_t[3];
  best_of(&b, rounds, 8, pp_iters, 3, pp, pp_t);
  if (b.rank == 0) {
    printf("{\"backend\":\"%s\",\"nranks\":%d,\"rounds\":%d,\"mpi\":%s,",
           b.backend == NCORE_BACKEND_HOST ? "host" : "nccl", b.nranks, rounds,
           HAVE_MPI ? "true" : "false");
    print_number("pingpong_us", pp_t[0] / pp_iters / 2 * 1e6, 1);
    print_number("put_signal_latency_us", pp_t[1] / pp_iters / 2 * 1e6, 1);
    print_number("mpi_pingpong_us", pp_t[2] < 0 ? -1 : pp_t[2] / pp_iters / 2 * 1e6, 1);
    printf("\"sizes\":[");
  }
  const timed_fn bw[4] = {bench_ncore_sendrecv, bench_ncore_put_signal, bench_ncore_memcpy_copy,
                            mpi_sendrecv};
  int first = 1;
  for (size_t bytes = 4096; bytes <= max_bytes; bytes *= 4) {
    int iters = iterations_for(bytes);
    double t[4];
    best_of(&b, rounds, bytes, iters, 4, bw, t);
    if (b.rank == 0) {
      printf("%s{\"bytes\":%zu,", first ? "" : ",", bytes);
      print_number("sendrecv_gbps", gbps(bytes, iters, t[0]), 1);
      print_number("put_signal_gbps", gbps(bytes, iters, t[1]), 1);
      print_number("memcpy_gbps", gbps(bytes, iters, t[2]), 1);
      print_number("mpi_sendrecv_gbps", gbps(bytes, iters, t[3]), 0);
      printf("}");
      first = 0;
    }
  }
  if (b.rank == 0) printf("],\"allreduce\":[");
  const timed_fn ar[2] = {bench_ncore_allreduce_sum, mpi_allreduce_sum};
  first = 1;
  for (size_t bytes = 8; bytes <= max_bytes;
       bytes = bytes < max_bytes && bytes * 8 > max_bytes ? max_bytes : bytes * 8) {
    int iters = iterations_for(bytes);
    double t[2];
    best_of(&b, rounds, bytes, iters, 2, ar, t);
    if (b.rank == 0) {
      printf("%s{\"bytes\":%zu,", first ? "" : ",", bytes);
      print_number("ncore_us", t[0] / iters * 1e6, 1);
      print_number("mpi_us", t[1] < 0 ? -1 : t[1] / iters * 1e6, 0);
      printf("}");
      first = 0;
    }
  }
  if (b.rank == 0) printf("]}\n");
  fflush(stdout);
  CHECK(ncore_registered_buffer_close(b.registered_src));
  CHECK(ncore_window_close(b.window));
  CHECK(ncore_mem_free(src, b.backend));
  CHECK(ncore_mem_free(dst, b.backend));
  CHECK(ncore_comm_finalize(b.comm));
  CHECK(ncore_comm_destroy(b.comm));
#ifdef NCORE_BENCH_MPI
  MPI_Finalize();
#endif
  return 0;
}
