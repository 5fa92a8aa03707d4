// bench/gpu/onesided_bench.cu — put_signal → wait_signal against raw NCCL
// send/recv and cudaMemcpyPeerAsync, one rank per GPU, in the same run.
// Two ranks under ncore-run:
//
//   ncore-run -n 2 build/bin/onesided_bench [--json FILE] [--max BYTES]
//
// latency: 8-byte one-way time of a stream-pipelined ping-pong (rank 0:
//   put to 1, wait for 1; rank 1: wait for 0, put to 0; N rounds enqueued,
//   one synchronisation at the end; one way = total / 2N), for ncore's
//   put_signal and for raw NCCL send/recv (the libnccl.so.2 ncore loaded,
//   reached with dlopen RTLD_NOLOAD, on a communicator of its own); also
//   host-synchronised (every round waited for on the host).
// bandwidth: rank 0 sends `reps` messages of S bytes, rank 1 receives them
//   and answers with one 8-byte message; time from the first enqueue to the
//   answer, per byte (GB/s = 1e9 bytes/s). put_signal (reps puts, then one
//   wait for reps signals), NCCL send/recv, and cudaMemcpyPeerAsync from
//   GPU 0 to GPU 1 in rank 0's process (peer access enabled), the copy
//   engine's ceiling.
// pending wait: what a wait_signal that is not yet satisfied costs other
//   work on its GPU: rank 1 enqueues a wait for rank 0's signal, then times
//   a compute kernel filling every SM on another stream while rank 0 holds
//   the signal back; against the same kernels without a pending wait
//   (ratio 1.00: the wait takes nothing from them).
// profile: where a hop's time goes, measured, not guessed: the floor (one
//   kernel on each GPU passing a flag back and forth through the peer's
//   window, no launch between hops: NVLink's store-to-load latency plus
//   the acquire), and the gap between two dependent kernels on one stream
//   (400 one-thread kernels queued behind a blocker, each stamping its
//   start with %globaltimer; median gap) launched plainly and with
//   programmatic dependent launch (PDL), as ncore launches its kernels;
//   the floor again with a system fence before each store and after each
//   load; and a hop of two kernels shaped as ncore's put and wait kernels
//   (launched with PDL, without ncore's host path), with and without those
//   fences. put_signal's hop = that kernel hop + what ncore adds.
// Rank 0 prints one JSON object (and writes it to --json FILE): the
// environment knobs in force (NCORE_NCCL_WAIT, ...), the machine's GPUs and
// every figure, median of 5 repetitions.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>
#include <ncore.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

#define CUDA(call)                                                        \
  do {                                                                    \
    cudaError_t e_ = (call);                                              \
    if (e_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "onesided_bench: %s: %s\n", #call,            \
                   cudaGetErrorString(e_));                               \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)
#define NC(call)                                                          \
  do {                                                                    \
    ncore_status_t s_ = (call);                                           \
    if (s_ != NCORE_OK && s_ != NCORE_IN_PROGRESS) {                      \
      std::fprintf(stderr, "onesided_bench: %s: %s\n", #call,            \
                   ncore_last_error_message());                           \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)
#define NCCL(call)                                                        \
  do {                                                                    \
    ncclResult_t r_ = (call);                                             \
    if (r_ != ncclSuccess) {                                              \
      std::fprintf(stderr, "onesided_bench: %s: NCCL %d\n", #call, (int)r_); \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)

struct {
  ncclResult_t (*GetUniqueId)(ncclUniqueId *);
  ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*GroupStart)(void);
  ncclResult_t (*GroupEnd)(void);
} nccl;

void load_raw_nccl() {
  const char *path = std::getenv("NCORE_NCCL_LIBRARY");
  void *lib = dlopen(path && *path ? path : "libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) { std::fprintf(stderr, "onesided_bench: libnccl not loaded\n"); std::exit(1); }
  auto sym = [&](const char *n) {
    void *p = dlsym(lib, n);
    if (!p) { std::fprintf(stderr, "onesided_bench: no %s\n", n); std::exit(1); }
    return p;
  };
  *(void **)&nccl.GetUniqueId = sym("ncclGetUniqueId");
  *(void **)&nccl.CommInitRank = sym("ncclCommInitRank");
  *(void **)&nccl.CommDestroy = sym("ncclCommDestroy");
  *(void **)&nccl.Send = sym("ncclSend");
  *(void **)&nccl.Recv = sym("ncclRecv");
  *(void **)&nccl.GroupStart = sym("ncclGroupStart");
  *(void **)&nccl.GroupEnd = sym("ncclGroupEnd");
}

int rank, nranks, device;
ncore_comm_t comm;
ncclComm_t raw;
ncore_window_t window;
unsigned char *win, *src;
cudaStream_t stream;
ncore_stream_t ns() { return (ncore_stream_t)stream; }
int *sync_buf;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void barrier() {
  NC(ncore_allreduce(comm, sync_buf, sync_buf, 1, NCORE_INT32, NCORE_SUM, ns()));
  NC(ncore_comm_synchronize(comm, ns()));
}

// Rank 0's measured seconds reach every rank (the JSON is rank 0's).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void wait_one(int peer, unsigned n) {
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = peer;
  d.op_count = n;
  NC(ncore_wait_signal(comm, &d, 1, ns()));
}

// ---- latency ----
double ping_pong_put(int rounds, bool host_sync) {
  int peer = 1 - rank;
  barrier();
  double t0 = now();
  for (int i = 0; i < rounds; i++) {
    if (rank == 0) {
      NC(ncore_put_signal(comm, src, 8, NCORE_UINT8, peer, window, 0, 0, 0, 0, ns()));
      wait_one(peer, 1);
    } else {
      wait_one(peer, 1);
      NC(ncore_put_signal(comm, src, 8, NCORE_UINT8, peer, window, 0, 0, 0, 0, ns()));
    }
    if (host_sync) CUDA(cudaStreamSynchronize(stream));
  }
  CUDA(cudaStreamSynchronize(stream));
  return (now() - t0) / (2.0 * rounds);
}

double ping_pong_nccl(int rounds, bool host_sync) {
  int peer = 1 - rank;
  barrier();
  double t0 = now();
  for (int i = 0; i < rounds; i++) {
    if (rank == 0) {
      NCCL(nccl.Send(src, 8, ncclUint8, peer, raw, stream));
      NCCL(nccl.Recv(win, 8, ncclUint8, peer, raw, stream));
    } else {
      NCCL(nccl.Recv(win, 8, ncclUint8, peer, raw, stream));
      NCCL(nccl.Send(src, 8, ncclUint8, peer, raw, stream));
    }
    if (host_sync) CUDA(cudaStreamSynchronize(stream));
  }
  CUDA(cudaStreamSynchronize(stream));
  return (now() - t0) / (2.0 * rounds);
}

// ---- profile: the floor of a hop and the gap between kernels ----
__device__ unsigned long long global_time() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Rank 0 stores round i into the peer's flag, then waits for the peer's
// i in its own; rank 1 the other way round. One way = time / (2 rounds).
// With `fenced`, each side also fences at system scope before its store and
// after its load, as a put kernel and a wait kernel that fence would: the
// difference is what those fences cost a hop.
__device__ __forceinline__ void release_flag(unsigned long long *flag, unsigned long long v,
                                             int fenced) {
  if (fenced) __threadfence_system();
  asm volatile("st.release.sys.global.u64 [%0], %1;" :: "l"(flag), "l"(v) : "memory");
}
__device__ __forceinline__ void acquire_flag(const unsigned long long *flag, unsigned long long v,
                                             int fenced) {
  unsigned long long seen;
  do {
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(seen) : "l"(flag) : "memory");
  } while (seen < v);
  if (fenced) __threadfence_system();
}

__global__ void flag_ping_pong(unsigned long long *mine, unsigned long long *peers,
                               int rounds, int first, int fenced, unsigned long long *ns) {
  unsigned long long t0 = global_time();
  for (int i = 1; i <= rounds; i++) {
    if (first) release_flag(peers, i, fenced);
    acquire_flag(mine, i, fenced);
    if (!first) release_flag(peers, i, fenced);
  }
  *ns = global_time() - t0;
}

// A hop made of two kernels launched with PDL, shaped as ncore's: a put
// kernel of one 256-thread block (the bytes copied into the peer's window,
// __syncthreads, thread 0 releases the peer's flag) and a one-thread wait
// kernel (acquire loop), without ncore's host path around them. With and
// without the system fences, the two figures split put_signal's hop into
// launches, fences and what ncore adds.
__global__ void hop_put(unsigned char *dst, const unsigned char *src, int bytes,
                        unsigned long long *peer_flag, unsigned long long v, int fenced) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) dst[i] = src[i];
  __syncthreads();
  if (threadIdx.x == 0) release_flag(peer_flag, v, fenced);
}
__global__ void hop_wait(const unsigned long long *flag, unsigned long long v, int fenced) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  acquire_flag(flag, v, fenced);
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

__global__ void hold_until(volatile int *go) { while (*go == 0) __nanosleep(1000); }

__global__ void stamp(unsigned long long *at, int pdl) {
  if (pdl) asm volatile("griddepcontrol.wait;" ::: "memory");
  at[0] = global_time();
  if (pdl) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// One block of `block` threads on the bench's stream, with programmatic
// dependent launch (as ncore launches its kernels) or plainly.
template <typename... Args>
void launch(void (*kernel)(Args...), unsigned block, bool pdl, Args... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = 1;
  config.blockDim = block;
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = pdl ? 1 : 0;
  CUDA(cudaLaunchKernelEx(&config, kernel, args...));
}

double median_gap_us(bool pdl) {
  const int n = 400;  // well inside a stream's queue of launches
  unsigned long long *at = nullptr;
  int *go = nullptr;
  CUDA(cudaMalloc(&at, n * sizeof *at));
  CUDA(cudaHostAlloc(&go, sizeof *go, cudaHostAllocMapped));
  *go = 0;
  int *go_dev = nullptr;
  CUDA(cudaHostGetDevicePointer(&go_dev, go, 0));
  hold_until<<<1, 1, 0, stream>>>(go_dev);
  for (int i = 0; i < n; i++) launch(stamp, 1, pdl, at + i, (int)pdl);
  *go = 1;
  CUDA(cudaStreamSynchronize(stream));
  std::vector<unsigned long long> t(n);
  CUDA(cudaMemcpy(t.data(), at, n * sizeof *at, cudaMemcpyDeviceToHost));
  std::vector<double> gaps;
  for (int i = 1; i < n; i++) gaps.push_back((t[i] - t[i - 1]) / 1e3);
  CUDA(cudaFree(at));
  CUDA(cudaFreeHost(go));
  return median(gaps);
}

double floor_one_way_us(size_t flag_offset, bool fenced) {
  unsigned long long *mine = nullptr, *peers = nullptr, *ns = nullptr;
  NC(ncore_window_peer_device_pointer(window, rank, flag_offset, (void **)&mine));
  NC(ncore_window_peer_device_pointer(window, 1 - rank, flag_offset, (void **)&peers));
  if (!mine || !peers) return -1;
  CUDA(cudaMalloc(&ns, sizeof *ns));
  const int rounds = 10000;
  CUDA(cudaMemsetAsync(mine, 0, sizeof *mine, stream));
  barrier();
  flag_ping_pong<<<1, 1, 0, stream>>>(mine, peers, rounds, rank == 0, fenced, ns);
  CUDA(cudaStreamSynchronize(stream));
  unsigned long long t = 0;
  CUDA(cudaMemcpy(&t, ns, sizeof t, cudaMemcpyDeviceToHost));
  CUDA(cudaFree(ns));
  barrier();
  return t / 1e3 / (2.0 * rounds);
}

// One way (µs) of a stream-pipelined ping-pong of hop_put / hop_wait (8
// bytes at offset 0 of the peer's window, the flag at flag_offset), as
// ping_pong_put times ncore's.
double kernel_hop_us(size_t flag_offset, bool fenced, int rounds) {
  unsigned long long *mine = nullptr, *peers = nullptr;
  unsigned char *peer_data = nullptr;
  NC(ncore_window_peer_device_pointer(window, rank, flag_offset, (void **)&mine));
  NC(ncore_window_peer_device_pointer(window, 1 - rank, flag_offset, (void **)&peers));
  NC(ncore_window_peer_device_pointer(window, 1 - rank, 0, (void **)&peer_data));
  if (!mine || !peers || !peer_data) return -1;
  CUDA(cudaMemsetAsync(mine, 0, sizeof *mine, stream));
  barrier();
  int f = fenced;
  const unsigned char *from = src;
  double t0 = now();
  for (int i = 1; i <= rounds; i++) {
    unsigned long long v = i;
    if (rank == 0) {
      launch(hop_put, 256, true, peer_data, from, 8, peers, v, f);
      launch(hop_wait, 1, true, (const unsigned long long *)mine, v, f);
    } else {
      launch(hop_wait, 1, true, (const unsigned long long *)mine, v, f);
      launch(hop_put, 256, true, peer_data, from, 8, peers, v, f);
    }
  }
  CUDA(cudaStreamSynchronize(stream));
  double us = (now() - t0) * 1e6 / (2.0 * rounds);
  barrier();
  return us;
}

// ---- what a pending wait costs the GPU's other work ----
__global__ void busy_kernel(float *x, int iters) {
  float v = x[threadIdx.x];
  for (int i = 0; i < iters; i++) v = v * 1.000001f + 0.5f;
  if (v == 12345.0f) x[0] = v;  // keeps the loop
}

cudaStream_t compute_stream;
float *compute_buf;

double compute_seconds() {
  int sms = 0;
  CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA(cudaStreamSynchronize(compute_stream));
  double t0 = now();
  for (int k = 0; k < 20; k++)
    busy_kernel<<<sms * 8, 256, 0, compute_stream>>>(compute_buf, 20000);
  CUDA(cudaStreamSynchronize(compute_stream));
  return now() - t0;
}

// Rank 1's compute time with (pending) or without a wait for rank 0 on
// its stream; rank 0 signals 300 ms after the start, well after the
// kernels (a few ms) ended. Every rank returns rank 1's figure.
double pending_wait_compute(bool pending, double *shared) {
  barrier();
  double t = 0;
  if (rank == 1) {
    if (pending) wait_one(0, 1);
    t = compute_seconds();
    CUDA(cudaMemcpy(shared, &t, sizeof t, cudaMemcpyHostToDevice));
  } else if (pending) {
    usleep(300000);
    NC(ncore_signal(comm, 1, 0, 0, 0, ns()));
  }
  NC(ncore_broadcast(comm, shared, shared, sizeof t, NCORE_UINT8, 1, ns()));
  CUDA(cudaStreamSynchronize(stream));
  CUDA(cudaMemcpy(&t, shared, sizeof t, cudaMemcpyDeviceToHost));
  return t;
}

// ---- bandwidth: reps messages of bytes from rank 0, one answer back ----
double stream_put(size_t bytes, int reps) {
  barrier();
  double t0 = now();
  if (rank == 0) {
    for (int i = 0; i < reps; i++)
      NC(ncore_put_signal(comm, src, bytes, NCORE_UINT8, 1, window, 64, 0, 0, 0, ns()));
    wait_one(1, 1);
  } else {
    wait_one(0, (unsigned)reps);
    NC(ncore_put_signal(comm, src, 8, NCORE_UINT8, 0, window, 0, 0, 0, 0, ns()));
  }
  CUDA(cudaStreamSynchronize(stream));
  return now() - t0;
}

double stream_nccl(size_t bytes, int reps) {
  barrier();
  double t0 = now();
  if (rank == 0) {
    for (int i = 0; i < reps; i++) NCCL(nccl.Send(src, bytes, ncclUint8, 1, raw, stream));
    NCCL(nccl.Recv(win, 8, ncclUint8, 1, raw, stream));
  } else {
    for (int i = 0; i < reps; i++) NCCL(nccl.Recv(win + 64, bytes, ncclUint8, 0, raw, stream));
    NCCL(nccl.Send(src, 8, ncclUint8, 0, raw, stream));
  }
  CUDA(cudaStreamSynchronize(stream));
  return now() - t0;
}

// cudaMemcpyPeerAsync GPU device -> device + 1 in this process (rank 0).
double memcpy_peer(size_t bytes, int reps, void *peer_buf, int peer_dev) {
  CUDA(cudaStreamSynchronize(stream));
  double t0 = now();
  for (int i = 0; i < reps; i++)
    CUDA(cudaMemcpyPeerAsync(peer_buf, peer_dev, src, device, bytes, stream));
  CUDA(cudaStreamSynchronize(stream));
  return now() - t0;
}

std::string knob(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

int main(int argc, char **argv) {
  const char *json_path = nullptr;
  size_t max_bytes = size_t(1) << 30;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else if (!std::strcmp(argv[i], "--max") && i + 1 < argc) max_bytes = std::strtoull(argv[++i], nullptr, 0);
  }
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = 120000;
  NC(ncore_comm_init_from_env(&comm, &config));
  NC(ncore_comm_rank(comm, &rank));
  NC(ncore_comm_size(comm, &nranks));
  NC(ncore_comm_device(comm, &device));
  if (nranks != 2) { std::fprintf(stderr, "onesided_bench: run 2 ranks\n"); return 2; }
  CUDA(cudaSetDevice(device));
  CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  load_raw_nccl();
  size_t window_bytes = max_bytes + 4096;
  NC(ncore_mem_alloc((void **)&win, window_bytes, NCORE_BACKEND_NCCL));
  CUDA(cudaMalloc(&src, window_bytes));
  CUDA(cudaMemset(src, 1, window_bytes));
  CUDA(cudaMalloc(&sync_buf, sizeof(int)));
  NC(ncore_register_window(&window, comm, win, window_bytes, NCORE_WINDOW_COLL_SYMMETRIC));
  // Raw NCCL's communicator: rank 0's id reaches rank 1 through ncore.
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  if (rank == 0) NCCL(nccl.GetUniqueId(&id));
  char *id_dev = nullptr;
  CUDA(cudaMalloc(&id_dev, sizeof id));
  CUDA(cudaMemcpy(id_dev, &id, sizeof id, cudaMemcpyHostToDevice));
  NC(ncore_broadcast(comm, id_dev, id_dev, sizeof id, NCORE_UINT8, 0, ns()));
  NC(ncore_comm_synchronize(comm, ns()));
  CUDA(cudaMemcpy(&id, id_dev, sizeof id, cudaMemcpyDeviceToHost));
  NCCL(nccl.CommInitRank(&raw, 2, id, rank));

  // Warm-up (connections, kernels, pointer caches).
  ping_pong_put(200, false);
  ping_pong_nccl(200, false);
  size_t warm = std::min(max_bytes, size_t(1) << 20);
  stream_put(warm, 4);
  stream_nccl(warm, 4);

  std::string out = "{\"bench\": \"onesided\", \"nranks\": 2";
  char text[512];
  cudaDeviceProp prop;
  CUDA(cudaGetDeviceProperties(&prop, device));
  std::snprintf(text, sizeof text,
                ", \"gpu\": \"%s\", \"knobs\": {\"NCORE_NCCL_WAIT\": \"%s\", "
                "\"NCORE_NCCL_PUT_KERNEL_MAX\": \"%s\", \"NCORE_NCCL_PUT_SM_MAX\": \"%s\", "
                "\"NCORE_NCCL_SIGNAL_MODE\": \"%s\", \"NCORE_NCCL_WAIT_SPIN_US\": \"%s\", "
                "\"NCORE_NCCL_PDL\": \"%s\"}",
                prop.name, knob("NCORE_NCCL_WAIT").c_str(),
                knob("NCORE_NCCL_PUT_KERNEL_MAX").c_str(), knob("NCORE_NCCL_PUT_SM_MAX").c_str(),
                knob("NCORE_NCCL_SIGNAL_MODE").c_str(), knob("NCORE_NCCL_WAIT_SPIN_US").c_str(),
                knob("NCORE_NCCL_PDL").c_str());
  out += text;

  const int rounds = 2000;
  std::vector<double> put_pipe, put_host, nccl_pipe, nccl_host;
  for (int rep = 0; rep < 5; rep++) {
    put_pipe.push_back(ping_pong_put(rounds, false));
    nccl_pipe.push_back(ping_pong_nccl(rounds, false));
    put_host.push_back(ping_pong_put(rounds / 4, true));
    nccl_host.push_back(ping_pong_nccl(rounds / 4, true));
  }
  std::snprintf(text, sizeof text,
                ", \"latency_us\": {\"put_signal\": %.2f, \"nccl_sendrecv\": %.2f, "
                "\"put_signal_host_sync\": %.2f, \"nccl_sendrecv_host_sync\": %.2f}",
                median(put_pipe) * 1e6, median(nccl_pipe) * 1e6,
                median(put_host) * 1e6, median(nccl_host) * 1e6);
  out += text;
  if (rank == 0) { std::printf("latency%s\n", text + 14); std::fflush(stdout); }

  CUDA(cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking));
  CUDA(cudaMalloc(&compute_buf, 256 * sizeof(float)));
  CUDA(cudaMemset(compute_buf, 0, 256 * sizeof(float)));
  double *shared = nullptr;
  CUDA(cudaMalloc(&shared, sizeof(double)));
  pending_wait_compute(false, shared);  // warm-up
  std::vector<double> alone, beside;
  for (int rep = 0; rep < 3; rep++) {
    alone.push_back(pending_wait_compute(false, shared));
    beside.push_back(pending_wait_compute(true, shared));
  }
  std::snprintf(text, sizeof text,
                ", \"pending_wait\": {\"compute_ms\": %.3f, \"compute_ms_beside_a_wait\": %.3f, "
                "\"ratio\": %.3f}",
                median(alone) * 1e3, median(beside) * 1e3, median(beside) / median(alone));
  out += text;
  if (rank == 0) { std::printf("pending wait%s\n", text + 16); std::fflush(stdout); }

  std::vector<double> floors, floors_fenced, gaps_plain, gaps_pdl, hops, hops_fenced;
  kernel_hop_us(max_bytes + 2048, false, 200);  // warm-up: the kernels' first launch
  for (int rep = 0; rep < 3; rep++) {
    floors.push_back(floor_one_way_us(max_bytes + 2048, false));
    floors_fenced.push_back(floor_one_way_us(max_bytes + 2048, true));
    gaps_plain.push_back(median_gap_us(false));
    gaps_pdl.push_back(median_gap_us(true));
    hops.push_back(kernel_hop_us(max_bytes + 2048, false, rounds));
    hops_fenced.push_back(kernel_hop_us(max_bytes + 2048, true, rounds));
  }
  std::snprintf(text, sizeof text,
                ", \"profile_us\": {\"floor_one_way\": %.2f, \"floor_one_way_fenced\": %.2f, "
                "\"kernel_gap\": %.2f, \"kernel_gap_pdl\": %.2f, \"kernel_hop\": %.2f, "
                "\"kernel_hop_fenced\": %.2f}",
                median(floors), median(floors_fenced), median(gaps_plain), median(gaps_pdl),
                median(hops), median(hops_fenced));
  out += text;
  if (rank == 0) { std::printf("profile%s\n", text + 14); std::fflush(stdout); }

  // cudaMemcpyPeerAsync needs the peer GPU in this process: rank 0 only.
  void *peer_buf = nullptr;
  int peer_dev = (device + 1) % std::max(1, [] { int n = 0; cudaGetDeviceCount(&n); return n; }());
  bool can_peer = false;
  if (rank == 0 && peer_dev != device) {
    int ok = 0;
    CUDA(cudaDeviceCanAccessPeer(&ok, device, peer_dev));
    if (ok) {
      cudaError_t e = cudaDeviceEnablePeerAccess(peer_dev, 0);
      if (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();
        CUDA(cudaSetDevice(peer_dev));
        CUDA(cudaMalloc(&peer_buf, window_bytes));
        CUDA(cudaSetDevice(device));
        can_peer = true;
      }
    }
  }
  out += ", \"bandwidth_GBps\": [";
  bool first = true;
  for (size_t bytes = 16; bytes <= max_bytes; bytes *= 4) {  // 1 MiB, 256 MiB, 1 GiB among them
    int reps = bytes <= (1 << 20) ? 200 : bytes <= (64u << 20) ? 20 : 4;
    std::vector<double> tp, tn, tm;
    for (int rep = 0; rep < 5; rep++) {
      tp.push_back(stream_put(bytes, reps));
      tn.push_back(stream_nccl(bytes, reps));
      if (can_peer) tm.push_back(memcpy_peer(bytes, reps, peer_buf, peer_dev));
    }
    double total = (double)bytes * reps;
    std::snprintf(text, sizeof text,
                  "%s{\"bytes\": %zu, \"reps\": %d, \"put_signal\": %.2f, "
                  "\"nccl_sendrecv\": %.2f, \"memcpy_peer\": %s}",
                  first ? "" : ", ", bytes, reps, total / median(tp) / 1e9,
                  total / median(tn) / 1e9,
                  can_peer ? std::to_string(total / median(tm) / 1e9).c_str() : "null");
    out += text;
    first = false;
    if (rank == 0) { std::printf("bandwidth %s\n", text + (text[0] == ',' ? 2 : 0)); std::fflush(stdout); }
  }
  out += "]}";
  if (rank == 0) {
    std::printf("%s\n", out.c_str());
    if (json_path) {
      FILE *f = std::fopen(json_path, "w");
      if (f) { std::fprintf(f, "%s\n", out.c_str()); std::fclose(f); }
    }
  }
  NCCL(nccl.CommDestroy(raw));
  NC(ncore_window_close(window));
  NC(ncore_comm_destroy(comm));
  return 0;
}
