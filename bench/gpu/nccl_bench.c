/* bench/gpu/nccl_bench.c — raw NCCL against ncore in one process and one
 * run, on the same device, stream and buffers (the per-call cost and the multi-GPU
 * figures). Raw NCCL is the libnccl.so.2 ncore itself loaded (its own search,
 * or NCORE_NCCL_LIBRARY), reached again with dlopen(RTLD_NOLOAD): the bench
 * links neither NCCL nor CUDA, and everything else (memory, the stream,
 * copies) goes through ncore's API.
 *
 * Modes (rank 0 prints one JSON object, or writes it to --json FILE):
 *   percall (default)  8-byte calls: allreduce (also in place), broadcast, reduce, allgather,
 *                      reducescatter, send, recv, group(send+recv) (to
 *                      itself on one rank, a ring on several). Rounds of
 *                      --calls calls per side, raw and ncore interleaved (the
 *                      side that goes first alternates), best of --rounds
 *                      after a warm-up round. Collectives and the group are
 *                      timed to the end of the stream (calls per second);
 *                      send and recv are timed as enqueue calls inside a
 *                      group of --batch sends then --batch receives.
 *   --sweep MIN:MAX    sizes MIN, 2*MIN, ... MAX bytes: time per call (the
 *                      slowest rank), algorithm and bus bandwidth as
 *                      nccl-tests defines them, for both sides, interleaved,
 *                      best of --rounds; two controls, the spread a
 *                      difference must exceed to be ncore's: the raw call
 *                      timed a second time in the same rotation
 *                      (raw_again_us) and on a second raw communicator
 *                      of the same config (raw_other_comm_us); and
 *                      each side's time per call until its last call
 *                      returned (*_enqueue_us: near the time per call, the
 *                      host paces the calls, not the GPU). With
 *                      LD_PRELOAD=calltime.so (calltime.c) also how much
 *                      of that was inside NCCL (*_in_nccl_us): the rest is
 *                      the caller's, ncore's own path on its side.
 *   --count            with LD_PRELOAD=callcount.so (callcount.c): how many
 *                      NCCL and driver calls each side makes per operation.
 * Before timing, each operation's result is checked once on both sides
 * (rank r contributes r + 1), so a run on several ranks (also several ranks
 * on one GPU, NCORE_OVERSUBSCRIBE=1) proves the harness itself.
 *
 * Ranks: under ncore-run (NCORE_RANK, NCORE_NRANKS, NCORE_UNIQUE_ID), rank r
 * uses GPU NCORE_LOCAL_RANK % device count; otherwise one rank on GPU 0.
 * Usage: nccl_bench [--calls N] [--rounds R] [--batch B] [--ops a,b,...]
 *                   [--sweep MIN:MAX] [--iters N] [--count] [--json FILE] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <nccl.h>
#include <ncore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIE(...)                                          \
  do {                                                    \
    fprintf(stderr, "nccl_bench: " __VA_ARGS__);          \
    fputc('\n', stderr);                                  \
    exit(1);                                              \
  } while (0)
#define OK(call)                                                          \
  do {                                                                    \
    ncore_status_t s_ = (call);                                           \
    if (s_ != NCORE_OK)                                                   \
      DIE("%s: %s", #call, ncore_last_error_message());                   \
  } while (0)
#define NCCL_OK(call)                                                     \
  do {                                                                    \
    ncclResult_t r_ = (call);                                             \
    if (r_ != ncclSuccess) DIE("%s: NCCL error %d", #call, (int)r_);      \
  } while (0)

/* The raw NCCL entry points, from the library ncore loaded. */
static struct {
  ncclResult_t (*GetVersion)(int *);
  ncclResult_t (*GetUniqueId)(ncclUniqueId *);
  ncclResult_t (*CommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int,
                                     ncclConfig_t *);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*AllReduce)(const void *, void *, size_t, ncclDataType_t,
                            ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*Broadcast)(const void *, void *, size_t, ncclDataType_t, int,
                            ncclComm_t, cudaStream_t);
  ncclResult_t (*Reduce)(const void *, void *, size_t, ncclDataType_t,
                         ncclRedOp_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*AllGather)(const void *, void *, size_t, ncclDataType_t,
                            ncclComm_t, cudaStream_t);
  ncclResult_t (*ReduceScatter)(const void *, void *, size_t, ncclDataType_t,
                                ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t,
                       cudaStream_t);
  ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t,
                       cudaStream_t);
  ncclResult_t (*GroupStart)(void);
  ncclResult_t (*GroupEnd)(void);
} nccl;

static void *symbol(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (p == NULL) DIE("libnccl.so.2 lacks %s", name);
  return p;
}

static void load_raw_nccl(void) {
  /* ncore opened it RTLD_LOCAL; its soname finds that very copy. */
  const char *path = getenv("NCORE_NCCL_LIBRARY");
  void *lib = dlopen(path && *path ? path : "libnccl.so.2",
                     RTLD_NOW | RTLD_NOLOAD);
  if (lib == NULL) lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (lib == NULL) DIE("libnccl.so.2 is not loaded: %s", dlerror());
  *(void **)&nccl.GetVersion = symbol(lib, "ncclGetVersion");
  *(void **)&nccl.GetUniqueId = symbol(lib, "ncclGetUniqueId");
  *(void **)&nccl.CommInitRankConfig = symbol(lib, "ncclCommInitRankConfig");
  *(void **)&nccl.CommDestroy = symbol(lib, "ncclCommDestroy");
  *(void **)&nccl.AllReduce = symbol(lib, "ncclAllReduce");
  *(void **)&nccl.Broadcast = symbol(lib, "ncclBroadcast");
  *(void **)&nccl.Reduce = symbol(lib, "ncclReduce");
  *(void **)&nccl.AllGather = symbol(lib, "ncclAllGather");
  *(void **)&nccl.ReduceScatter = symbol(lib, "ncclReduceScatter");
  *(void **)&nccl.Send = symbol(lib, "ncclSend");
  *(void **)&nccl.Recv = symbol(lib, "ncclRecv");
  *(void **)&nccl.GroupStart = symbol(lib, "ncclGroupStart");
  *(void **)&nccl.GroupEnd = symbol(lib, "ncclGroupEnd");
}

/* ---- the run's state ---- */
typedef enum op {
  OP_ALLREDUCE, OP_ALLREDUCE_INPLACE, OP_BROADCAST, OP_REDUCE, OP_ALLGATHER,
  OP_REDUCESCATTER, OP_SEND, OP_RECV, OP_GROUP_SENDRECV, OP_COUNT
} op_t;
/* allreduce_inplace: on one rank NCCL launches nothing for it, so it shows
 * the host-side cost of a call alone (what the bindings' benches time). */
static const char *const op_names[OP_COUNT] = {
    "allreduce", "allreduce_inplace", "broadcast", "reduce", "allgather",
    "reducescatter", "send", "recv", "group_sendrecv"};

/* Who makes a call: raw NCCL on the bench's communicator, ncore, or raw
 * NCCL on a second communicator of the same config (the sweep's control:
 * two communicators in one process differ at a size by more than one
 * differs from itself, docs/performance.md). The per-call and count modes
 * run the first two. */
typedef enum side { SIDE_RAW, SIDE_NCORE, SIDE_RAW_OTHER, SIDE_COUNT } side_t;
static const char *const side_names[SIDE_COUNT] = {"raw NCCL", "ncore",
                                                   "raw NCCL (second comm)"};

static struct {
  int rank, nranks, device;
  ncore_comm_t comm;
  ncclComm_t raw, raw_other; /* raw_other: the sweep's only */
  ncore_stream_t stream;
  float *send, *recv; /* device buffers, nranks * max_count floats each */
  size_t max_count;
  float *sync_buf;    /* device: barriers and the slowest rank's time */
  int next, prev;     /* ring peers */
} g;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sync_stream(void) {
  OK(ncore_stream_synchronize(g.stream, NCORE_BACKEND_NCCL));
}

/* Each of n values' largest over the ranks, in one allreduce (also a
 * barrier); n <= 16 (sync_buf's 64 bytes). */
static void max_over_ranks_n(const double *mine, double *out, int n) {
  float v[16];
  for (int i = 0; i < n; i++) v[i] = (float)mine[i];
  if (g.nranks > 1) {
    OK(ncore_memcpy(g.sync_buf, v, n * sizeof *v, NCORE_MEMCPY_HOST_TO_DEVICE,
                    g.stream, NCORE_BACKEND_NCCL));
    OK(ncore_allreduce(g.comm, g.sync_buf, g.sync_buf, (size_t)n,
                       NCORE_FLOAT32, NCORE_MAX, g.stream));
    OK(ncore_memcpy(v, g.sync_buf, n * sizeof *v, NCORE_MEMCPY_DEVICE_TO_HOST,
                    g.stream, NCORE_BACKEND_NCCL));
    sync_stream();
  }
  for (int i = 0; i < n; i++) out[i] = v[i];
}

/* The largest value of x over the ranks (also a barrier). */
static double max_over_ranks(double x) {
  double out;
  max_over_ranks_n(&x, &out, 1);
  return out;
}

static void barrier(void) { (void)max_over_ranks(0); }

/* Issues op once on one side with count floats per rank (send/recv: to the
 * next rank, from the previous, each in a group of its own on one rank). */
static void issue(op_t op, side_t side, size_t count) {
  cudaStream_t s = (cudaStream_t)g.stream;
  float *sb = g.send, *rb = g.recv;
  ncclComm_t raw = side == SIDE_RAW_OTHER ? g.raw_other : g.raw;
  if (side == SIDE_NCORE) {
    switch (op) {
      case OP_ALLREDUCE:
        OK(ncore_allreduce(g.comm, sb, rb, count, NCORE_FLOAT32, NCORE_SUM,
                           g.stream));
        return;
      case OP_ALLREDUCE_INPLACE:
        OK(ncore_allreduce(g.comm, rb, rb, count, NCORE_FLOAT32, NCORE_SUM,
                           g.stream));
        return;
      case OP_BROADCAST:
        OK(ncore_broadcast(g.comm, sb, rb, count, NCORE_FLOAT32, 0, g.stream));
        return;
      case OP_REDUCE:
        OK(ncore_reduce(g.comm, sb, rb, count, NCORE_FLOAT32, NCORE_SUM, 0,
                        g.stream));
        return;
      case OP_ALLGATHER:
        OK(ncore_allgather(g.comm, sb, rb, count, NCORE_FLOAT32, g.stream));
        return;
      case OP_REDUCESCATTER:
        OK(ncore_reduce_scatter(g.comm, sb, rb, count, NCORE_FLOAT32,
                                NCORE_SUM, g.stream));
        return;
      case OP_SEND:
        OK(ncore_send(g.comm, sb, count, NCORE_FLOAT32, g.next, g.stream));
        return;
      case OP_RECV:
        OK(ncore_recv(g.comm, rb, count, NCORE_FLOAT32, g.prev, g.stream));
        return;
      case OP_GROUP_SENDRECV:
        OK(ncore_group_start());
        OK(ncore_send(g.comm, sb, count, NCORE_FLOAT32, g.next, g.stream));
        OK(ncore_recv(g.comm, rb, count, NCORE_FLOAT32, g.prev, g.stream));
        OK(ncore_group_end());
        return;
      case OP_COUNT: break;
    }
    return;
  }
  switch (op) {
    case OP_ALLREDUCE:
      NCCL_OK(nccl.AllReduce(sb, rb, count, ncclFloat32, ncclSum, raw, s));
      return;
    case OP_ALLREDUCE_INPLACE:
      NCCL_OK(nccl.AllReduce(rb, rb, count, ncclFloat32, ncclSum, raw, s));
      return;
    case OP_BROADCAST:
      NCCL_OK(nccl.Broadcast(sb, rb, count, ncclFloat32, 0, raw, s));
      return;
    case OP_REDUCE:
      NCCL_OK(nccl.Reduce(sb, rb, count, ncclFloat32, ncclSum, 0, raw, s));
      return;
    case OP_ALLGATHER:
      NCCL_OK(nccl.AllGather(sb, rb, count, ncclFloat32, raw, s));
      return;
    case OP_REDUCESCATTER:
      NCCL_OK(nccl.ReduceScatter(sb, rb, count, ncclFloat32, ncclSum, raw, s));
      return;
    case OP_SEND:
      NCCL_OK(nccl.Send(sb, count, ncclFloat32, g.next, raw, s));
      return;
    case OP_RECV:
      NCCL_OK(nccl.Recv(rb, count, ncclFloat32, g.prev, raw, s));
      return;
    case OP_GROUP_SENDRECV:
      NCCL_OK(nccl.GroupStart());
      NCCL_OK(nccl.Send(sb, count, ncclFloat32, g.next, raw, s));
      NCCL_OK(nccl.Recv(rb, count, ncclFloat32, g.prev, raw, s));
      NCCL_OK(nccl.GroupEnd());
      return;
    case OP_COUNT: break;
  }
}

static void group_start(side_t side) {
  if (side == SIDE_NCORE) OK(ncore_group_start());
  else NCCL_OK(nccl.GroupStart());
}
static void group_end(side_t side) {
  if (side == SIDE_NCORE) OK(ncore_group_end());
  else NCCL_OK(nccl.GroupEnd());
}

/* Seconds timed_calls' last run of a collective or group spent until its
 * last call returned, before the synchronisation: near the whole time,
 * the host paces the calls; well below it, the GPU does. */
static double last_enqueue_s;
/* With calltime.so preloaded (bench/gpu/calltime.c): its clock of the time
 * spent inside NCCL's enqueue calls, and how much of last_enqueue_s that
 * was (the rest is the caller's: ncore's own path on its side). */
typedef double (*calltime_read_fn)(void);
static calltime_read_fn calltime_read;
static double last_in_nccl_s;

/* Runs op `calls` times; returns seconds. Send and recv are enqueued in
 * groups of `batch` sends then `batch` receives, and only the calls of the
 * op named are timed (the matching half and the group's end are not). */
static double timed_calls(op_t op, side_t side, size_t count, long calls,
                          long batch) {
  barrier();
  if (op == OP_SEND || op == OP_RECV) {
    double spent = 0;
    for (long done = 0; done < calls; done += batch) {
      long n = calls - done < batch ? calls - done : batch;
      group_start(side);
      double t0 = now_s();
      for (long i = 0; i < n; i++) issue(OP_SEND, side, count);
      double t1 = now_s();
      for (long i = 0; i < n; i++) issue(OP_RECV, side, count);
      double t2 = now_s();
      group_end(side);
      spent += op == OP_SEND ? t1 - t0 : t2 - t1;
    }
    sync_stream();
    return spent;
  }
  double in_nccl = calltime_read ? calltime_read() : 0;
  double t0 = now_s();
  for (long i = 0; i < calls; i++) issue(op, side, count);
  last_enqueue_s = now_s() - t0;
  if (calltime_read) last_in_nccl_s = calltime_read() - in_nccl;
  sync_stream();
  return now_s() - t0;
}

/* ---- result checks: rank r sends r + 1 everywhere ---- */
static void fill(float *device, size_t n, float value) {
  float *host = malloc(n * sizeof *host);
  if (host == NULL) DIE("out of memory");
  for (size_t i = 0; i < n; i++) host[i] = value;
  OK(ncore_memcpy(device, host, n * sizeof *host, NCORE_MEMCPY_HOST_TO_DEVICE,
                  g.stream, NCORE_BACKEND_NCCL));
  sync_stream();
  free(host);
}

/* What element i of recv must hold after op with count floats per rank;
 * NAN where the op leaves it undefined on this rank. */
static float expected(op_t op, size_t i, size_t count) {
  float n = (float)g.nranks, sum = n * (n + 1) / 2;
  switch (op) {
    case OP_ALLREDUCE:
    case OP_ALLREDUCE_INPLACE: return i < count ? sum : NAN;
    case OP_BROADCAST: return i < count ? 1.0f : NAN;
    case OP_REDUCE: return g.rank == 0 && i < count ? sum : NAN;
    case OP_ALLGATHER:
      return i < count * (size_t)g.nranks ? (float)(i / count + 1) : NAN;
    case OP_REDUCESCATTER: return i < count ? sum : NAN;
    case OP_SEND:
    case OP_RECV:
    case OP_GROUP_SENDRECV: return i < count ? (float)(g.prev + 1) : NAN;
    case OP_COUNT: break;
  }
  return NAN;
}

/* Runs op once on one side and checks recv; returns 1 when right. */
static int check_op(op_t op, side_t side, size_t count) {
  size_t n = count * (size_t)g.nranks;
  fill(g.send, n, (float)(g.rank + 1));
  fill(g.recv, n, op == OP_ALLREDUCE_INPLACE ? (float)(g.rank + 1) : -1.0f);
  issue(op == OP_SEND || op == OP_RECV ? OP_GROUP_SENDRECV : op, side,
        count);
  sync_stream();
  float *host = malloc(n * sizeof *host);
  if (host == NULL) DIE("out of memory");
  OK(ncore_memcpy(host, g.recv, n * sizeof *host, NCORE_MEMCPY_DEVICE_TO_HOST,
                  g.stream, NCORE_BACKEND_NCCL));
  sync_stream();
  int right = 1;
  for (size_t i = 0; i < n && right; i++) {
    float want = expected(op, i, count);
    if (!isnan(want) && host[i] != want) {
      fprintf(stderr, "nccl_bench: rank %d: %s on %s: recv[%zu] = %g, "
              "expected %g\n", g.rank, op_names[op], side_names[side], i, host[i],
              want);
      right = 0;
    }
  }
  free(host);
  return (int)max_over_ranks(right ? 0 : 1) == 0;
}

/* ---- the call counter (callcount.c), when preloaded ---- */
typedef int (*count_read_fn)(const char **names, long long *counts, int cap);
#define MAX_COUNTED 256

/* Appends to out the calls per operation each counted function took
 * between two snapshots, as a JSON object. */
static void count_delta(FILE *out, int n0, const char **names0,
                        const long long *before, int n1, const char **names1,
                        const long long *after, long ops) {
  fputc('{', out);
  int first = 1;
  for (int i = 0; i < n1; i++) {
    long long b = 0;
    for (int j = 0; j < n0; j++)
      if (strcmp(names0[j], names1[i]) == 0) b = before[j];
    if (after[i] == b) continue;
    fprintf(out, "%s\"%s\": %.3f", first ? "" : ", ", names1[i],
            (double)(after[i] - b) / (double)ops);
    first = 0;
  }
  fputc('}', out);
}

/* Snapshots the counters around `ops` calls of op alone (send, recv: the
 * sends or the receives of one group), so neither the harness's barriers
 * nor the stream's synchronisation are counted. */
static void count_calls(op_t op, side_t side, long ops, count_read_fn read,
                        const char **names0, long long *before, int *n0,
                        const char **names1, long long *after, int *n1) {
  barrier();
  if (op == OP_SEND || op == OP_RECV) {
    group_start(side);
    if (op == OP_SEND) *n0 = read(names0, before, MAX_COUNTED);
    for (long i = 0; i < ops; i++) issue(OP_SEND, side, 2);
    if (op == OP_SEND) *n1 = read(names1, after, MAX_COUNTED);
    if (op == OP_RECV) *n0 = read(names0, before, MAX_COUNTED);
    for (long i = 0; i < ops; i++) issue(OP_RECV, side, 2);
    if (op == OP_RECV) *n1 = read(names1, after, MAX_COUNTED);
    group_end(side);
  } else {
    *n0 = read(names0, before, MAX_COUNTED);
    for (long i = 0; i < ops; i++) issue(op, side, 2);
    *n1 = read(names1, after, MAX_COUNTED);
  }
  sync_stream();
}

/* ---- options ---- */
static struct {
  long calls, rounds, batch, iters;
  int ops[OP_COUNT];
  size_t sweep_min, sweep_max;
  int count;
  const char *json;
} opt = {20000, 5, 64, 0, {0}, 0, 0, 0, NULL};

static void parse(int argc, char **argv) {
  for (int i = 0; i < OP_COUNT; i++) opt.ops[i] = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--count") == 0) { opt.count = 1; continue; }
    if (v == NULL) DIE("%s needs a value (see the usage in nccl_bench.c)", a);
    i++;
    if (strcmp(a, "--calls") == 0) opt.calls = atol(v);
    else if (strcmp(a, "--rounds") == 0) opt.rounds = atol(v);
    else if (strcmp(a, "--batch") == 0) opt.batch = atol(v);
    else if (strcmp(a, "--iters") == 0) opt.iters = atol(v);
    else if (strcmp(a, "--json") == 0) opt.json = v;
    else if (strcmp(a, "--sweep") == 0) {
      unsigned long long lo = 0, hi = 0;
      if (sscanf(v, "%llu:%llu", &lo, &hi) != 2 || lo < 4 || hi < lo)
        DIE("--sweep MIN:MAX in bytes, 4 <= MIN <= MAX (got %s)", v);
      opt.sweep_min = lo;
      opt.sweep_max = hi;
    } else if (strcmp(a, "--ops") == 0) {
      for (int k = 0; k < OP_COUNT; k++) opt.ops[k] = 0;
      char *list = strdup(v), *save = NULL;
      for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int k = 0; k < OP_COUNT; k++)
          if (strcmp(t, op_names[k]) == 0) opt.ops[k] = found = 1;
        if (!found) DIE("--ops: unknown operation %s", t);
      }
      free(list);
    } else {
      DIE("unknown option %s", a);
    }
  }
  if (opt.calls < 1 || opt.rounds < 1 || opt.batch < 1)
    DIE("--calls, --rounds and --batch must be >= 1");
}

/* ---- setup ---- */
/* A raw NCCL communicator over the ranks, with NCCL's defaults (as
 * ncclCommInitRank's: blocking); its id travels over the ncore one, in
 * g.send (setup's buffers must exist). */
static void new_raw_comm(ncclComm_t *out) {
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  if (g.rank == 0) NCCL_OK(nccl.GetUniqueId(&id));
  if (g.nranks > 1) {
    OK(ncore_memcpy(g.send, &id, sizeof id, NCORE_MEMCPY_HOST_TO_DEVICE,
                    g.stream, NCORE_BACKEND_NCCL));
    OK(ncore_broadcast(g.comm, g.send, g.send, sizeof id, NCORE_UINT8, 0,
                       g.stream));
    OK(ncore_memcpy(&id, g.send, sizeof id, NCORE_MEMCPY_DEVICE_TO_HOST,
                    g.stream, NCORE_BACKEND_NCCL));
    sync_stream();
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  NCCL_OK(nccl.CommInitRankConfig(out, g.nranks, id, g.rank, &config));
}

static void setup(void) {
  int count = 0;
  OK(ncore_device_count(NCORE_BACKEND_NCCL, &count));
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.backend = NCORE_BACKEND_NCCL;
  const char *nranks = getenv("NCORE_NRANKS");
  if (nranks != NULL && *nranks != '\0') {
    const char *local = getenv("NCORE_LOCAL_RANK");
    if (local == NULL || *local == '\0') local = getenv("NCORE_RANK");
    config.device = (int32_t)(atoi(local ? local : "0") % count);
    OK(ncore_comm_init_from_env(&g.comm, &config));
  } else {
    config.device = 0;
    ncore_unique_id_t id;
    OK(ncore_get_unique_id(&id, NCORE_BACKEND_NCCL));
    OK(ncore_comm_init_rank(&g.comm, 1, &id, 0, &config));
  }
  OK(ncore_comm_rank(g.comm, &g.rank));
  OK(ncore_comm_size(g.comm, &g.nranks));
  OK(ncore_comm_device(g.comm, &g.device));
  OK(ncore_device_set(NCORE_BACKEND_NCCL, g.device));
  g.next = (g.rank + 1) % g.nranks;
  g.prev = (g.rank + g.nranks - 1) % g.nranks;
  load_raw_nccl();
  OK(ncore_stream_create(&g.stream, NCORE_BACKEND_NCCL));
  g.max_count = opt.sweep_max ? opt.sweep_max / sizeof(float) : 2;
  if (g.max_count < 64) g.max_count = 64;
  size_t bytes = g.max_count * (size_t)g.nranks * sizeof(float);
  OK(ncore_mem_alloc((void **)&g.send, bytes, NCORE_BACKEND_NCCL));
  OK(ncore_mem_alloc((void **)&g.recv, bytes, NCORE_BACKEND_NCCL));
  OK(ncore_mem_alloc((void **)&g.sync_buf, 64, NCORE_BACKEND_NCCL));
  new_raw_comm(&g.raw);
  if (opt.sweep_max) new_raw_comm(&g.raw_other);
}

static void teardown(void) {
  sync_stream();
  NCCL_OK(nccl.CommDestroy(g.raw));
  if (g.raw_other) NCCL_OK(nccl.CommDestroy(g.raw_other));
  OK(ncore_mem_free(g.send, NCORE_BACKEND_NCCL));
  OK(ncore_mem_free(g.recv, NCORE_BACKEND_NCCL));
  OK(ncore_mem_free(g.sync_buf, NCORE_BACKEND_NCCL));
  OK(ncore_stream_destroy(g.stream, NCORE_BACKEND_NCCL));
  OK(ncore_comm_destroy(g.comm));
}

/* nccl-tests' bytes of one call with count floats per rank, and its bus
 * bandwidth factor. */
static size_t op_bytes(op_t op, size_t count) {
  size_t b = count * sizeof(float);
  return op == OP_ALLGATHER || op == OP_REDUCESCATTER ? b * (size_t)g.nranks
                                                      : b;
}
static double bus_factor(op_t op) {
  double n = g.nranks;
  switch (op) {
    case OP_ALLREDUCE:
    case OP_ALLREDUCE_INPLACE: return 2 * (n - 1) / n;
    case OP_ALLGATHER:
    case OP_REDUCESCATTER: return (n - 1) / n;
    default: return 1;
  }
}

int main(int argc, char **argv) {
  parse(argc, argv);
  setup();
  int version = 0;
  NCCL_OK(nccl.GetVersion(&version));
  FILE *out = stdout;
  if (g.rank == 0 && opt.json != NULL && (out = fopen(opt.json, "w")) == NULL)
    DIE("cannot write %s", opt.json);
  const char *mode = opt.count ? "count" : opt.sweep_max ? "sweep" : "percall";
  if (g.rank == 0)
    fprintf(out, "{\"bench\": \"nccl_bench\", \"mode\": \"%s\", "
            "\"nccl_version\": %d, \"nranks\": %d, \"calls\": %ld, "
            "\"rounds\": %ld, \"batch\": %ld, \"results\": [",
            mode, version, g.nranks, opt.calls, opt.rounds, opt.batch);
  int first = 1;
  int all_right = 1;
  *(void **)&calltime_read = dlsym(RTLD_DEFAULT, "calltime_read");
  for (int op = 0; op < OP_COUNT; op++) {
    if (!opt.ops[op]) continue;
    for (int side = 0; side < SIDE_COUNT; side++)
      if ((side != SIDE_RAW_OTHER || g.raw_other) &&
          !check_op((op_t)op, (side_t)side, 2))
        all_right = 0;
  }
  if (opt.count) {
    count_read_fn read = (count_read_fn)dlsym(RTLD_DEFAULT, "callcount_read");
    if (read == NULL)
      DIE("--count needs LD_PRELOAD=.../callcount.so (bench/gpu/callcount.c)");
    static const char *names0[MAX_COUNTED], *names1[MAX_COUNTED];
    static long long before[MAX_COUNTED], after[MAX_COUNTED];
    long ops = opt.calls < 1000 ? opt.calls : 1000;
    for (int op = 0; op < OP_COUNT; op++) {
      if (!opt.ops[op]) continue;
      if (g.rank == 0) fprintf(out, "%s{\"op\": \"%s\"", first ? "" : ", ", op_names[op]);
      first = 0;
      for (int side = 0; side < 2; side++) {
        (void)timed_calls((op_t)op, (side_t)side, 2, 10, opt.batch); /* warm */
        int n0 = 0, n1 = 0;
        count_calls((op_t)op, (side_t)side, ops, read, names0, before, &n0, names1,
                    after, &n1);
        if (g.rank == 0) {
          fprintf(out, ", \"%s\": ", side ? "ncore" : "raw");
          count_delta(out, n0, names0, before, n1, names1, after, ops);
        }
      }
      if (g.rank == 0) fputc('}', out);
    }
  } else if (opt.sweep_max) {
    for (size_t bytes = opt.sweep_min; bytes <= opt.sweep_max; bytes *= 2) {
      size_t count = bytes / sizeof(float);
      if (count == 0) continue;
      for (int op = 0; op < OP_COUNT; op++) {
        if (!opt.ops[op] || op == OP_SEND || op == OP_RECV) continue;
        long iters = opt.iters > 0 ? opt.iters
                     : bytes <= (1u << 20) ? 200
                     : (long)(2e9 / (double)bytes) + 5;
        /* Slots: raw, ncore, raw again (the same call a second time in
         * the same rotation: the run's noise) and raw on the second
         * communicator (what two NCCL communicators differ by). A
         * difference of ncore's means something only beyond both. */
        enum { SLOTS = 4 };
        static const side_t slot_side[SLOTS] = {SIDE_RAW, SIDE_NCORE, SIDE_RAW,
                                                SIDE_RAW_OTHER};
        double best[SLOTS], enqueue[SLOTS] = {0}, in_nccl[SLOTS] = {0};
        for (int k = 0; k < SLOTS; k++) best[k] = 1e30;
        for (long r = 0; r <= opt.rounds; r++) {
          for (int k = 0; k < SLOTS; k++) {
            int slot = (int)((r + k) % SLOTS);
            double t = timed_calls((op_t)op, slot_side[slot], count, iters,
                                   opt.batch) / iters;
            /* One barrier for the three figures: the slowest rank's each. */
            double mine[3] = {t, last_enqueue_s / iters, last_in_nccl_s / iters},
                   slowest[3];
            max_over_ranks_n(mine, slowest, 3);
            if (r > 0 && slowest[0] < best[slot]) {
              best[slot] = slowest[0];
              enqueue[slot] = slowest[1];
              in_nccl[slot] = slowest[2];
            }
          }
        }
        if (g.rank == 0) {
          double b = (double)op_bytes((op_t)op, count), f = bus_factor((op_t)op);
          fprintf(out,
                  "%s{\"op\": \"%s\", \"bytes\": %.0f, \"raw_us\": %.3f, "
                  "\"ncore_us\": %.3f, \"raw_again_us\": %.3f, "
                  "\"raw_other_comm_us\": %.3f, "
                  "\"raw_enqueue_us\": %.3f, \"ncore_enqueue_us\": %.3f, "
                  "\"raw_algbw_GBs\": %.3f, \"ncore_algbw_GBs\": %.3f, "
                  "\"raw_busbw_GBs\": %.3f, \"ncore_busbw_GBs\": %.3f",
                  first ? "" : ", ", op_names[op], b, best[0] * 1e6,
                  best[1] * 1e6, best[2] * 1e6, best[3] * 1e6, enqueue[0] * 1e6,
                  enqueue[1] * 1e6, b / best[0] / 1e9, b / best[1] / 1e9,
                  b / best[0] / 1e9 * f, b / best[1] / 1e9 * f);
          if (calltime_read)
            fprintf(out, ", \"raw_in_nccl_us\": %.3f, \"ncore_in_nccl_us\": %.3f",
                    in_nccl[0] * 1e6, in_nccl[1] * 1e6);
          fputc('}', out);
          first = 0;
        }
      }
    }
  } else {
    for (int op = 0; op < OP_COUNT; op++) {
      if (!opt.ops[op]) continue;
      double best[2] = {1e30, 1e30};
      for (long r = 0; r <= opt.rounds; r++) { /* round 0 warms up */
        for (int k = 0; k < 2; k++) {
          int side = (int)((r + k) % 2);
          double t = max_over_ranks(
              timed_calls((op_t)op, (side_t)side, 2, opt.calls, opt.batch) /
              opt.calls);
          if (r > 0 && t < best[side]) best[side] = t;
        }
      }
      if (g.rank == 0) {
        fprintf(out,
                "%s{\"op\": \"%s\", \"bytes\": 8, \"raw_us\": %.4f, "
                "\"ncore_us\": %.4f, \"added_us\": %.4f, \"ratio\": %.4f}",
                first ? "" : ", ", op_names[op], best[0] * 1e6, best[1] * 1e6,
                (best[1] - best[0]) * 1e6, best[1] / best[0]);
        first = 0;
      }
    }
  }
  if (g.rank == 0) {
    fprintf(out, "], \"checked\": %s}\n", all_right ? "true" : "false");
    if (out != stdout) fclose(out);
  }
  teardown();
  return all_right ? 0 : 1;
}
