// bench/gpu/small_allreduce.cu — allreduce (or, with --op, allgather or
// reduce-scatter: bytes then name each rank's block) per call from 8 B up, eager and
// replayed from a CUDA graph, in one process per rank and one run: ncore
// with its small-message path (NCORE_ALGO as the environment
// says: auto unless set), ncore forced to NCCL's kernels (a communicator
// made with NCORE_ALGO=nccl), raw NCCL (the libnccl ncore loaded, reached
// with dlopen RTLD_NOLOAD), and raw NCCL timed a second time in the same
// rotation (the control: the spread a difference must exceed).
//
// Eager: --calls calls between two events on one stream, the host issuing
// them as fast as it can (what a C program sees). Graph: --graph-calls
// calls captured once, the graph replayed --replays times between two
// events (what an inference engine sees). Each figure is the slowest
// rank's time per call, best of --rounds rounds; the sides take turns
// going first. Before timing, every side's result is checked at every size
// on every rank (values (rank + 1) + i % 5, exact in float and bfloat16),
// and ncore's results are compared bitwise across ranks.
//
// Run under ncore-run, one rank per GPU:
//   build/bin/ncore-run -n 4 -- build/bin/small_allreduce [--min 8] [--max 67108864]
//       [--dtype float32|bfloat16] [--calls 200] [--graph-calls 20] [--replays 50]
//       [--rounds 5] [--op allreduce|allgather|reduce_scatter] [--json FILE]
// Rank 0 prints one JSON object per size (and writes them to --json FILE).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>
#include <ncore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIE(...) do { fprintf(stderr, "small_allreduce: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)
#define OK(call) do { ncore_status_t s_ = (call); if (s_ != NCORE_OK) DIE("%s: %s", #call, ncore_last_error_message()); } while (0)
#define CU(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) DIE("%s: %s", #call, cudaGetErrorString(e_)); } while (0)
#define NK(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) DIE("%s: NCCL %d", #call, (int)r_); } while (0)

enum side { RAW, AUTO, FORCED_NCCL, RAW_AGAIN, SIDES };
static const char *side_names[SIDES] = {"raw_nccl", "ncore", "ncore_nccl", "raw_nccl_again"};

static struct {
  ncclResult_t (*GetUniqueId)(ncclUniqueId *);
  ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*AllReduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
                            ncclComm_t, cudaStream_t);
  ncclResult_t (*AllGather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t,
                            cudaStream_t);
  ncclResult_t (*ReduceScatter)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
                                ncclComm_t, cudaStream_t);
} raw;

enum op { ALLREDUCE, ALLGATHER, REDUCE_SCATTER };
static enum op op = ALLREDUCE;
static const char *op_names[] = {"allreduce", "allgather", "reduce_scatter"};

static int rank, nranks;
static ncore_comm_t comm_auto, comm_nccl;
static ncclComm_t raw_comm;
static cudaStream_t stream;
static void *sendbuf, *recvbuf;
static float *scratch; /* device: barrier and reductions of the figures */
static ncore_dtype_t dtype = NCORE_FLOAT32;
static size_t elem = 4;

static void load_raw(void) {
  const char *path = getenv("NCORE_NCCL_LIBRARY");
  void *lib = dlopen(path && *path ? path : "libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (lib == NULL) lib = dlopen(path && *path ? path : "libnccl.so.2", RTLD_NOW);
  if (lib == NULL) DIE("no libnccl: %s", dlerror());
  *(void **)&raw.GetUniqueId = dlsym(lib, "ncclGetUniqueId");
  *(void **)&raw.CommInitRank = dlsym(lib, "ncclCommInitRank");
  *(void **)&raw.CommDestroy = dlsym(lib, "ncclCommDestroy");
  *(void **)&raw.AllReduce = dlsym(lib, "ncclAllReduce");
  *(void **)&raw.AllGather = dlsym(lib, "ncclAllGather");
  *(void **)&raw.ReduceScatter = dlsym(lib, "ncclReduceScatter");
  if (!raw.GetUniqueId || !raw.CommInitRank || !raw.CommDestroy || !raw.AllReduce ||
      !raw.AllGather || !raw.ReduceScatter)
    DIE("libnccl lacks a symbol");
}

/* Rank 0's bytes to every rank, through comm_auto. */
static void share(void *bytes, size_t n) {
  void *dev;
  CU(cudaMalloc(&dev, n));
  CU(cudaMemcpy(dev, bytes, n, cudaMemcpyHostToDevice));
  OK(ncore_broadcast(comm_auto, dev, dev, n, NCORE_UINT8, 0, (ncore_stream_t)stream));
  CU(cudaStreamSynchronize(stream));
  CU(cudaMemcpy(bytes, dev, n, cudaMemcpyDeviceToHost));
  CU(cudaFree(dev));
}

/* The largest x over ranks (the slowest rank's time). */
static double slowest(double x) {
  float v = (float)x;
  CU(cudaMemcpy(scratch, &v, 4, cudaMemcpyHostToDevice));
  OK(ncore_allreduce(comm_nccl, scratch, scratch, 1, NCORE_FLOAT32, NCORE_MAX, (ncore_stream_t)stream));
  CU(cudaStreamSynchronize(stream));
  CU(cudaMemcpy(&v, scratch, 4, cudaMemcpyDeviceToHost));
  return v;
}

static void barrier(void) { (void)slowest(0); }

/* One call of the op on side, count elements a rank's block. */
static void issue(int side, size_t count) {
  ncclDataType_t t = dtype == NCORE_FLOAT32 ? ncclFloat32 : ncclBfloat16;
  ncore_comm_t comm = side == AUTO ? comm_auto : comm_nccl;
  ncore_stream_t s = (ncore_stream_t)stream;
  if (side == RAW || side == RAW_AGAIN) {
    if (op == ALLREDUCE) NK(raw.AllReduce(sendbuf, recvbuf, count, t, ncclSum, raw_comm, stream));
    else if (op == ALLGATHER) NK(raw.AllGather(sendbuf, recvbuf, count, t, raw_comm, stream));
    else NK(raw.ReduceScatter(sendbuf, recvbuf, count, t, ncclSum, raw_comm, stream));
    return;
  }
  if (op == ALLREDUCE) OK(ncore_allreduce(comm, sendbuf, recvbuf, count, dtype, NCORE_SUM, s));
  else if (op == ALLGATHER) OK(ncore_allgather(comm, sendbuf, recvbuf, count, dtype, s));
  else OK(ncore_reduce_scatter(comm, sendbuf, recvbuf, count, dtype, NCORE_SUM, s));
}

__global__ void fill(void *buf, size_t count, int rank, int bf16) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x) {
    float v = (float)(rank + 1) + (float)(i % 5);
    if (bf16) ((__nv_bfloat16 *)buf)[i] = __float2bfloat16(v);
    else ((float *)buf)[i] = v;
  }
}

/* What element i of recvbuf must be: the inputs are (rank + 1) + i % 5. */
static float expected(size_t i, size_t count) {
  if (op == ALLGATHER) return (float)(i / count + 1) + (float)(i % count % 5);
  size_t at = op == REDUCE_SCATTER ? (size_t)rank * count + i : i;
  return (float)(nranks * (nranks + 1) / 2) + (float)nranks * (float)(at % 5);
}

/* Checks recvbuf (expected); returns its checksum (bitwise, for the
 * comparison across ranks). */
static unsigned long long check(int side, size_t count) {
  size_t out_count = op == ALLGATHER ? count * nranks : count;
  size_t bytes = out_count * elem;
  unsigned char *host = (unsigned char *)malloc(bytes);
  CU(cudaMemcpy(host, recvbuf, bytes, cudaMemcpyDeviceToHost));
  unsigned long long sum = 1469598103934665603ull;
  for (size_t i = 0; i < out_count; i++) {
    float want = expected(i, count);
    float got;
    if (elem == 4) memcpy(&got, host + 4 * i, 4);
    else { uint32_t b = (uint32_t)((uint16_t *)host)[i] << 16; memcpy(&got, &b, 4); }
    if (got != want) DIE("%s, %zu elements: element %zu is %g, not %g (rank %d)", side_names[side],
                         count, i, got, want, rank);
  }
  for (size_t i = 0; i < bytes; i++) sum = (sum ^ host[i]) * 1099511628211ull;
  free(host);
  return sum;
}

static double time_eager(int side, size_t count, int calls) {
  cudaEvent_t a, b;
  CU(cudaEventCreate(&a)); CU(cudaEventCreate(&b));
  barrier();
  CU(cudaEventRecord(a, stream));
  for (int i = 0; i < calls; i++) issue(side, count);
  CU(cudaEventRecord(b, stream));
  CU(cudaEventSynchronize(b));
  float ms = 0;
  CU(cudaEventElapsedTime(&ms, a, b));
  CU(cudaEventDestroy(a)); CU(cudaEventDestroy(b));
  return slowest(ms * 1000.0 / calls);
}

static double time_graph(int side, size_t count, int per_graph, int replays) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CU(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < per_graph; i++) issue(side, count);
  CU(cudaStreamEndCapture(stream, &graph));
  CU(cudaGraphInstantiate(&exec, graph, 0));
  CU(cudaGraphLaunch(exec, stream)); /* warm */
  CU(cudaStreamSynchronize(stream));
  cudaEvent_t a, b;
  CU(cudaEventCreate(&a)); CU(cudaEventCreate(&b));
  barrier();
  CU(cudaEventRecord(a, stream));
  for (int i = 0; i < replays; i++) CU(cudaGraphLaunch(exec, stream));
  CU(cudaEventRecord(b, stream));
  CU(cudaEventSynchronize(b));
  float ms = 0;
  CU(cudaEventElapsedTime(&ms, a, b));
  CU(cudaEventDestroy(a)); CU(cudaEventDestroy(b));
  CU(cudaGraphExecDestroy(exec));
  CU(cudaGraphDestroy(graph));
  return slowest(ms * 1000.0 / ((double)per_graph * replays));
}

int main(int argc, char **argv) {
  size_t min = 8, max = 64u << 20;
  int calls = 200, per_graph = 20, replays = 50, rounds = 5;
  const char *json = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--min") && i + 1 < argc) min = strtoull(argv[++i], 0, 0);
    else if (!strcmp(argv[i], "--max") && i + 1 < argc) max = strtoull(argv[++i], 0, 0);
    else if (!strcmp(argv[i], "--calls") && i + 1 < argc) calls = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--graph-calls") && i + 1 < argc) per_graph = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--replays") && i + 1 < argc) replays = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!strcmp(argv[i], "--op") && i + 1 < argc) {
      const char *o = argv[++i];
      if (!strcmp(o, "allgather")) op = ALLGATHER;
      else if (!strcmp(o, "reduce_scatter")) op = REDUCE_SCATTER;
      else if (strcmp(o, "allreduce")) DIE("--op: allreduce, allgather or reduce_scatter");
    }
    else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
      const char *d = argv[++i];
      if (!strcmp(d, "bfloat16")) { dtype = NCORE_BFLOAT16; elem = 2; }
      else if (strcmp(d, "float32")) DIE("--dtype: float32 or bfloat16");
    } else DIE("unknown argument %s", argv[i]);
  }
  const char *local = getenv("NCORE_LOCAL_RANK");
  int devices = 0;
  CU(cudaGetDeviceCount(&devices));
  CU(cudaSetDevice(local ? atoi(local) % devices : 0));
  OK(ncore_comm_init_from_env(&comm_auto, NULL));
  OK(ncore_comm_rank(comm_auto, &rank));
  OK(ncore_comm_size(comm_auto, &nranks));
  CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ncore_unique_id_t id;
  if (rank == 0) OK(ncore_get_unique_id(&id, NCORE_BACKEND_NCCL));
  share(&id, sizeof id);
  const char *asked = getenv("NCORE_ALGO");
  char *kept = asked ? strdup(asked) : NULL;
  setenv("NCORE_ALGO", "nccl", 1);
  OK(ncore_comm_init_rank(&comm_nccl, nranks, &id, rank, NULL));
  if (kept) setenv("NCORE_ALGO", kept, 1); else unsetenv("NCORE_ALGO");
  load_raw();
  ncclUniqueId raw_id;
  if (rank == 0) NK(raw.GetUniqueId(&raw_id));
  share(&raw_id, sizeof raw_id);
  NK(raw.CommInitRank(&raw_comm, nranks, raw_id, rank));
  CU(cudaMalloc(&sendbuf, op == REDUCE_SCATTER ? max * nranks : max));
  CU(cudaMalloc(&recvbuf, op == ALLGATHER ? max * nranks : max));
  CU(cudaMalloc(&scratch, 64));
  FILE *out = rank == 0 && json ? fopen(json, "w") : NULL;
  for (size_t bytes = min; bytes <= max; bytes *= 2) {
    size_t count = bytes / elem;
    if (count == 0) continue;
    fill<<<64, 256, 0, stream>>>(sendbuf, op == REDUCE_SCATTER ? count * nranks : count,
                                 rank, elem == 2);
    unsigned long long sums[SIDES] = {0};
    for (int side = 0; side < SIDES; side++) {
      CU(cudaMemsetAsync(recvbuf, 0, op == ALLGATHER ? bytes * nranks : bytes, stream));
      issue(side, count);
      CU(cudaStreamSynchronize(stream));
      sums[side] = check(side, count);
    }
    /* ncore's result is the same bytes on every rank (each rank's own
     * block for a reduce-scatter). */
    double low = -(double)(sums[AUTO] & 0xffffff), high = (double)(sums[AUTO] & 0xffffff);
    if (op != REDUCE_SCATTER && (slowest(low) != low || slowest(high) != high))
      DIE("ncore's results differ between ranks at %zu bytes", bytes);
    double eager[SIDES], graph[SIDES];
    for (int s = 0; s < SIDES; s++) eager[s] = graph[s] = 1e30;
    for (int r = 0; r < rounds; r++)
      for (int k = 0; k < SIDES; k++) {
        int side = (k + r) % SIDES;
        double e = time_eager(side, count, calls);
        double g = time_graph(side, count, per_graph, replays);
        if (e < eager[side]) eager[side] = e;
        if (g < graph[side]) graph[side] = g;
      }
    if (rank == 0) {
      char line[1024];
      int n = snprintf(line, sizeof line, "{\"op\": \"%s\", \"ranks\": %d, \"dtype\": \"%s\", "
                       "\"bytes\": %zu", op_names[op], nranks, elem == 4 ? "float32" : "bfloat16",
                       bytes);
      for (int s = 0; s < SIDES; s++)
        n += snprintf(line + n, sizeof line - n, ", \"eager_%s_us\": %.3f", side_names[s], eager[s]);
      for (int s = 0; s < SIDES; s++)
        n += snprintf(line + n, sizeof line - n, ", \"graph_%s_us\": %.3f", side_names[s], graph[s]);
      snprintf(line + n, sizeof line - n, "}");
      printf("%s\n", line);
      fflush(stdout);
      if (out) fprintf(out, "%s\n", line);
    }
  }
  if (out) fclose(out);
  NK(raw.CommDestroy(raw_comm));
  OK(ncore_comm_destroy(comm_nccl));
  OK(ncore_comm_destroy(comm_auto));
  return 0;
}
