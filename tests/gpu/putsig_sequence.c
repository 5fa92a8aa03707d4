/* putsig_sequence.c — a 2-rank program written from abi/include alone (issue
 * 42's reproducer, kept as a test): 8-byte put_signal and send/recv
 * ping-pongs (stream-pipelined and host-synchronised), then per size a put
 * bandwidth phase (50 put_signal of SIZE, one wait for 50 signals, 3 times;
 * rank 1's window checked) and a send/recv phase (50 ncore_send of SIZE
 * against 50 ncore_recv into the window's memory), and an unaligned odd-size
 * put at an odd offset. Each rank prints "PUTSIG ok rank R" at the end.
 *
 * It hung on 2 H100s (NCCL 2.28.9, tree eea3b10) in the send/recv phase:
 * the receive buffer lies in a window, which NCCL also registers as a user
 * buffer, and a receive into a registered buffer from an unregistered one
 * never completes on NVLink (tests/gpu/nccl_one_side_registered.cu, the
 * raw-NCCL reproducer; core/nccl/window_alias.h, the fix).
 *
 * Build: tests/gpu/build.sh (build/bin/putsig_sequence). Run on 2 GPUs:
 *   build/bin/ncore-run -n 2 --timeout 120 -- build/bin/putsig_sequence [MAX_BYTES]
 * MAX_BYTES (default 1 GiB) bounds the sizes: 1 MiB, 16 MiB, 256 MiB, 1 GiB.
 * Variables: PUTSIG_TRACE=1 prints each step; PUTSIG_SKIP_PUT=1 skips the
 * put bandwidth phase; PUTSIG_LAT=letters replaces the timed ping-pongs
 * (p put_signal, s send/recv, P / S host-synchronised) with
 * PUTSIG_LAT_ITERS iterations each (default 2000); PUTSIG_RECV_PLAIN=1
 * receives into memory outside the window; PUTSIG_ONE_SIZE=1 stops after
 * the first size; PUTSIG_WAIT_EACH=1 waits for each put's signal alone. */
#define _GNU_SOURCE
#include <ncore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OK(call) do { ncore_status_t s_ = (call); if (s_ != NCORE_OK) { \
  printf("PUTSIG FAIL rank %d line %d: %s -> %s [%s]\n", rank, __LINE__, #call, \
         ncore_status_string(s_), ncore_last_error_message()); exit(1); } } while (0)

static int rank, n;
static ncore_comm_t comm;
static ncore_backend_t be;
static ncore_stream_t st;
static ncore_window_t win;
static char *wbuf, *src, *rbuf;
static float *bar_d;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void barrier(void) {
  OK(ncore_allreduce(comm, bar_d, bar_d, 1, NCORE_FLOAT32, NCORE_SUM, st));
  OK(ncore_stream_synchronize(st, be));
}
static double slowest(double t) {
  float v = (float)t;
  OK(ncore_memcpy(bar_d, &v, sizeof v, NCORE_MEMCPY_DEFAULT, st, be));
  OK(ncore_allreduce(comm, bar_d, bar_d, 1, NCORE_FLOAT32, NCORE_MAX, st));
  OK(ncore_memcpy(&v, bar_d, sizeof v, NCORE_MEMCPY_DEFAULT, st, be));
  OK(ncore_stream_synchronize(st, be));
  return v;
}

static void wait_from(int peer, unsigned count) {
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = peer; d.op_count = count;
  OK(ncore_wait_signal(comm, &d, 1, st));
}

/* kind 0: put_signal, 1: send/recv */
static double pingpong(int kind, long iters) {
  int peer = 1 - rank;
  barrier();
  double t0 = now();
  for (long i = 0; i < iters; i++) {
    if (rank == 0) {
      if (kind == 0) { OK(ncore_put_signal(comm, src, 2, NCORE_FLOAT32, peer, win, 0, 0, 0, 0, st)); wait_from(peer, 1); }
      else { OK(ncore_send(comm, src, 2, NCORE_FLOAT32, peer, st)); OK(ncore_recv(comm, wbuf, 2, NCORE_FLOAT32, peer, st)); }
    } else {
      if (kind == 0) { wait_from(peer, 1); OK(ncore_put_signal(comm, src, 2, NCORE_FLOAT32, peer, win, 0, 0, 0, 0, st)); }
      else { OK(ncore_recv(comm, wbuf, 2, NCORE_FLOAT32, peer, st)); OK(ncore_send(comm, src, 2, NCORE_FLOAT32, peer, st)); }
    }
  }
  OK(ncore_stream_synchronize(st, be));
  return slowest(now() - t0) / iters / 2;
}

/* host waits each round trip */
static double pingpong_sync(int kind, long iters) {
  int peer = 1 - rank;
  barrier();
  double t0 = now();
  for (long i = 0; i < iters; i++) {
    if (rank == 0) {
      if (kind == 0) { OK(ncore_put_signal(comm, src, 2, NCORE_FLOAT32, peer, win, 0, 0, 0, 0, st)); wait_from(peer, 1); }
      else { OK(ncore_send(comm, src, 2, NCORE_FLOAT32, peer, st)); OK(ncore_recv(comm, wbuf, 2, NCORE_FLOAT32, peer, st)); }
    } else {
      if (kind == 0) { wait_from(peer, 1); OK(ncore_put_signal(comm, src, 2, NCORE_FLOAT32, peer, win, 0, 0, 0, 0, st)); }
      else { OK(ncore_recv(comm, wbuf, 2, NCORE_FLOAT32, peer, st)); OK(ncore_send(comm, src, 2, NCORE_FLOAT32, peer, st)); }
    }
    OK(ncore_stream_synchronize(st, be));
  }
  return slowest(now() - t0) / iters / 2;
}

static int trace;
#define TR(what) do { if (trace) printf("PUTSIG trace rank %d kind %d: %s\n", rank, kind, what); } while (0)
static double bandwidth(int kind, size_t bytes, long iters) {
  int peer = 1 - rank;
  TR("barrier");
  barrier();
  TR("enqueue");
  double t0 = now();
  if (rank == 0) {
    for (long i = 0; i < iters; i++) {
      if (kind == 0) OK(ncore_put_signal(comm, src, bytes / 4, NCORE_FLOAT32, peer, win, 0, 0, 0, 0, st));
      else OK(ncore_send(comm, src, bytes / 4, NCORE_FLOAT32, peer, st));
    }
  } else {
    if (kind == 0) { if (getenv("PUTSIG_WAIT_EACH")) for (long i = 0; i < iters; i++) wait_from(peer, 1); else wait_from(peer, (unsigned)iters); }
    else for (long i = 0; i < iters; i++) OK(ncore_recv(comm, rbuf, bytes / 4, NCORE_FLOAT32, peer, st));
  }
  TR("synchronize");
  OK(ncore_stream_synchronize(st, be));
  TR("slowest");
  double t = slowest(now() - t0);
  TR("done");
  return (double)bytes * iters / t / 1e9;
}

static int check(size_t bytes) {
  /* rank 1's window must hold rank 0's pattern */
  int bad = 0;
  if (rank == 1) {
    unsigned char *h = malloc(bytes);
    OK(ncore_memcpy(h, wbuf, bytes, NCORE_MEMCPY_DEFAULT, st, be));
    OK(ncore_stream_synchronize(st, be));
    for (size_t i = 0; i < bytes; i++) if (h[i] != (unsigned char)(i * 7 + 3)) { bad = 1; printf("PUTSIG FAIL data at %zu: %u\n", i, h[i]); break; }
    free(h);
  }
  return bad;
}

int main(int argc, char **argv) {
  size_t maxb = argc > 1 ? strtoull(argv[1], 0, 0) : (1ull << 30);
  setvbuf(stdout, NULL, _IONBF, 0);
  trace = getenv("PUTSIG_TRACE") != NULL;
  if (getenv("PUTSIG_SET_DEVICE")) { int c = 0; const char *lr = getenv("NCORE_LOCAL_RANK");
    if (lr && ncore_device_count(NCORE_BACKEND_NCCL, &c) == NCORE_OK && c > 0) ncore_device_set(NCORE_BACKEND_NCCL, atoi(lr) % c); }
  OK(ncore_comm_init_from_env(&comm, NULL));
  OK(ncore_comm_rank(comm, &rank)); OK(ncore_comm_size(comm, &n));
  OK(ncore_comm_backend(comm, &be));
  if (n != 2) { printf("PUTSIG needs 2 ranks\n"); return 2; }
  int lsa = 0; OK(ncore_comm_lsa_size(comm, &lsa));
  OK(ncore_stream_create(&st, be));
  OK(ncore_mem_alloc((void **)&bar_d, 64, be));
  OK(ncore_mem_alloc((void **)&wbuf, maxb, be));
  OK(ncore_mem_alloc((void **)&src, maxb, be));
  rbuf = wbuf;
  if (getenv("PUTSIG_RECV_PLAIN")) OK(ncore_mem_alloc((void **)&rbuf, maxb, be));
  unsigned char *h = malloc(maxb);
  for (size_t i = 0; i < maxb; i++) h[i] = (unsigned char)(i * 7 + 3);
  OK(ncore_memcpy(src, h, maxb, NCORE_MEMCPY_DEFAULT, st, be));
  OK(ncore_memset(wbuf, 0, maxb, st, be));
  OK(ncore_stream_synchronize(st, be));
  free(h);
  OK(ncore_register_window(&win, comm, wbuf, maxb, 0));
  if (rank == 1) printf("PUTSIG backend %d lsa_size %d\n", (int)be, lsa);
  /* warm */
  if (rank == 1) printf("PUTSIG phase single put\n");
  if (rank == 0) OK(ncore_put_signal(comm, src, 2, NCORE_FLOAT32, 1, win, 0, 0, 0, 0, st)); else wait_from(0, 1);
  OK(ncore_stream_synchronize(st, be)); barrier();
  if (rank == 1) printf("PUTSIG phase reverse put\n");
  if (rank == 1) OK(ncore_put_signal(comm, src, 2, NCORE_FLOAT32, 0, win, 0, 0, 0, 0, st)); else wait_from(1, 1);
  OK(ncore_stream_synchronize(st, be)); barrier();
  if (rank == 1) printf("PUTSIG phase pingpong 1\n");
  (void)pingpong(0, 1);
  if (rank == 1) printf("PUTSIG phase pingpong 50\n");
  (void)pingpong(0, 50);
  if (rank == 1) printf("PUTSIG phase sendrecv pingpong 50\n");
  (void)pingpong(1, 50);
  if (rank == 1) printf("PUTSIG phase timed\n");
  const char *lat = getenv("PUTSIG_LAT");
  long lat_iters = getenv("PUTSIG_LAT_ITERS") ? atol(getenv("PUTSIG_LAT_ITERS")) : 2000;
  if (lat) for (const char *k = lat; *k; k++) {
    if (rank == 1) printf("PUTSIG lat phase %c\n", *k);
    if (*k == 'p') (void)pingpong(0, lat_iters);
    if (*k == 's') (void)pingpong(1, lat_iters);
    if (*k == 'P') (void)pingpong_sync(0, lat_iters / 4);
    if (*k == 'S') (void)pingpong_sync(1, lat_iters / 4);
  }
  for (int rep = 0; rep < (lat ? 0 : 2); rep++) {
    double a = pingpong(0, 2000), b = pingpong(1, 2000);
    double c = pingpong_sync(0, 500), d = pingpong_sync(1, 500);
    if (rank == 1) printf("PUTSIG lat8B stream put_signal %.2f us send/recv %.2f us | host-synced put_signal %.2f us send/recv %.2f us\n",
                          a * 1e6, b * 1e6, c * 1e6, d * 1e6);
  }
  int bad = 0;
  static const size_t sizes[] = {1u << 20, 16u << 20, 256u << 20, 1ull << 30};
  for (int k = 0; k < 4 && sizes[k] <= maxb; k++) {
    size_t bytes = sizes[k];
    long iters = bytes >= (256u << 20) ? 10 : 50;
    OK(ncore_memset(wbuf, 0, maxb, st, be)); OK(ncore_stream_synchronize(st, be)); barrier();
    double p = 0, s = 0;
    if (rank == 1) printf("PUTSIG phase bw put %zu\n", bytes);
    if (!getenv("PUTSIG_SKIP_PUT")) for (int rep = 0; rep < 3; rep++) { double x = bandwidth(0, bytes, iters); if (x > p) p = x; }
    if (rank == 1) printf("PUTSIG phase bw sendrecv %zu (put %.1f GB/s)\n", bytes, p);
    if (!getenv("PUTSIG_SKIP_PUT")) bad |= check(bytes);
    if (trace) printf("PUTSIG trace rank %d: checked\n", rank);
    for (int rep = 0; rep < 3; rep++) { double x = bandwidth(1, bytes, iters); if (x > s) s = x; }
    if (getenv("PUTSIG_ONE_SIZE")) { if (rank == 1) printf("PUTSIG bw %zu B put_signal %.1f GB/s send/recv %.1f GB/s\n", bytes, p, s); break; }
    if (rank == 1) printf("PUTSIG bw %zu B put_signal %.1f GB/s send/recv %.1f GB/s\n", bytes, p, s);
  }
  /* last size 1 GiB: also check an unaligned odd-size put at an odd offset */
  OK(ncore_memset(wbuf, 0, maxb, st, be)); OK(ncore_stream_synchronize(st, be)); barrier();
  if (rank == 0) OK(ncore_put_signal(comm, src + 0, 12345, NCORE_UINT8, 1, win, 77, 0, 0, 0, st));
  else wait_from(0, 1);
  OK(ncore_stream_synchronize(st, be));
  if (rank == 1) {
    unsigned char *hh = malloc(20000);
    OK(ncore_memcpy(hh, wbuf, 20000, NCORE_MEMCPY_DEFAULT, st, be)); OK(ncore_stream_synchronize(st, be));
    for (size_t i = 0; i < 20000; i++) {
      unsigned char want = (i >= 77 && i < 77 + 12345) ? (unsigned char)((i - 77) * 7 + 3) : 0;
      if (hh[i] != want) { printf("PUTSIG FAIL odd put at %zu: %u want %u\n", i, hh[i], want); bad = 1; break; }
    }
    free(hh);
  }
  barrier();
  OK(ncore_window_close(win));
  OK(ncore_comm_destroy(comm));
  printf("PUTSIG %s rank %d\n", bad ? "FAIL" : "ok", rank);
  return bad;
}
