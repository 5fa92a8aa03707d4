/* tests/soak — a long run of every kind of operation on N forked ranks,
 * checking that nothing accumulates: each rank's resident memory, open
 * descriptors and mappings are measured after a warm-up and again at the
 * end, and /dev/shm before and after. Bounded in operations and in time.
 * Not part of `make test` (minutes); run by `make soak`.
 *
 * Usage: soak [--ranks N] [--iterations K] [--cycles M] [--seconds S]
 *   N ranks (default 4) run K rounds of operations on one communicator
 *   (default 100000: collectives, p2p in groups, puts into mapped and
 *   malloc windows, signals, symmetric put/get), then M cycles (default
 *   1000) of making and releasing everything (split, shrink, windows,
 *   symmetric memory, operators, device communicators, buffers); both
 *   phases stop early, on every rank alike, after S seconds each (default
 *   600). Prints each rank's numbers and "N passed, N failed". */
#include <dirent.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ncore.h>

/* What a rank measures of itself. */
typedef struct usage {
  long rss_kib, fds, maps;
} usage_t;

/* What a rank reports to the parent. */
typedef struct report {
  int ok;
  char failure[256];
  usage_t before, after;
  long rounds, cycles;
  double rounds_s, cycles_s;
} report_t;

static report_t me;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long n = 0;
  for (int c; (c = fgetc(f)) != EOF;) n += c == '\n';
  fclose(f);
  return n;
}

static long count_entries(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  long n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
  closedir(d);
  return n;
}

static usage_t measure(void) {
  usage_t u = {0, 0, 0};
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld kB", &u.rss_kib) == 1) break;
  if (f) fclose(f);
  u.fds = count_entries("/proc/self/fd", "");
  u.maps = count_lines("/proc/self/maps");
  return u;
}

/* Records the first failure and makes the rank stop. */
#define MUST(call)                                                              \
  do {                                                                          \
    ncore_status_t must_ = (call);                                              \
    if (must_ != NCORE_OK) {                                                    \
      if (me.ok)                                                                \
        snprintf(me.failure, sizeof me.failure, "%s: %s (%s)", #call,           \
                 ncore_status_string(must_), ncore_last_error_message());       \
      me.ok = 0;                                                                \
      return;                                                                   \
    }                                                                           \
  } while (0)

enum { BIG = 1 << 20, SMALL = 256 };

typedef struct rank_state {
  ncore_comm_t comm;
  int rank, nranks;
  char *buf, *buf2;          /* ncore_mem_alloc, BIG bytes each */
  ncore_registered_buffer_t buf_reg; /* buf, registered: one-copy sends */
  char *mapped, *plain;      /* window memory: shared and malloc'd */
  ncore_window_t mapped_win, plain_win;
  ncore_symmetric_t sym;
} rank_state_t;

/* One round: every kind of operation once, small and large alternately. */
static void round_of_operations(rank_state_t *s, long i) {
  int n = s->nranks, r = s->rank, right = (r + 1) % n, left = (r + n - 1) % n;
  size_t count = (i % 16 == 0) ? BIG / 4 / (size_t)n : SMALL;
  MUST(ncore_allreduce(s->comm, s->buf, s->buf2, count, NCORE_FLOAT32, NCORE_SUM, NULL));
  MUST(ncore_broadcast(s->comm, s->buf, s->buf, count, NCORE_INT32, (int)(i % n), NULL));
  MUST(ncore_allgather(s->comm, s->buf, s->buf2, count, NCORE_UINT8, NULL));
  MUST(ncore_reduce_scatter(s->comm, s->buf, s->buf2, count, NCORE_BFLOAT16, NCORE_MAX, NULL));
  MUST(ncore_alltoall(s->comm, s->buf, s->buf2, count, NCORE_UINT8, NULL));
  MUST(ncore_group_start());
  MUST(ncore_send(s->comm, s->buf, count, NCORE_INT32, right, NULL));
  MUST(ncore_recv(s->comm, s->buf2, count, NCORE_INT32, left, NULL));
  MUST(ncore_group_end());
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = left;
  ncore_window_t win = i % 2 ? s->mapped_win : s->plain_win;
  MUST(ncore_put_signal(s->comm, s->buf, count, NCORE_UINT8, right, win,
                        (size_t)r * SMALL * 4 % (BIG / 2), 0, 0, 0, NULL));
  MUST(ncore_wait_signal(s->comm, &d, 1, NULL));
  MUST(ncore_signal(s->comm, right, 0, 0, 0, NULL));
  MUST(ncore_wait_signal(s->comm, &d, 1, NULL));
  MUST(ncore_symmetric_put(s->sym, 0, s->buf, SMALL, right, NULL));
  MUST(ncore_symmetric_get(s->buf2, s->sym, 0, SMALL, left, NULL));
}

/* One cycle: make and release one of everything. */
static void cycle_of_resources(rank_state_t *s, long i) {
  ncore_comm_t child = 0, shrunk = 0;
  MUST(ncore_comm_split(s->comm, s->rank % 2, s->rank, &child, NULL));
  ncore_window_t win;
  MUST(ncore_register_window(&win, child, s->mapped + BIG / 2, 4096, 0));
  ncore_symmetric_t sym;
  MUST(ncore_symmetric_alloc(&sym, child, 4096 + (size_t)(i % 7) * 4096));
  float scalar = 0.5f;
  ncore_custom_redop_t op;
  MUST(ncore_create_pre_mul_sum(&op, child, &scalar, NCORE_FLOAT32,
                                NCORE_SCALAR_HOST_IMMEDIATE));
  ncore_redop_t value;
  MUST(ncore_custom_redop_value(op, &value));
  MUST(ncore_allreduce(child, s->buf, s->buf2, SMALL, NCORE_FLOAT32, value, NULL));
  ncore_registered_buffer_t rb;
  MUST(ncore_register_buffer(&rb, child, s->buf, BIG));
  ncore_dev_comm_t dev;
  MUST(ncore_create_dev_comm(&dev, child, NULL));
  /* Half the resources closed explicitly, the rest by the destroy. */
  if (i % 2) {
    MUST(ncore_window_close(win));
    MUST(ncore_symmetric_free(sym));
    MUST(ncore_custom_redop_close(op));
    MUST(ncore_registered_buffer_close(rb));
    MUST(ncore_dev_comm_close(dev));
  }
  MUST(ncore_comm_destroy(child));
  MUST(ncore_comm_shrink(s->comm, NULL, 0, &shrunk, NULL, 0));
  MUST(ncore_allreduce(shrunk, s->buf, s->buf2, SMALL, NCORE_INT64, NCORE_MIN, NULL));
  MUST(ncore_comm_destroy(shrunk));
  char *m = NULL;
  MUST(ncore_mem_alloc((void **)&m, 12345, NCORE_BACKEND_HOST));
  MUST(ncore_mem_free(m, NCORE_BACKEND_HOST));
  ncore_stream_t st;
  MUST(ncore_stream_create(&st, NCORE_BACKEND_HOST));
  MUST(ncore_stream_destroy(st, NCORE_BACKEND_HOST));
}

/* 1 on every rank once any rank saw the time run out (every 64 steps). */
static int time_is_up(rank_state_t *s, long i, double deadline) {
  if (i % 64 != 63) return 0;
  int32_t *flag = (int32_t *)(s->buf + BIG - 64);
  *flag = now_s() > deadline;
  if (ncore_allreduce(s->comm, flag, flag, 1, NCORE_INT32, NCORE_MAX, NULL) != NCORE_OK) {
    me.ok = 0;
    snprintf(me.failure, sizeof me.failure, "stop-flag allreduce: %s",
             ncore_last_error_message());
    return 1;
  }
  return *flag != 0;
}

static void run_rank(rank_state_t *s, const ncore_unique_id_t *id, long iterations,
                     long cycles, double seconds) {
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = 60000;
  MUST(ncore_comm_init_rank(&s->comm, s->nranks, id, s->rank, &config));
  MUST(ncore_mem_alloc((void **)&s->buf, BIG, NCORE_BACKEND_HOST));
  MUST(ncore_mem_alloc((void **)&s->buf2, BIG, NCORE_BACKEND_HOST));
  MUST(ncore_mem_alloc((void **)&s->mapped, BIG, NCORE_BACKEND_HOST));
  memset(s->buf, 1, BIG);
  MUST(ncore_register_buffer(&s->buf_reg, s->comm, s->buf, BIG));
  s->plain = calloc(1, BIG);
  MUST(ncore_register_window(&s->mapped_win, s->comm, s->mapped, BIG / 2, 0));
  MUST(ncore_register_window(&s->plain_win, s->comm, s->plain, BIG / 2, 0));
  MUST(ncore_symmetric_alloc(&s->sym, s->comm, 4096));
  /* Warm-up: first uses allocate tables and caches that then stay. */
  for (long i = 0; i < 64 && me.ok; i++) round_of_operations(s, i);
  for (long i = 0; i < 8 && me.ok; i++) cycle_of_resources(s, i);
  if (!me.ok) return;
  me.before = measure();
  double t0 = now_s();
  for (me.rounds = 0; me.rounds < iterations && me.ok; me.rounds++) {
    round_of_operations(s, me.rounds);
    if (time_is_up(s, me.rounds, t0 + seconds)) break;
  }
  me.rounds_s = now_s() - t0;
  t0 = now_s();
  for (me.cycles = 0; me.cycles < cycles && me.ok; me.cycles++) {
    cycle_of_resources(s, me.cycles);
    if (time_is_up(s, me.cycles, t0 + seconds)) break;
  }
  me.cycles_s = now_s() - t0;
  me.after = measure();
}

int main(int argc, char **argv) {
  int nranks = 4;
  long iterations = 100000, cycles = 1000;
  double seconds = 600;
  static const struct option options[] = {{"ranks", 1, 0, 'n'},
                                          {"iterations", 1, 0, 'i'},
                                          {"cycles", 1, 0, 'c'},
                                          {"seconds", 1, 0, 's'},
                                          {0, 0, 0, 0}};
  for (int o; (o = getopt_long(argc, argv, "", options, NULL)) != -1;) {
    if (o == 'n') nranks = atoi(optarg);
    else if (o == 'i') iterations = atol(optarg);
    else if (o == 'c') cycles = atol(optarg);
    else if (o == 's') seconds = atof(optarg);
    else return 2;
  }
  if (nranks < 2 || nranks > 64) {
    fprintf(stderr, "soak: --ranks must be 2..64\n");
    return 2;
  }
  setenv("NCORE_BACKEND", "host", 1);
  long shm_before = count_entries("/dev/shm", "ncore-");
  ncore_unique_id_t id;
  if (ncore_get_unique_id(&id, NCORE_BACKEND_HOST) != NCORE_OK) return 1;
  printf("soak: %d ranks, up to %ld rounds and %ld cycles, %.0f s each\n", nranks,
         iterations, cycles, seconds);
  fflush(stdout);
  pid_t pids[64];
  int fds[64];
  for (int r = 0; r < nranks; r++) {
    int p[2];
    if (pipe(p) != 0) return 1;
    pids[r] = fork();
    if (pids[r] == 0) {
      close(p[0]);
      rank_state_t s;
      memset(&s, 0, sizeof s);
      s.rank = r;
      s.nranks = nranks;
      me.ok = 1;
      run_rank(&s, &id, iterations, cycles, seconds);
      /* Release everything, then say how it went. */
      if (s.comm) ncore_comm_destroy(s.comm);
      ncore_mem_free(s.buf, NCORE_BACKEND_HOST);
      ncore_mem_free(s.buf2, NCORE_BACKEND_HOST);
      ncore_mem_free(s.mapped, NCORE_BACKEND_HOST);
      free(s.plain);
      if (write(p[1], &me, sizeof me) != (ssize_t)sizeof me) _exit(3);
      _exit(0);
    }
    close(p[1]);
    fds[r] = p[0];
  }
  int passed = 0, failed = 0;
  for (int r = 0; r < nranks; r++) {
    report_t rep;
    memset(&rep, 0, sizeof rep);
    ssize_t got = read(fds[r], &rep, sizeof rep);
    int status = 0;
    waitpid(pids[r], &status, 0);
    if (got != (ssize_t)sizeof rep || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      printf("FAIL rank %d: ended without a report (status 0x%x)\n", r, status);
      failed++;
      continue;
    }
    printf("rank %d: %ld rounds in %.1f s (%.0f rounds/s), %ld cycles in %.1f s; "
           "RSS %ld -> %ld KiB, fds %ld -> %ld, maps %ld -> %ld\n",
           r, rep.rounds, rep.rounds_s, rep.rounds / (rep.rounds_s > 0 ? rep.rounds_s : 1),
           rep.cycles, rep.cycles_s, rep.before.rss_kib, rep.after.rss_kib, rep.before.fds,
           rep.after.fds, rep.before.maps, rep.after.maps);
    /* Descriptors and mappings come back exactly; memory within 8 MiB of
     * the warmed-up size (allocator slack), whatever the run's length. */
    const char *why = !rep.ok                                ? rep.failure
                      : rep.after.fds != rep.before.fds      ? "descriptors leaked"
                      : rep.after.maps != rep.before.maps    ? "mappings leaked"
                      : rep.after.rss_kib > rep.before.rss_kib + 8192 ? "resident memory grew"
                                                                      : NULL;
    if (why) {
      printf("FAIL rank %d: %s\n", r, why);
      failed++;
    } else {
      printf("ok rank %d\n", r);
      passed++;
    }
  }
  long shm_after = count_entries("/dev/shm", "ncore-");
  printf("/dev/shm ncore-* entries: %ld before, %ld after\n", shm_before, shm_after);
  if (shm_after > shm_before) {
    printf("FAIL /dev/shm: %ld new entries\n", shm_after - shm_before);
    failed++;
  } else {
    printf("ok /dev/shm\n");
    passed++;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
