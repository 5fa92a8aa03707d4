// tests/gpu/graph_test.cu — ncore's calls captured into CUDA graphs on real
// GPUs, one rank per GPU: each case captures K calls on
// a stream given to ncore as its ncore_stream_t (cudaStreamBeginCapture in
// CUDA's default global mode), instantiates the graph, launches it
// REPLAYS times, and checks the data after every launch with fresh inputs
// each time:
//   allreduce       K allreduces of 8 B to 4 MiB (int32, sums checked)
//   ring            K send/recv rings, each in a group
//   pingpong        put_signal -> wait_signal and back between LSA pairs
//   many_one_wait   K puts, one wait for all K, the sender 100 ms late:
//                   a wait that did not wait would let the check see zeros
//   waits_of_one    the same with K waits of one signal each
//   signal_wait     signal / wait_signal alone around the ring, then eager
//                   put_signal / wait_signal, the sender late: the counts of
//                   eager calls and replays are one
//   symmetric       symmetric put into the right neighbour, get from it
//   refused         what cannot be captured is refused (ncore_comm_
//                   synchronize, ncore_stream_synchronize; under
//                   NCORE_NCCL_WAIT=stream|hybrid wait_signal, under
//                   NCORE_NCCL_SIGNAL_MODE=write signal and put_signal)
//                   with NCORE_ERR_INVALID_USAGE naming the call, and the
//                   capture ends without an error and empty
// The one-sided cases need LSA pairs (rank ^ 1 in the same LSA team); ranks
// without one only take part in the verdict.
//
//   ncore-run -n 2 build/bin/graph_test [CASE ...]
//
// Built by tests/gpu/build.sh; tests/gpu/graphs.sh runs it in every mode.
// Prints "ok CASE" / "FAIL CASE: why" on rank 0 and ends with
// "N passed, N failed".
#include "gpu_test.cuh"

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace gpu_test;

constexpr int K = 4;        // calls captured per graph
constexpr int REPLAYS = 5;  // launches per graph
constexpr size_t WINDOW_BYTES = size_t(64) << 20;

ncore_window_t window;
unsigned char *win_buf;          // this rank's part of the window
unsigned long long *mismatches;  // device counter
int partner = -1;                // rank ^ 1 when it is an LSA peer

ncore_stream_t nstream() { return (ncore_stream_t)stream; }

// Captures what calls enqueues on the stream into an executable graph.
cudaGraphExec_t capture(const std::function<void()> &calls) {
  CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  calls();
  cudaGraph_t graph = nullptr;
  CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CUDA(cudaGraphDestroy(graph));
  return exec;
}

// Launches exec on the stream and waits for it through the communicator
// (which fails instead of hanging when a peer is gone, within the timeout).
void launch(cudaGraphExec_t exec) {
  CUDA(cudaGraphLaunch(exec, stream));
  NC(ncore_comm_synchronize(comm, nstream()));
}

void clear_counter() {
  CUDA(cudaMemsetAsync(mismatches, 0, sizeof *mismatches, stream));
}

unsigned long long read_counter() {
  unsigned long long bad = 0;
  CUDA(cudaMemcpyAsync(&bad, mismatches, sizeof bad, cudaMemcpyDeviceToHost,
                       stream));
  CUDA(cudaStreamSynchronize(stream));
  return bad;
}

// int32 buffers: dst[j] = value + j % 1000; the check that got[j] is
// base + step * (j % 1000) (a sum over n ranks of filled buffers: step n).
__global__ void fill_int(int *dst, size_t n, int value) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = value + (int)(i % 1000);
}
__global__ void check_int(const int *got, size_t n, int base, int step,
                          unsigned long long *bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    mine += got[i] != base + step * (int)(i % 1000);
  if (mine) atomicAdd(bad, mine);
}

// K allreduces of growing size, captured once, replayed with new inputs.
void case_allreduce() {
  const size_t counts[K] = {2, 1024, 65536, 1 << 20};
  std::vector<int *> in(K), out(K);
  for (int i = 0; i < K; i++) {
    CUDA(cudaMalloc(&in[i], counts[i] * sizeof(int)));
    CUDA(cudaMalloc(&out[i], counts[i] * sizeof(int)));
  }
  cudaGraphExec_t exec = capture([&] {
    for (int i = 0; i < K; i++)
      NC(ncore_allreduce(comm, in[i], out[i], counts[i], NCORE_INT32, NCORE_SUM,
                         nstream()));
  });
  unsigned long long bad = 0;
  int rank_sum = nranks * (nranks - 1) / 2;
  for (int r = 0; r < REPLAYS; r++) {
    clear_counter();
    for (int i = 0; i < K; i++) {
      fill_int<<<blocks_for(counts[i]), 256, 0, stream>>>(
          in[i], counts[i], rank * 100000 + r * 100 + i);
      CUDA(cudaMemsetAsync(out[i], 0xff, counts[i] * sizeof(int), stream));
    }
    launch(exec);
    // Every rank filled rank * 100000 + r * 100 + i + j % 1000.
    for (int i = 0; i < K; i++)
      check_int<<<blocks_for(counts[i]), 256, 0, stream>>>(
          out[i], counts[i], rank_sum * 100000 + nranks * (r * 100 + i), nranks,
          mismatches);
    bad += read_counter();
  }
  CUDA(cudaGraphExecDestroy(exec));
  for (int i = 0; i < K; i++) {
    CUDA(cudaFree(in[i]));
    CUDA(cudaFree(out[i]));
  }
  report("allreduce", bad);
}

// K rings (send right, receive from left), each in a group.
void case_ring() {
  const size_t bytes[K] = {8, 4096, 1 << 20, 3 << 20};
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  std::vector<unsigned char *> src(K), dst(K);
  for (int i = 0; i < K; i++) {
    CUDA(cudaMalloc(&src[i], bytes[i]));
    CUDA(cudaMalloc(&dst[i], bytes[i]));
  }
  cudaGraphExec_t exec = capture([&] {
    for (int i = 0; i < K; i++) {
      NC(ncore_group_start());
      NC(ncore_send(comm, src[i], bytes[i], NCORE_UINT8, right, nstream()));
      NC(ncore_recv(comm, dst[i], bytes[i], NCORE_UINT8, left, nstream()));
      NC(ncore_group_end());
    }
  });
  unsigned long long bad = 0;
  for (int r = 0; r < REPLAYS; r++) {
    clear_counter();
    for (int i = 0; i < K; i++) {
      fill<<<blocks_for(bytes[i]), 256, 0, stream>>>(src[i], bytes[i], rank,
                                                     r * K + i);
      CUDA(cudaMemsetAsync(dst[i], 0, bytes[i], stream));
    }
    launch(exec);
    for (int i = 0; i < K; i++)
      check<<<blocks_for(bytes[i]), 256, 0, stream>>>(dst[i], bytes[i], left,
                                                      r * K + i, mismatches);
    bad += read_counter();
  }
  CUDA(cudaGraphExecDestroy(exec));
  for (int i = 0; i < K; i++) {
    CUDA(cudaFree(src[i]));
    CUDA(cudaFree(dst[i]));
  }
  report("ring", bad);
}

ncore_wait_signal_desc_t from(int peer, uint32_t count) {
  ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
  d.peer = peer;
  d.op_count = count;
  return d;
}

// Puts of `bytes` land at k * region in the peer's window, from k * region
// of this rank's source buffer.
constexpr size_t REGION = size_t(1) << 20;

// Before each launch: this rank's window cleared, its sources filled for
// replay r, every rank past that point (no peer writes before the clear).
void prepare(unsigned char *src, size_t bytes, int r) {
  CUDA(cudaMemsetAsync(win_buf, 0, WINDOW_BYTES, stream));
  for (int k = 0; k < K; k++)
    fill<<<blocks_for(bytes), 256, 0, stream>>>(src + k * REGION, bytes, rank,
                                                r * K + k);
  clear_counter();
  CUDA(cudaStreamSynchronize(stream));
  agree_sum(0);
}

// The K regions partner put into this rank's window in replay r.
unsigned long long received(size_t bytes, int r) {
  for (int k = 0; k < K; k++)
    check<<<blocks_for(bytes), 256, 0, stream>>>(win_buf + k * REGION, bytes,
                                                 partner, r * K + k, mismatches);
  return read_counter();
}

// put_signal -> wait_signal and back, K rounds in one graph per rank.
void case_pingpong(size_t bytes) {
  std::string name = "pingpong bytes=" + std::to_string(bytes);
  unsigned char *src = nullptr;
  CUDA(cudaMalloc(&src, K * REGION));
  unsigned long long bad = 0;
  if (partner >= 0) {
    bool first = rank < partner;
    ncore_wait_signal_desc_t one = from(partner, 1);
    cudaGraphExec_t exec = capture([&] {
      for (int k = 0; k < K; k++) {
        if (!first) NC(ncore_wait_signal(comm, &one, 1, nstream()));
        NC(ncore_put_signal(comm, src + k * REGION, bytes, NCORE_UINT8, partner,
                            window, k * REGION, 0, 0, 0, nstream()));
        if (first) NC(ncore_wait_signal(comm, &one, 1, nstream()));
      }
    });
    for (int r = 0; r < REPLAYS; r++) {
      prepare(src, bytes, r);
      launch(exec);
      bad += received(bytes, r);
    }
    CUDA(cudaGraphExecDestroy(exec));
  } else {
    for (int r = 0; r < REPLAYS; r++) agree_sum(0);
  }
  CUDA(cudaFree(src));
  report(name, bad);
}

// The lower rank of each pair puts K times, 100 ms late; the higher one
// waits (one wait of K, or K waits of one) in a graph of its own.
void case_one_way(size_t bytes, bool waits_of_one) {
  std::string name = std::string(waits_of_one ? "waits_of_one" : "many_one_wait") +
                     " bytes=" + std::to_string(bytes);
  unsigned char *src = nullptr;
  CUDA(cudaMalloc(&src, K * REGION));
  unsigned long long bad = 0;
  bool sender = partner >= 0 && rank < partner;
  cudaGraphExec_t exec = nullptr;
  if (partner >= 0)
    exec = capture([&] {
      if (sender) {
        for (int k = 0; k < K; k++)
          NC(ncore_put_signal(comm, src + k * REGION, bytes, NCORE_UINT8,
                              partner, window, k * REGION, 0, 0, 0, nstream()));
      } else if (waits_of_one) {
        ncore_wait_signal_desc_t one = from(partner, 1);
        for (int k = 0; k < K; k++)
          NC(ncore_wait_signal(comm, &one, 1, nstream()));
      } else {
        ncore_wait_signal_desc_t all = from(partner, K);
        NC(ncore_wait_signal(comm, &all, 1, nstream()));
      }
    });
  for (int r = 0; r < REPLAYS; r++) {
    prepare(src, bytes, r);
    if (partner < 0) continue;
    if (sender) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    launch(exec);
    // Checked at once: a wait that did not wait finds zeros here.
    if (!sender) bad += received(bytes, r);
  }
  if (exec) CUDA(cudaGraphExecDestroy(exec));
  CUDA(cudaFree(src));
  report(name, bad);
}

// signal / wait_signal alone around the LSA pairs, replayed; then eager
// put_signal / wait_signal with the sender late: had the replays left the
// counts wrong, the eager wait would end early (zeros) or never.
void case_signal_wait() {
  unsigned long long bad = 0;
  unsigned char *src = nullptr;
  CUDA(cudaMalloc(&src, K * REGION));
  if (partner >= 0) {
    ncore_wait_signal_desc_t one = from(partner, 1);
    cudaGraphExec_t exec = capture([&] {
      for (int k = 0; k < K; k++) {
        NC(ncore_signal(comm, partner, 0, 0, 0, nstream()));
        NC(ncore_wait_signal(comm, &one, 1, nstream()));
      }
    });
    for (int r = 0; r < REPLAYS; r++) {
      agree_sum(0);
      launch(exec);
    }
    CUDA(cudaGraphExecDestroy(exec));
    prepare(src, 8, REPLAYS);
    bool sender = rank < partner;
    if (sender) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      for (int k = 0; k < K; k++)
        NC(ncore_put_signal(comm, src + k * REGION, 8, NCORE_UINT8, partner,
                            window, k * REGION, 0, 0, 0, nstream()));
      NC(ncore_comm_synchronize(comm, nstream()));
    } else {
      ncore_wait_signal_desc_t all = from(partner, K);
      NC(ncore_wait_signal(comm, &all, 1, nstream()));
      bad += received(8, REPLAYS);
    }
  } else {
    for (int r = 0; r < REPLAYS + 1; r++) agree_sum(0);
  }
  CUDA(cudaFree(src));
  report("signal_wait", bad);
}

// Symmetric put of this rank's row into its right LSA neighbour's
// allocation, then (another graph) get of that row back from there.
void case_symmetric() {
  const size_t bytes = 64 << 10;
  ncore_symmetric_t sym = NCORE_NULL_HANDLE;
  NC(ncore_symmetric_alloc(&sym, comm, bytes * (size_t)nranks));
  int first = rank - lsa_rank;
  int right = first + (lsa_rank + 1) % lsa_size;
  int left = first + (lsa_rank + lsa_size - 1) % lsa_size;
  void *local = nullptr;
  NC(ncore_symmetric_local_pointer(sym, &local));
  unsigned char *row = nullptr, *back = nullptr;
  CUDA(cudaMalloc(&row, bytes));
  CUDA(cudaMalloc(&back, bytes));
  unsigned long long bad = 0;
  if (lsa_size >= 2) {
    cudaGraphExec_t put = capture([&] {
      NC(ncore_symmetric_put(sym, (size_t)rank * bytes, row, bytes, right,
                             nstream()));
    });
    cudaGraphExec_t get = capture([&] {
      NC(ncore_symmetric_get(back, sym, (size_t)rank * bytes, bytes, right,
                             nstream()));
    });
    for (int r = 0; r < REPLAYS; r++) {
      clear_counter();
      fill<<<blocks_for(bytes), 256, 0, stream>>>(row, bytes, rank, r);
      CUDA(cudaMemsetAsync(back, 0, bytes, stream));
      CUDA(cudaStreamSynchronize(stream));
      agree_sum(0);
      launch(put);
      agree_sum(0);  // every row has landed
      check<<<blocks_for(bytes), 256, 0, stream>>>(
          (unsigned char *)local + (size_t)left * bytes, bytes, left, r,
          mismatches);
      launch(get);
      check<<<blocks_for(bytes), 256, 0, stream>>>(back, bytes, rank, r,
                                                   mismatches);
      bad += read_counter();
      agree_sum(0);  // nobody reads a row the next replay overwrites
    }
    CUDA(cudaGraphExecDestroy(put));
    CUDA(cudaGraphExecDestroy(get));
  }
  CUDA(cudaFree(row));
  CUDA(cudaFree(back));
  NC(ncore_symmetric_free(sym));
  report("symmetric", bad);
}

// "" when call answered NCORE_ERR_INVALID_USAGE with a message naming
// function and the CUDA graph; else what it did.
std::string refused(ncore_status_t status, const char *function) {
  const char *message = ncore_last_error_message();
  if (status == NCORE_ERR_INVALID_USAGE && std::strstr(message, function) &&
      std::strstr(message, "CUDA graph"))
    return "";
  return std::string(function) + " answered " + ncore_status_string(status) +
         " (" + message + ")";
}

bool env_is(const char *name, const char *value) {
  const char *v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

// Calls that cannot be replayed are refused during capture, the capture
// goes on, and it ends without an error with nothing in it.
void case_refused() {
  std::string why;
  auto note = [&](const std::string &w) {
    if (why.empty()) why = w;
  };
  int peer = partner >= 0 ? partner : rank;
  unsigned char *src = nullptr;
  CUDA(cudaMalloc(&src, 64));
  CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  note(refused(ncore_comm_synchronize(comm, nstream()), "ncore_comm_synchronize"));
  note(refused(ncore_stream_synchronize(nstream(), NCORE_BACKEND_NCCL),
               "ncore_stream_synchronize"));
  if (env_is("NCORE_NCCL_WAIT", "stream") || env_is("NCORE_NCCL_WAIT", "hybrid")) {
    ncore_wait_signal_desc_t one = from(peer, 1);
    note(refused(ncore_wait_signal(comm, &one, 1, nstream()), "ncore_wait_signal"));
  }
  if (env_is("NCORE_NCCL_SIGNAL_MODE", "write")) {
    note(refused(ncore_signal(comm, peer, 0, 0, 0, nstream()), "ncore_signal"));
    note(refused(ncore_put_signal(comm, src, 64, NCORE_UINT8, peer, window, 0, 0,
                                  0, 0, nstream()),
                 "ncore_put_signal"));
  }
  cudaStreamCaptureStatus state = cudaStreamCaptureStatusNone;
  CUDA(cudaStreamIsCapturing(stream, &state));
  if (state != cudaStreamCaptureStatusActive) note("the capture is no longer active");
  cudaGraph_t graph = nullptr;
  cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (ended != cudaSuccess)
    note(std::string("cudaStreamEndCapture: ") + cudaGetErrorString(ended));
  size_t nodes = 0;
  if (graph != nullptr) {
    CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
    CUDA(cudaGraphDestroy(graph));
  }
  if (nodes != 0) note(std::to_string(nodes) + " operations were captured");
  // Outside the capture, a synchronisation works again.
  NC(ncore_comm_synchronize(comm, nstream()));
  CUDA(cudaFree(src));
  report("refused", why);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> only(argv + 1, argv + argc);
  int devices = 0;
  cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess || devices == 0) {
    std::printf("skip graph_test: no CUDA device (%s)\n0 passed, 0 failed\n",
                counted != cudaSuccess ? cudaGetErrorString(counted) : "none found");
    return 0;
  }
  join(30000);
  int first = rank - lsa_rank;
  if ((rank ^ 1) < nranks && (rank ^ 1) >= first && (rank ^ 1) < first + lsa_size)
    partner = rank ^ 1;
  if (rank == 0)
    std::printf("graph_test: %d ranks, LSA team of %d; K=%d calls per graph, "
                "%d replays\n", nranks, lsa_size, K, REPLAYS);
  CUDA(cudaMalloc(&mismatches, sizeof *mismatches));
  NC(ncore_mem_alloc((void **)&win_buf, WINDOW_BYTES, NCORE_BACKEND_NCCL));
  NC(ncore_register_window(&window, comm, win_buf, WINDOW_BYTES,
                           NCORE_WINDOW_COLL_SYMMETRIC));
  auto want = [&](const char *name) {
    if (only.empty()) return true;
    for (auto &o : only) if (o == name) return true;
    return false;
  };
  bool host_counts = env_is("NCORE_NCCL_WAIT", "stream") ||
                     env_is("NCORE_NCCL_WAIT", "hybrid") ||
                     env_is("NCORE_NCCL_SIGNAL_MODE", "write");
  if (want("allreduce")) case_allreduce();
  if (want("ring")) case_ring();
  // Under the host-count modes the one-sided cases are refused by design
  // (the refused case checks that); the others run in every mode.
  if (!host_counts) {
    if (want("pingpong")) {
      case_pingpong(8);
      case_pingpong(64 << 10);
      case_pingpong(REGION);
    }
    if (want("many_one_wait")) {
      case_one_way(8, false);
      case_one_way(REGION, false);
    }
    if (want("waits_of_one")) case_one_way(4096, true);
    if (want("signal_wait")) case_signal_wait();
  }
  if (want("symmetric")) case_symmetric();
  if (want("refused")) case_refused();
  if (rank == 0) std::printf("%d passed, %d failed\n", passed, failed);
  NC(ncore_window_close(window));
  NC(ncore_mem_free(win_buf, NCORE_BACKEND_NCCL));
  NC(ncore_comm_destroy(comm));
  return failed ? 1 : 0;
}
