/* Handle lookups from several threads at once: each thread drives its own
 * communicator (host backend, ranks of one process) with ncore_comm_rank,
 * the cheapest call that looks a handle up and drops the reference. Before
 * the lookups went lock-free, one table mutex served every lookup of the process, and
 * neighbouring handles shared a cache line. Prints ns per call per thread
 * for 1..THREADS threads, best of 5 rounds. Usage: handle_lookups
 * [ITERATIONS] [THREADS]. Built and run by bench/run-host.sh. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ncore.h>

enum { MAX_THREADS = 8 };

static ncore_comm_t comms[MAX_THREADS];
static long iterations;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *look_up(void *arg) {
  ncore_comm_t comm = comms[(long)arg];
  int rank;
  for (long i = 0; i < iterations; i++) ncore_comm_rank(comm, &rank);
  return NULL;
}

int main(int argc, char **argv) {
  iterations = argc > 1 ? atol(argv[1]) : 2000000;
  int max_threads = argc > 2 ? atoi(argv[2]) : 2;
  if (iterations <= 0 || max_threads < 1 || max_threads > MAX_THREADS) {
    fprintf(stderr, "usage: handle_lookups [ITERATIONS > 0] [THREADS 1..%d]\n", MAX_THREADS);
    return 2;
  }
  ncore_status_t st = ncore_comm_init_all(comms, max_threads, NULL, NULL);
  if (st != NCORE_OK) {
    fprintf(stderr, "handle_lookups: ncore_comm_init_all: %s\n", ncore_last_error_message());
    return 1;
  }
  for (int threads = 1; threads <= max_threads; threads++) {
    double best = 1e300;
    for (int round = 0; round < 5; round++) {
      pthread_t t[MAX_THREADS];
      double t0 = now_ns();
      for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, look_up, (void *)i);
      for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
      double per_call = (now_ns() - t0) / (double)iterations;
      if (per_call < best) best = per_call;
    }
    printf("handle lookups, %d thread(s), each on its own communicator: %.1f ns per call\n",
           threads, best);
  }
  for (int i = 0; i < max_threads; i++) ncore_comm_destroy(comms[i]);
  return 0;
}
