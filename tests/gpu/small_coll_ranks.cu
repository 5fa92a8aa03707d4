// tests/gpu/small_coll_ranks.cu — ncore's small-message kernels
// (kernels/small_coll.cu, compiled into this program) between n ranks on
// one GPU: each rank's kernels on a stream of their own, all ranks' grids
// resident at once, every rank's area a part of one allocation. So every
// kernel runs its whole protocol (flags, LL lines, epochs, both parities)
// for 2..8 ranks, where the machines lent have at most 4 GPUs and the
// two-shot needs 3 ranks: a machine with one GPU checks them all.
//
// Each rank runs the same sequence of calls, launched as the library
// launches them (programmatic dependent launch, the library's grid rule
// capped so that every rank's grid and its successor fit on the GPU):
// every kernel at sizes from 8 bytes to the largest its slots hold, each
// dtype and operator, inputs in and out of 16-byte alignment, kernels and
// sizes interleaved so that each call reuses slots a call of another kind
// and size used two calls before. Every call has inputs of its own, so a
// call that read a stale slot fails. Checked: every output against the
// host's reduction (the values are small integers, so every order gives
// the same), and bitwise equal across ranks. A rank that does not finish
// within the limit fails, naming its first unfinished call.
//
// Over NVLink the same code reaches peers' memory instead of its own GPU's:
// the system-scope orderings are checked there by the multi-GPU tests
// (small_allreduce, conformance); this program checks the protocol.
//
// --sanitize runs the same calls for compute-sanitizer, which runs one
// kernel at a time (so ranks cannot wait for one another): every rank's
// call in turn, the waits released by the abort pattern; every access is
// made, and each rank's area, input and output is an allocation of its
// own, so memcheck sees any access past one. Results are not checked.
//
//   build/bin/small_coll_ranks [--sanitize] [nranks ...]   (2..8; default all)
//   compute-sanitizer --tool memcheck --error-exitcode 9 \
//     build/bin/small_coll_ranks --sanitize 3 8
// Ends with "N passed, N failed" (a case: one kernel on n ranks).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "../../kernels/small_coll.cu"

#define CU(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf(stderr, "small_coll_ranks: %s: %s\n", #call, cudaGetErrorString(e_)); exit(4); } } while (0)

enum What { ALLREDUCE, ALLGATHER, REDUCE_SCATTER };

struct Kernel {
  const char *name;
  void (*fn)(ncore_small_args_t);
  What what;
  int ll;
  // The most bytes a call may have on nranks (allreduce: its buffer;
  // allgather and reduce-scatter: one rank's block), 0 where none.
  unsigned long long (*max_bytes)(int nranks);
};

static unsigned long long oneshot_max(int n) { return ncore_small_oneshot_max(n); }
static unsigned long long ll_max(int n) { return ncore_small_ll_max(n); }
static unsigned long long twoshot_max(int n) { return n < 3 ? 0 : NCORE_SMALL_TWOSHOT_MAX; }

static const Kernel kernels[] = {
    {"allreduce_oneshot", ncore_allreduce_oneshot, ALLREDUCE, 0, oneshot_max},
    {"allreduce_oneshot_ll", ncore_allreduce_oneshot_ll, ALLREDUCE, 1, ll_max},
    {"allreduce_twoshot", ncore_allreduce_twoshot, ALLREDUCE, 0, twoshot_max},
    {"allgather_ll", ncore_allgather_ll, ALLGATHER, 1, ll_max},
    {"reduce_scatter_ll", ncore_reduce_scatter_ll, REDUCE_SCATTER, 1, ll_max},
};
static const int n_kernels = sizeof kernels / sizeof kernels[0];

// ncore's dtype values (= NCCL's) the kernels reduce, with their sizes.
struct Dtype { int id; const char *name; int size; };
static const Dtype dtypes[] = {{7, "float32", 4}, {9, "bfloat16", 2}, {2, "int32", 4},
                               {6, "float16", 2}, {8, "float64", 8}, {5, "uint64", 8}};
static const char *op_names[] = {"sum", "prod", "max", "min"};

struct Call {
  int kernel, dtype, op, offset;  // offset: elements past 16-byte alignment
  unsigned long long bytes;       // Kernel::max_bytes's meaning
  std::vector<char *> in, out;    // per rank, device
};

// Rank q's element i of call c, a small integer: every reduction order
// gives the same exact result (prod: ones and twos, at most 2^8).
static long long value(int c, int q, size_t i, int op) {
  if (op == 1) return 1 + (int)((c + q * 3 + i + (i >> 4)) % 2);
  return (long long)((c * 131 + q * 37 + i * 7 + (i >> 5)) % 16);
}

static void put(char *p, int dtype, long long v) {
  switch (dtype) {
    case 2: *(int32_t *)p = (int32_t)v; break;
    case 5: *(uint64_t *)p = (uint64_t)v; break;
    case 6: *(__half *)p = __float2half((float)v); break;
    case 7: *(float *)p = (float)v; break;
    case 8: *(double *)p = (double)v; break;
    case 9: *(__nv_bfloat16 *)p = __float2bfloat16((float)v); break;
  }
}

static double get(const char *p, int dtype) {
  switch (dtype) {
    case 2: return *(const int32_t *)p;
    case 5: return (double)*(const uint64_t *)p;
    case 6: return __half2float(*(const __half *)p);
    case 7: return *(const float *)p;
    case 8: return *(const double *)p;
    case 9: return __bfloat162float(*(const __nv_bfloat16 *)p);
  }
  return 0;
}

static long long fold(int op, long long acc, long long v) {
  switch (op) {
    case 0: return acc + v;
    case 1: return acc * v;
    case 2: return v > acc ? v : acc;
    default: return v < acc ? v : acc;
  }
}

// Bytes of a call's input and output buffers, per rank.
static unsigned long long in_bytes(const Call &c, int n) {
  return kernels[c.kernel].what == REDUCE_SCATTER ? c.bytes * n : c.bytes;
}
static unsigned long long out_bytes(const Call &c, int n) {
  return kernels[c.kernel].what == ALLGATHER ? c.bytes * n : c.bytes;
}

// The sequence every rank runs on n ranks: each kernel that serves n at
// sizes from 8 bytes up to its largest, the kernels interleaved.
static std::vector<Call> sequence(int n) {
  std::vector<Call> calls;
  for (int round = 0; round < 4; round++)
    for (int k = 0; k < n_kernels; k++) {
      unsigned long long max = kernels[k].max_bytes(n);
      if (max == 0) continue;
      const Dtype &d = dtypes[(round + k) % (sizeof dtypes / sizeof dtypes[0])];
      unsigned long long sizes[] = {8, 1000, 65536, max};
      unsigned long long bytes = sizes[round] / d.size * d.size;
      if (bytes > max) bytes = max / d.size * d.size;
      if (bytes == 0) bytes = d.size;
      Call c = {};
      c.kernel = k;
      c.dtype = (int)(&d - dtypes);
      c.op = kernels[k].what == ALLGATHER ? 0 : (round + k) % 4;
      // Out of alignment in round 1 (inputs and outputs one element past
      // 16 bytes), so the kernels' unaligned paths run too.
      c.offset = round == 1 ? 1 : 0;
      c.bytes = bytes;
      calls.push_back(c);
    }
  return calls;
}

// Resident blocks of a kernel on this GPU.
static int resident_blocks(void (*fn)(ncore_small_args_t)) {
  int device, sms, per_sm;
  CU(cudaGetDevice(&device));
  CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, NCORE_SMALL_THREADS, 0));
  return sms * per_sm;
}

static int passed, failed;

static void verdict(bool ok, int n, const char *kernel, const char *why) {
  if (ok) {
    printf("ok %s n=%d\n", kernel, n);
    passed++;
  } else {
    printf("FAIL %s n=%d: %s\n", kernel, n, why);
    failed++;
  }
}

// sanitize: for compute-sanitizer, which runs one kernel at a time, so
// that no rank waits for a peer that runs after it: every call's ranks one
// after the other on one stream, each area's flags filled with the abort
// pattern (0x7f bytes) before each call, so flag waits pass and LL waits
// give up; every access still happens, the results are not checked.
static void calls_free(std::vector<Call> &calls, int n, std::vector<char *> &areas,
                       std::vector<cudaStream_t> &streams,
                       std::vector<std::vector<cudaEvent_t>> &done) {
  for (auto &call : calls)
    for (int q = 0; q < n; q++) {
      CU(cudaFree(call.in[q] - call.offset * dtypes[call.dtype].size));
      CU(cudaFree(call.out[q] - call.offset * dtypes[call.dtype].size));
    }
  for (auto &row : done)
    for (auto e : row) CU(cudaEventDestroy(e));
  for (auto s : streams) CU(cudaStreamDestroy(s));
  for (auto p : areas) CU(cudaFree(p));
}

static void run(int n, double limit_s, bool sanitize) {
  std::vector<Call> calls = sequence(n);
  size_t area = ncore_small_area_bytes(n);
  // One allocation each (areas, inputs, outputs: the exact sizes), so a
  // sanitizer sees an access past any of them.
  std::vector<char *> areas(n);
  for (auto &p : areas) {
    CU(cudaMalloc(&p, area));
    CU(cudaMemset(p, 0, area));
  }
  std::vector<cudaStream_t> streams(n);
  for (auto &s : streams) CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // Inputs on the host, copied in before any launch.
  for (size_t c = 0; c < calls.size(); c++) {
    Call &call = calls[c];
    int size = dtypes[call.dtype].size;
    unsigned long long ib = in_bytes(call, n), ob = out_bytes(call, n);
    std::vector<char> host(ib);
    for (int q = 0; q < n; q++) {
      char *in, *out;
      CU(cudaMalloc(&in, call.offset * size + ib));
      CU(cudaMalloc(&out, call.offset * size + ob));
      CU(cudaMemset(out, 0xee, call.offset * size + ob));
      for (size_t i = 0; i < ib / size; i++)
        put(&host[i * size], dtypes[call.dtype].id, value((int)c, q, i, call.op));
      CU(cudaMemcpy(in + call.offset * size, host.data(), ib, cudaMemcpyHostToDevice));
      call.in.push_back(in + call.offset * size);
      call.out.push_back(out + call.offset * size);
    }
  }
  CU(cudaDeviceSynchronize());
  // Every rank's grid and the next call's (programmatic dependent launch
  // lets it be resident while this one runs) must fit at once.
  int resident = 1 << 30;
  for (int k = 0; k < n_kernels; k++) {
    int r = resident_blocks(kernels[k].fn);
    if (r < resident) resident = r;
  }
  unsigned cap = (unsigned)(resident / (2 * n));
  if (cap < 1) cap = 1;
  std::vector<std::vector<cudaEvent_t>> done(n, std::vector<cudaEvent_t>(calls.size()));
  for (size_t c = 0; c < calls.size(); c++) {
    if (sanitize)
      for (int p = 0; p < n; p++)
        CU(cudaMemsetAsync(areas[p], 0x7f, 2 * NCORE_SMALL_FLAGS_BYTES, streams[0]));
    for (int q = 0; q < n; q++) {
      const Call &call = calls[c];
      const Kernel &k = kernels[call.kernel];
      ncore_small_args_t a = {};
      a.input = call.in[q];
      a.output = call.out[q];
      int size = dtypes[call.dtype].size;
      a.count = k.what == ALLGATHER ? call.bytes : call.bytes / size;
      a.dtype = dtypes[call.dtype].id;
      a.op = call.op;
      a.rank = q;
      a.nranks = n;
      for (int p = 0; p < n; p++) a.areas[p] = areas[p];
      unsigned grid = ncore_small_grid(call.bytes, k.ll);
      if (grid > cap && !sanitize) grid = cap;
      cudaStream_t s = streams[sanitize ? 0 : q];
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(grid);
      config.blockDim = dim3(NCORE_SMALL_THREADS);
      config.stream = s;
      cudaLaunchAttribute pdl = {};
      pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      pdl.val.programmaticStreamSerializationAllowed = 1;
      config.attrs = &pdl;
      config.numAttrs = sanitize ? 0 : 1;
      CU(cudaLaunchKernelEx(&config, k.fn, a));
      CU(cudaEventCreateWithFlags(&done[q][c], cudaEventDisableTiming));
      CU(cudaEventRecord(done[q][c], s));
    }
  }
  // Bounded wait: a rank whose last call has not ended by the limit hung.
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    int left = 0;
    for (int q = 0; q < n; q++)
      if (cudaEventQuery(done[q].back()) == cudaErrorNotReady) left++;
    if (left == 0) break;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 > limit_s) {
      for (int q = 0; q < n; q++)
        for (size_t c = 0; c < calls.size(); c++)
          if (cudaEventQuery(done[q][c]) == cudaErrorNotReady) {
            printf("FAIL n=%d: rank %d did not finish call %zu (%s, %llu bytes) within %.0f s\n",
                   n, q, c, kernels[calls[c].kernel].name, calls[c].bytes, limit_s);
            break;
          }
      printf("%d passed, %d failed\n", passed, failed + 1);
      fflush(stdout);
      _exit(1);  // the hung grids end with the process
    }
    struct timespec nap = {0, 1000000};
    nanosleep(&nap, NULL);
  }
  CU(cudaGetLastError());
  for (auto s : streams) CU(cudaStreamSynchronize(s));
  if (sanitize) {
    for (int k = 0; k < n_kernels; k++)
      if (kernels[k].max_bytes(n) > 0)
        printf("ok %s n=%d (ran every call; results not checked)\n", kernels[k].name, n), passed++;
    calls_free(calls, n, areas, streams, done);
    return;
  }
  // The check, per kernel: every call's output against the host's.
  std::vector<std::string> why(n_kernels);
  for (size_t c = 0; c < calls.size(); c++) {
    const Call &call = calls[c];
    const Kernel &k = kernels[call.kernel];
    int size = dtypes[call.dtype].size, id = dtypes[call.dtype].id;
    unsigned long long ob = out_bytes(call, n);
    std::vector<std::vector<char>> outs(n, std::vector<char>(ob));
    for (int q = 0; q < n; q++)
      CU(cudaMemcpy(outs[q].data(), call.out[q], ob, cudaMemcpyDeviceToHost));
    char where[160];
    snprintf(where, sizeof where, "call %zu (%llu bytes, %s, %s, offset %d)", c, call.bytes,
             dtypes[call.dtype].name, op_names[call.op], call.offset);
    for (int q = 0; q < n && why[call.kernel].empty(); q++) {
      // Every rank's allreduce (and allgather) output is the same bytes.
      if (k.what != REDUCE_SCATTER && q > 0 &&
          memcmp(outs[q].data(), outs[0].data(), ob) != 0) {
        why[call.kernel] = std::string(where) + ": rank " + std::to_string(q) +
                           "'s output differs from rank 0's";
        break;
      }
      size_t elements = k.what == ALLGATHER ? ob : ob / size;
      for (size_t i = 0; i < elements; i++) {
        double want, got;
        if (k.what == ALLGATHER) {
          // Rank p's block: its input bytes, here values written as the
          // call's dtype, compared byte by byte.
          size_t block = call.bytes, p = i / block, at = i % block;
          std::vector<char> v(size);
          put(v.data(), id, value((int)c, (int)p, at / size, call.op));
          want = (unsigned char)v[at % size];
          got = (unsigned char)outs[q][i];
        } else {
          size_t first = k.what == REDUCE_SCATTER ? (size_t)q * elements : 0;
          long long acc = value((int)c, 0, first + i, call.op);
          for (int p = 1; p < n; p++) acc = fold(call.op, acc, value((int)c, p, first + i, call.op));
          want = (double)acc;
          got = get(&outs[q][i * size], id);
        }
        if (got != want) {
          char text[320];
          snprintf(text, sizeof text, "%s: rank %d element %zu is %g, want %g", where, q, i,
                   got, want);
          why[call.kernel] = text;
          break;
        }
      }
    }
  }
  for (int k = 0; k < n_kernels; k++)
    if (kernels[k].max_bytes(n) > 0)
      verdict(why[k].empty(), n, kernels[k].name, why[k].c_str());
  calls_free(calls, n, areas, streams, done);
}

int main(int argc, char **argv) {
  std::vector<int> ranks;
  bool sanitize = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--sanitize") == 0) {
      sanitize = true;
      continue;
    }
    char *end;
    long n = strtol(argv[i], &end, 10);
    if (*end != '\0' || n < 2 || n > NCORE_SMALL_MAX_RANKS) {
      fprintf(stderr, "usage: small_coll_ranks [--sanitize] [nranks ...] (each 2..%d)\n",
              NCORE_SMALL_MAX_RANKS);
      return 2;
    }
    ranks.push_back((int)n);
  }
  int count;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    printf("skip: small_coll_ranks needs a GPU\n0 passed, 0 failed\n");
    return 0;
  }
  if (ranks.empty())
    for (int n = 2; n <= NCORE_SMALL_MAX_RANKS; n++) ranks.push_back(n);
  for (int n : ranks) run(n, sanitize ? 600.0 : 60.0, sanitize);
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
