/* The C baseline of the binding overhead benchmarks (bench/python, bench/rust,
 * bench/go): the same no-transfer calls (rank query, empty group) on a
 * 1-rank host communicator, in ns per call. Usage: overhead [ITERATIONS].
 * Built by each of those benchmarks with cc against build/lib. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ncore.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 1000000;
  ncore_unique_id_t id;
  ncore_comm_t comm;
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.backend = NCORE_BACKEND_HOST;
  if (ncore_get_unique_id(&id, NCORE_BACKEND_HOST) != NCORE_OK ||
      ncore_comm_init_rank(&comm, 1, &id, 0, &config) != NCORE_OK) {
    fprintf(stderr, "init: %s\n", ncore_last_error_message());
    return 1;
  }
  double best_rank = 1e30, best_group = 1e30, best_send = 1e30;
  char send_buf[8] = {0}, recv_buf[8];
  volatile int sink = 0;
  for (int run = 0; run < 5; run++) {
    double t0 = now_ns();
    for (long i = 0; i < iterations; i++) {
      int r;
      ncore_comm_rank(comm, &r);
      sink += r;
    }
    double t1 = now_ns();
    for (long i = 0; i < iterations; i++) {
      ncore_group_start();
      ncore_group_end();
    }
    double t2 = now_ns();
    /* send: 8 bytes to ourselves, with the matching recv, in one group. */
    for (long i = 0; i < iterations; i++) {
      ncore_group_start();
      ncore_send(comm, send_buf, 8, NCORE_UINT8, 0, NULL);
      ncore_recv(comm, recv_buf, 8, NCORE_UINT8, 0, NULL);
      ncore_group_end();
    }
    double t3 = now_ns();
    if ((t3 - t2) / iterations < best_send) best_send = (t3 - t2) / iterations;
    if ((t1 - t0) / iterations < best_rank) best_rank = (t1 - t0) / iterations;
    if ((t2 - t1) / iterations < best_group) best_group = (t2 - t1) / iterations;
  }
  /* Machine-readable: NAME NS (bench/python/send_overhead.py parses them). */
  printf("rank %.1f\n", best_rank);
  printf("group %.1f\n", best_group);
  printf("sendrecv %.1f\n", best_send);
  ncore_comm_destroy(comm);
  return 0;
}
