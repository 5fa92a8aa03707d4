/* bench/gpu/entry_cost.c — ncore's own host path of one collective call,
 * per call, on one rank: the time of N calls of an 8-byte reduce,
 * broadcast or allreduce, or of N groups of an 8-byte send and recv to
 * itself (sendrecv) (NCORE_ALGO=nccl: NCCL's enqueue, not ncore's
 * kernels), and, under callgrind, the instructions spent in libncore per
 * call (what ncore adds before NCCL's call). It links
 * neither NCCL nor CUDA; run it against the real libnccl on a GPU machine,
 * or against the NCCL double here (tests/fake_nccl/build.sh first):
 *   NCORE_BACKEND=nccl NCORE_ALGO=nccl FAKE_NCCL_VERSION=2.28.9 \
 *   NCORE_NCCL_LIBRARY=build/fake-nccl/2.28.9/libnccl.so.2 \
 *   NCORE_CUDA_LIBRARY=build/fake-nccl/libcuda.so.1 \
 *   valgrind --tool=callgrind build/bin/entry_cost 20000 reduce
 * then `callgrind_annotate --inclusive=no callgrind.out.*`, libncore's
 * rows summed and divided by N; bench/gpu/entry_cost_profile.py does that
 * with the cache simulation, warm and cold (FAKE_NCCL_TOUCH_BYTES). */
#define _POSIX_C_SOURCE 200809L
#include <ncore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OK(call)                                                          \
  do {                                                                    \
    if ((call) != NCORE_OK) {                                             \
      fprintf(stderr, "entry_cost: %s: %s\n", #call, ncore_last_error_message()); \
      return 1;                                                           \
    }                                                                     \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One group of a send and a recv of 2 floats to this rank itself. */
static ncore_status_t send_recv(ncore_comm_t c, void *m, void *out,
                                ncore_stream_t s) {
  ncore_status_t status = ncore_group_start();
  if (status == NCORE_OK) status = ncore_send(c, m, 2, NCORE_FLOAT32, 0, s);
  if (status == NCORE_OK) status = ncore_recv(c, out, 2, NCORE_FLOAT32, 0, s);
  ncore_status_t ended = ncore_group_end();
  return status != NCORE_OK ? status : ended;
}

/* usage: entry_cost [calls] [reduce|broadcast|allreduce|sendrecv] */
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200000;
  const char *op = argc > 2 ? argv[2] : "reduce";
  ncore_unique_id_t id;
  ncore_comm_t c;
  void *m;
  ncore_stream_t s;
  OK(ncore_get_unique_id(&id, NCORE_BACKEND_NCCL));
  OK(ncore_comm_init_rank(&c, 1, &id, 0, NULL));
  OK(ncore_mem_alloc(&m, 64, NCORE_BACKEND_NCCL));
  OK(ncore_stream_create(&s, NCORE_BACKEND_NCCL));
  char *out = (char *)m + 32;
  double t0 = now();
  for (int i = 0; i < n; i++) {
    if (!strcmp(op, "reduce")) OK(ncore_reduce(c, m, out, 2, NCORE_FLOAT32, NCORE_SUM, 0, s));
    else if (!strcmp(op, "broadcast")) OK(ncore_broadcast(c, m, out, 2, NCORE_FLOAT32, 0, s));
    else if (!strcmp(op, "sendrecv")) OK(send_recv(c, m, out, s));
    else OK(ncore_allreduce(c, m, out, 2, NCORE_FLOAT32, NCORE_SUM, s));
  }
  printf("%s: %.1f ns per call\n", op, (now() - t0) / n * 1e9);
  OK(ncore_comm_destroy(c));
  OK(ncore_stream_destroy(s, NCORE_BACKEND_NCCL));
  OK(ncore_mem_free(m, NCORE_BACKEND_NCCL));
  return 0;
}
