// tests/gpu/put_signal_test.cu — put_signal → wait_signal on real GPUs, one
// rank per GPU: many puts before one wait, sizes from 1 byte to
// 1 GiB at unaligned offsets, both directions at once, every LSA peer at
// once, a waiter that starts late, separate waits of one signal each. The
// data is checked by a kernel on the waiting stream, after the wait, so a
// wait that let later work run before the data was there shows up as a
// mismatch. A case whose wait does not complete within WAIT_LIMIT_S is a
// failure that prints what the sender's stream got through (an event after
// each put) and how much of the data arrived, then the rank exits 3: a hung
// stream cannot be recovered in-process.
//
//   ncore-run -n 2 build/bin/put_signal_test [CASE ...] [--legacy-stream]
//
// Built by tests/gpu/build.sh with nvcc (the CUDA runtime linked statically:
// nothing but the driver and libncore is needed where it runs). Prints
// "ok CASE" / "FAIL CASE: why" on rank 0 and ends with "N passed, N failed".
#include "gpu_test.cuh"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr double WAIT_LIMIT_S = 30.0;
constexpr size_t WINDOW_BYTES = (size_t(1) << 30) + (size_t(1) << 20);  // 1 GiB + 1 MiB

using namespace gpu_test;

ncore_window_t window;
unsigned char *win_buf;  // this rank's part of the window
unsigned char *src_buf;  // what this rank puts from
bool legacy = false;     // --legacy-stream: the default stream instead
// --source-in-window: put from this rank's own window memory (ncclMemAlloc,
// second half) instead of cudaMalloc memory; cases then stay below 512 MiB.
bool source_in_window = false;
unsigned long long *mismatches;  // device counter

cudaStream_t work_stream() { return legacy ? (cudaStream_t)0 : stream; }
ncore_stream_t nstream() { return (ncore_stream_t)work_stream(); }

// One put: `bytes` from src_buf + src_off to peer's part at dst_off,
// the data filled first with (rank, seq).
void put(int peer, size_t src_off, size_t dst_off, size_t bytes, unsigned seq) {
  fill<<<blocks_for(bytes), 256, 0, work_stream()>>>(src_buf + src_off, bytes,
                                                      rank, seq);
  CUDA(cudaGetLastError());
  NC(ncore_put_signal(comm, src_buf + src_off, bytes, NCORE_UINT8, peer, window,
                      dst_off, 0, 0, 0, nstream()));
}

// Waits for the stream within WAIT_LIMIT_S; on expiry prints what arrived
// and exits 3.
void wait_stream_or_die(const char *what, const std::vector<cudaEvent_t> &marks,
                        size_t expect_from, size_t expect_bytes) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    cudaError_t q = cudaStreamQuery(work_stream());
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) CUDA(q);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > WAIT_LIMIT_S) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  size_t done = 0;
  for (cudaEvent_t e : marks) done += cudaEventQuery(e) == cudaSuccess;
  std::fprintf(stderr, "rank %d: %s: the stream did not complete in %.0f s; "
               "%zu of %zu put marks complete\n", rank, what, WAIT_LIMIT_S, done,
               marks.size());
  if (expect_bytes > 0) {
    // What arrived, read on a stream of its own (the work stream is stuck).
    cudaStream_t side;
    CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    std::vector<unsigned char> host(expect_bytes < (64u << 20) ? expect_bytes : (64u << 20));
    CUDA(cudaMemcpyAsync(host.data(), win_buf + expect_from, host.size(),
                         cudaMemcpyDeviceToHost, side));
    CUDA(cudaStreamSynchronize(side));
    size_t nonzero = 0;
    for (unsigned char b : host) nonzero += b != 0;
    std::fprintf(stderr, "rank %d: %s: %zu of the first %zu bytes expected "
                 "are non-zero\n", rank, what, nonzero, host.size());
  }
  std::fflush(stderr);
  std::_Exit(3);
}

void clear_window() {
  CUDA(cudaMemsetAsync(win_buf, 0, WINDOW_BYTES, stream));
  CUDA(cudaMemsetAsync(mismatches, 0, sizeof *mismatches, stream));
  CUDA(cudaStreamSynchronize(stream));
}

// Sender side of a batch: k puts of `bytes` to peer at offsets starting at
// `base` (unaligned by 3), each followed by an event mark.
std::vector<cudaEvent_t> send_batch(int peer, int k, size_t bytes, size_t base,
                                    unsigned seq0) {
  std::vector<cudaEvent_t> marks(k);
  for (int i = 0; i < k; i++) {
    put(peer, (size_t)i * bytes + 1, base + (size_t)i * bytes, bytes, seq0 + i);
    CUDA(cudaEventCreateWithFlags(&marks[i], cudaEventDisableTiming));
    CUDA(cudaEventRecord(marks[i], work_stream()));
  }
  return marks;
}

// Receiver side: one wait for k signals from each of `peers` (or k waits of
// one each), then the check kernels; returns the mismatch count.
unsigned long long receive_batch(const std::vector<int> &peers, int k,
                                 size_t bytes, std::vector<size_t> bases,
                                 unsigned seq0, bool one_by_one,
                                 const char *what) {
  if (one_by_one) {
    for (int i = 0; i < k; i++)
      for (int p : peers) {
        ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
        d.peer = p;
        d.op_count = 1;
        NC(ncore_wait_signal(comm, &d, 1, nstream()));
      }
  } else {
    std::vector<ncore_wait_signal_desc_t> descs;
    for (int p : peers) {
      ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
      d.peer = p;
      d.op_count = (uint32_t)k;
      descs.push_back(d);
    }
    NC(ncore_wait_signal(comm, descs.data(), descs.size(), nstream()));
  }
  for (size_t j = 0; j < peers.size(); j++)
    for (int i = 0; i < k; i++)
      check<<<blocks_for(bytes), 256, 0, work_stream()>>>(
          win_buf + bases[j] + (size_t)i * bytes, bytes, peers[j], seq0 + i,
          mismatches);
  CUDA(cudaGetLastError());
  wait_stream_or_die(what, {}, bases.empty() ? 0 : bases[0], (size_t)k * bytes);
  unsigned long long bad = 0;
  CUDA(cudaMemcpy(&bad, mismatches, sizeof bad, cudaMemcpyDeviceToHost));
  return bad;
}

// Rank 0 puts k × bytes to rank 1, which waits (one wait of k, or k waits).
void one_way(int k, size_t bytes, bool one_by_one, int late_ms = 0) {
  std::string name = "one_way k=" + std::to_string(k) + " bytes=" +
                     std::to_string(bytes) + (one_by_one ? " waits=1each" : "") +
                     (late_ms ? " late_waiter" : "");
  clear_window();
  agree_sum(0);
  unsigned long long bad = 0;
  if (rank == 0) {
    auto marks = send_batch(1, k, bytes, 3, 100);
    wait_stream_or_die(name.c_str(), marks, 0, 0);
    for (auto e : marks) cudaEventDestroy(e);
  } else if (rank == 1) {
    if (late_ms) std::this_thread::sleep_for(std::chrono::milliseconds(late_ms));
    bad = receive_batch({0}, k, bytes, {3}, 100, one_by_one, name.c_str());
  }
  report(name, bad);
}

// Every pair (r, r ^ 1) puts to each other at once.
void both_directions(int k, size_t bytes) {
  std::string name = "both_directions k=" + std::to_string(k) + " bytes=" + std::to_string(bytes);
  clear_window();
  agree_sum(0);
  int peer = rank ^ 1;
  unsigned long long bad = 0;
  if (peer < nranks) {
    auto marks = send_batch(peer, k, bytes, 5, 200);
    bad = receive_batch({peer}, k, bytes, {5}, 200, false, name.c_str());
    for (auto e : marks) cudaEventDestroy(e);
  }
  report(name, bad);
}

// Every rank puts to every other rank of its LSA team, into a region of
// its own in the peer's window, then waits for all of them in one call.
void all_peers(int k, size_t bytes) {
  std::string name = "all_peers k=" + std::to_string(k) + " bytes=" + std::to_string(bytes);
  clear_window();
  agree_sum(0);
  int first = rank - lsa_rank;
  size_t region = (size_t)k * bytes + 64;
  std::vector<int> peers;
  std::vector<size_t> bases;
  std::vector<cudaEvent_t> all;
  for (int p = first; p < first + lsa_size; p++) {
    if (p == rank) continue;
    // Into p's window at the region of this rank; from a source region of
    // this peer's own (the fill is per put).
    for (int i = 0; i < k; i++) {
      size_t src = (size_t)(p - first) * region + (size_t)i * bytes;
      fill<<<blocks_for(bytes), 256, 0, work_stream()>>>(src_buf + src, bytes, rank, 300 + i);
      NC(ncore_put_signal(comm, src_buf + src, bytes, NCORE_UINT8, p, window,
                          (size_t)rank * region + 7 + (size_t)i * bytes, 0, 0, 0,
                          nstream()));
    }
    peers.push_back(p);
    bases.push_back((size_t)p * region + 7);
  }
  unsigned long long bad = 0;
  if (!peers.empty())
    bad = receive_batch(peers, k, bytes, bases, 300, false, name.c_str());
  report(name, bad);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> only;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--legacy-stream") == 0) legacy = true;
    else if (std::strcmp(argv[i], "--source-in-window") == 0) source_in_window = true;
    else only.push_back(argv[i]);
  }
  join(60000);
  if (rank == 0)
    std::printf("put_signal_test: %d ranks, LSA team of %d, %s stream\n", nranks,
                lsa_size, legacy ? "the legacy default" : "a created");
  if (lsa_size < 2) {
    if (rank == 0) std::printf("skip all: no LSA peer (every rank its own team)\n0 passed, 0 failed\n");
    ncore_comm_destroy(comm);
    return 0;
  }
  NC(ncore_mem_alloc((void **)&win_buf, WINDOW_BYTES, NCORE_BACKEND_NCCL));
  if (source_in_window) src_buf = win_buf + (WINDOW_BYTES / 2);
  else CUDA(cudaMalloc(&src_buf, WINDOW_BYTES));
  CUDA(cudaMalloc(&mismatches, sizeof *mismatches));
  NC(ncore_register_window(&window, comm, win_buf, WINDOW_BYTES, NCORE_WINDOW_COLL_SYMMETRIC));

  auto want = [&](const char *name) {
    if (only.empty()) return true;
    for (auto &o : only) if (o == name) return true;
    return false;
  };
  if (want("many_before_one_wait") && nranks >= 2) {
    for (int k : {1, 2, 50, 1000}) one_way(k, 8, false);
    for (int k : {1, 50}) one_way(k, 1 << 20, false);   // the issue's hang
    for (int k : {1, 50, 1000}) one_way(k, 16385, false);
  }
  if (want("sizes") && nranks >= 2) {
    for (size_t b : {size_t(1), size_t(7), size_t(4097), size_t(16384), size_t(16385),
                     size_t(1) << 20, (size_t(64) << 20) + 5, size_t(256) << 20,
                     size_t(1) << 30})
      one_way(1, b, false);
  }
  if (want("waits_of_one") && nranks >= 2) {
    one_way(50, 8, true);
    one_way(50, 1 << 20, true);
  }
  if (want("late_waiter") && nranks >= 2) {
    one_way(50, 1 << 20, false, 300);
    one_way(10, 8, true, 300);
  }
  if (want("both_directions")) {
    both_directions(50, 1 << 20);
    both_directions(200, 8);
  }
  if (want("all_peers")) {
    all_peers(20, 1 << 20);
    all_peers(100, 16);
  }
  if (rank == 0) std::printf("%d passed, %d failed\n", passed, failed);
  NC(ncore_window_close(window));
  NC(ncore_comm_destroy(comm));
  return failed ? 1 : 0;
}
