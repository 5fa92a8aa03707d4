/* bench/gpu/synchronize_cost.c — what ncore_comm_synchronize costs beside
 * ncore_stream_synchronize on the same stream: idle (nothing queued), and
 * after an 8-byte allreduce. The difference is ncore's own checks (the
 * communicator's asynchronous error, the LSA peers' states after the stream
 * completed). Run under ncore-run (GPU = local rank % devices); rank 0
 * prints one line per repetition:
 *   build/bin/ncore-run -n 4 build/bin/synchronize_cost [CALLS]
 * Link without an rpath (build.sh) so that LD_LIBRARY_PATH can pick the
 * libncore to compare (two builds in one run). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ncore.h>

#define OK(x)                                                              \
  do {                                                                     \
    ncore_status_t s_ = (x);                                               \
    if (s_ != NCORE_OK) {                                                  \
      fprintf(stderr, "%s: %s (%s)\n", #x, ncore_status_string(s_),        \
              ncore_last_error_message());                                 \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 20000;
  if (calls < 4) calls = 4;
  ncore_comm_t comm;
  OK(ncore_comm_init_from_env(&comm, NULL));
  int rank = 0, nranks = 0;
  OK(ncore_comm_rank(comm, &rank));
  OK(ncore_comm_size(comm, &nranks));
  ncore_stream_t s;
  OK(ncore_stream_create(&s, NCORE_BACKEND_NCCL));
  void *buf;
  OK(ncore_mem_alloc(&buf, 64, NCORE_BACKEND_NCCL));
  for (int i = 0; i < 100; i++) {
    OK(ncore_allreduce(comm, buf, buf, 2, NCORE_FLOAT32, NCORE_SUM, s));
    OK(ncore_comm_synchronize(comm, s));
  }
  for (int rep = 0; rep < 2; rep++) {
    double us[4], t = now_us();
    for (int i = 0; i < calls; i++) OK(ncore_comm_synchronize(comm, s));
    us[0] = (now_us() - t) / calls;
    t = now_us();
    for (int i = 0; i < calls; i++) OK(ncore_stream_synchronize(s, NCORE_BACKEND_NCCL));
    us[1] = (now_us() - t) / calls;
    int ops = calls / 4;
    t = now_us();
    for (int i = 0; i < ops; i++) {
      OK(ncore_allreduce(comm, buf, buf, 2, NCORE_FLOAT32, NCORE_SUM, s));
      OK(ncore_comm_synchronize(comm, s));
    }
    us[2] = (now_us() - t) / ops;
    t = now_us();
    for (int i = 0; i < ops; i++) {
      OK(ncore_allreduce(comm, buf, buf, 2, NCORE_FLOAT32, NCORE_SUM, s));
      OK(ncore_stream_synchronize(s, NCORE_BACKEND_NCCL));
    }
    us[3] = (now_us() - t) / ops;
    if (rank == 0)
      printf("ranks %d rep %d: idle comm_synchronize %.2f us, stream_synchronize "
             "%.2f us; 8 B allreduce + comm_synchronize %.2f us, + "
             "stream_synchronize %.2f us\n",
             nranks, rep, us[0], us[1], us[2], us[3]);
  }
  OK(ncore_mem_free(buf, NCORE_BACKEND_NCCL));
  OK(ncore_stream_destroy(s, NCORE_BACKEND_NCCL));
  OK(ncore_comm_destroy(comm));
  return 0;
}
