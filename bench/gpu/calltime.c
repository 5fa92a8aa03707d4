/* bench/gpu/calltime.c — the host time a process spends inside NCCL's
 * enqueue calls, apart by caller: libncore (ncore's side) or anything else
 * (nccl_bench's raw side), for nccl_bench's host-paced sizes (x86-64 Linux,
 * glibc). Where a call's time is set by the host (the sweep's enqueue time
 * near its time per call), ncore's side minus raw's is ncore's own path plus
 * any difference in NCCL's own work on ncore's communicator; this library
 * tells the two apart.
 *
 * Preloaded (LD_PRELOAD=calltime.so), it interposes dlsym as callcount.c
 * does: NCCL's collectives, ncclSend, ncclRecv, ncclGroupStart and
 * ncclGroupEnd, looked up in libnccl, are handed out as wrappers that read
 * the time stamp counter before and after the real call. At exit it writes
 * one JSON object to CALLTIME_DIR/calltime-rank<NCORE_RANK>.json (stderr
 * when CALLTIME_DIR is unset): per function and side, the calls, the calls
 * over 1 ms (left out of the mean) and the mean nanoseconds inside NCCL per
 * call. The per-call figures mix every size run; the sides' calls are the
 * same sizes (ncore's allreduces also count nccl_bench's barriers). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "real_dlsym.h"

typedef int res_t; /* ncclResult_t */
typedef void *comm_t, *stream_t;

enum { AR, BC, RD, AG, RS, SEND, RECV, GSTART, GEND, FUNCTIONS };
static const char *const function_names[FUNCTIONS] = {
    "ncclAllReduce", "ncclBroadcast", "ncclReduce", "ncclAllGather",
    "ncclReduceScatter", "ncclSend", "ncclRecv", "ncclGroupStart",
    "ncclGroupEnd"};
static void *real[FUNCTIONS];
/* [function][side]: side 1 when the caller is libncore. A call over 1 ms
 * (a first call's connection set-up, a wait for a full launch queue) is
 * counted in slow and left out of the mean. */
static unsigned long long cycles[FUNCTIONS][2], calls[FUNCTIONS][2],
    slow[FUNCTIONS][2];
static unsigned long long slow_cycles = 3000000; /* 1 ms at 3 GHz, until calibrated */
/* Every call's cycles, slow ones too, for calltime_read. */
static unsigned long long all_cycles;
/* CALLTIME_FENCE=1: one locked add right after each call returns, timed
 * apart ([function][side]): what the first atomic read-modify-write after
 * NCCL's enqueue waits for (its stores draining). */
static int fence_after;
static unsigned long long fence_cycles[FUNCTIONS][2];
static int fence_word;
static uintptr_t ncore_start, ncore_end; /* libncore's text, once known */

/* 1 when the return address lies in libncore. The first call from it
 * records its mapping's bounds; other callers' call sites are remembered
 * (a few: the bench's), so that neither side pays a dladdr per call. */
#define OTHER_SITES 16
static uintptr_t other_sites[OTHER_SITES];
static int other_count;
static int side_of(void *return_address) {
  uintptr_t a = (uintptr_t)return_address;
  if (a >= ncore_start && a < ncore_end) return 1;
  for (int i = 0; i < other_count; i++)
    if (other_sites[i] == a) return 0;
  Dl_info info;
  if (!dladdr(return_address, &info) || info.dli_fname == NULL ||
      strstr(info.dli_fname, "libncore") == NULL) {
    if (other_count < OTHER_SITES) other_sites[other_count++] = a;
    return 0;
  }
  /* The text segment is below 64 MiB past the load address; a tighter
   * bound is not needed to tell libncore from the bench. */
  ncore_start = (uintptr_t)info.dli_fbase;
  ncore_end = ncore_start + (64u << 20);
  return 1;
}

#define TIMED(f, call)                                        \
  do {                                                        \
    unsigned long long t0 = __rdtsc();                        \
    res_t result = call;                                      \
    unsigned long long t1 = __rdtsc(), t = t1 - t0;           \
    int s = side_of(__builtin_return_address(0));             \
    if (fence_after) {                                        \
      __atomic_fetch_add(&fence_word, 1, __ATOMIC_SEQ_CST);   \
      fence_cycles[f][s] += __rdtsc() - t1;                   \
    }                                                         \
    all_cycles += t;                                          \
    if (t > slow_cycles) {                                    \
      slow[f][s]++;                                           \
    } else {                                                  \
      cycles[f][s] += t;                                      \
      calls[f][s]++;                                          \
    }                                                         \
    return result;                                            \
  } while (0)

/* The collectives with one int after the datatype: the operator
 * (allreduce, reduce_scatter) or the root (broadcast). */
typedef res_t (*coll_fn)(const void *, void *, size_t, int, int, comm_t,
                         stream_t);
typedef res_t (*reduce_fn)(const void *, void *, size_t, int, int, int,
                           comm_t, stream_t);
typedef res_t (*gather_fn)(const void *, void *, size_t, int, comm_t,
                           stream_t);
typedef res_t (*p2p_fn)(void *, size_t, int, int, comm_t, stream_t);
typedef res_t (*group_fn)(void);

static res_t w_allreduce(const void *s, void *r, size_t n, int t, int op,
                         comm_t c, stream_t st) {
  TIMED(AR, ((coll_fn)real[AR])(s, r, n, t, op, c, st));
}
static res_t w_broadcast(const void *s, void *r, size_t n, int t, int root,
                         comm_t c, stream_t st) {
  TIMED(BC, ((coll_fn)real[BC])(s, r, n, t, root, c, st));
}
static res_t w_reduce(const void *s, void *r, size_t n, int t, int op,
                      int root, comm_t c, stream_t st) {
  TIMED(RD, ((reduce_fn)real[RD])(s, r, n, t, op, root, c, st));
}
static res_t w_allgather(const void *s, void *r, size_t n, int t, comm_t c,
                         stream_t st) {
  TIMED(AG, ((gather_fn)real[AG])(s, r, n, t, c, st));
}
static res_t w_reducescatter(const void *s, void *r, size_t n, int t, int op,
                             comm_t c, stream_t st) {
  TIMED(RS, ((coll_fn)real[RS])(s, r, n, t, op, c, st));
}
static res_t w_send(void *b, size_t n, int t, int peer, comm_t c,
                    stream_t st) {
  TIMED(SEND, ((p2p_fn)real[SEND])(b, n, t, peer, c, st));
}
static res_t w_recv(void *b, size_t n, int t, int peer, comm_t c,
                    stream_t st) {
  TIMED(RECV, ((p2p_fn)real[RECV])(b, n, t, peer, c, st));
}
static res_t w_group_start(void) { TIMED(GSTART, ((group_fn)real[GSTART])()); }
static res_t w_group_end(void) { TIMED(GEND, ((group_fn)real[GEND])()); }

static void *const wrappers[FUNCTIONS] = {
    (void *)w_allreduce, (void *)w_broadcast,   (void *)w_reduce,
    (void *)w_allgather, (void *)w_reducescatter, (void *)w_send,
    (void *)w_recv,      (void *)w_group_start, (void *)w_group_end};

void *dlsym(void *handle, const char *name) {
  if (real_dlsym == NULL) find_real_dlsym();
  void *address = real_dlsym(handle, name);
  if (address == NULL || handle == RTLD_NEXT) return address;
  Dl_info info;
  if (!dladdr(address, &info) || info.dli_fname == NULL ||
      strstr(info.dli_fname, "libnccl") == NULL)
    return address;
  for (int f = 0; f < FUNCTIONS; f++)
    if (strcmp(name, function_names[f]) == 0) {
      real[f] = address;
      return wrappers[f];
    }
  return address;
}

/* Seconds spent inside the timed NCCL functions so far, every caller and
 * call: nccl_bench --sweep reads it around each timed run (its
 * raw_in_nccl_us / ncore_in_nccl_us). */
__attribute__((visibility("default"))) double calltime_read(void) {
  return (double)all_cycles * 1e-3 / (double)slow_cycles;
}

static double ns_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static double start_ns;
static unsigned long long start_tsc;

__attribute__((constructor)) static void calltime_start(void) {
  const char *fence = getenv("CALLTIME_FENCE");
  fence_after = fence != NULL && *fence == '1';
  start_ns = ns_now();
  start_tsc = __rdtsc();
  /* The counter's rate, over 10 ms. */
  struct timespec pause = {0, 10000000};
  nanosleep(&pause, NULL);
  slow_cycles = (unsigned long long)((__rdtsc() - start_tsc) /
                                     ((ns_now() - start_ns) * 1e-6));
}

__attribute__((destructor)) static void calltime_report(void) {
  double ns_per_cycle = (ns_now() - start_ns) / (double)(__rdtsc() - start_tsc);
  const char *dir = getenv("CALLTIME_DIR"), *rank = getenv("NCORE_RANK");
  FILE *f = stderr;
  char path[4096];
  if (dir != NULL && *dir != '\0') {
    snprintf(path, sizeof path, "%s/calltime-rank%s.json", dir,
             rank ? rank : "0");
    f = fopen(path, "w");
    if (f == NULL) f = stderr;
  }
  fprintf(f, "{\"rank\": %s, \"ns_per_cycle\": %.5f, \"functions\": {",
          rank ? rank : "0", ns_per_cycle);
  const char *sep = "";
  for (int fn = 0; fn < FUNCTIONS; fn++) {
    if (calls[fn][0] + calls[fn][1] == 0) continue;
    fprintf(f, "%s\"%s\": {", sep, function_names[fn]);
    for (int s = 0; s < 2; s++)
      fprintf(f, "%s\"%s\": {\"calls\": %llu, \"over_1ms\": %llu, "
              "\"mean_ns\": %.1f, \"fence_ns\": %.1f}",
              s ? ", " : "", s ? "ncore" : "raw", calls[fn][s], slow[fn][s],
              calls[fn][s] ? cycles[fn][s] * ns_per_cycle / calls[fn][s]
                           : 0.0,
              calls[fn][s] + slow[fn][s]
                  ? fence_cycles[fn][s] * ns_per_cycle /
                        (calls[fn][s] + slow[fn][s])
                  : 0.0);
    fprintf(f, "}");
    sep = ", ";
  }
  fprintf(f, "}}\n");
  if (f != stderr) fclose(f);
}
