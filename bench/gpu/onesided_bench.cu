// bench/gpu/onesided_bench.cu — put_signal → wait_signal against raw NCCL
// send/recv and cudaMemcpyPeerAsync, one rank per GPU, in the same run
// (issue 26). Two ranks under ncore-run:
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
                "\"NCORE_NCCL_SIGNAL_MODE\": \"%s\", \"NCORE_NCCL_WAIT_SPIN_US\": \"%s\"}",
                prop.name, knob("NCORE_NCCL_WAIT").c_str(),
                knob("NCORE_NCCL_PUT_KERNEL_MAX").c_str(), knob("NCORE_NCCL_PUT_SM_MAX").c_str(),
                knob("NCORE_NCCL_SIGNAL_MODE").c_str(), knob("NCORE_NCCL_WAIT_SPIN_US").c_str());
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
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 4) {
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
