// tests/gpu/gpu_test.cuh — what the CUDA test programs of tests/gpu share:
// the rank's communicator and stream, the checks that end the rank on a
// failed CUDA or ncore call, the byte pattern a sender writes and a kernel
// on the receiving stream checks, and the per-case verdict every rank
// agrees on (rank 0 prints "ok CASE" / "FAIL CASE: why"; main ends with
// "N passed, N failed"). One program per .cu file includes it once.
#pragma once

#include <cuda_runtime.h>
#include <ncore.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpu_test {

inline int rank, nranks, lsa_rank, lsa_size;
inline ncore_comm_t comm;
inline cudaStream_t stream;  // the stream the cases' calls go on
inline int passed, failed;

#define CUDA(call)                                                          \
  do {                                                                      \
    cudaError_t e_ = (call);                                                \
    if (e_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "rank %d: %s: %s\n", gpu_test::rank, #call,     \
                   cudaGetErrorString(e_));                                 \
      std::exit(4);                                                         \
    }                                                                       \
  } while (0)

#define NC(call)                                                            \
  do {                                                                      \
    ncore_status_t s_ = (call);                                             \
    if (s_ != NCORE_OK) {                                                   \
      std::fprintf(stderr, "rank %d: %s: %s (%s)\n", gpu_test::rank, #call, \
                   ncore_status_string(s_), ncore_last_error_message());    \
      std::exit(4);                                                         \
    }                                                                       \
  } while (0)

// The byte a put from `from` with sequence number `seq` carries at index i.
__host__ __device__ inline unsigned char pattern(int from, unsigned seq,
                                                 size_t i) {
  uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ ((uint64_t)from << 40) ^
               ((uint64_t)seq << 20);
  x ^= x >> 29;
  return (unsigned char)(x * 0xbf58476d1ce4e5b9ull >> 56);
}

// dst[0, n) = pattern(from, seq, i).
__global__ void fill(unsigned char *dst, size_t n, int from, unsigned seq) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = pattern(from, seq, i);
}

// Adds to *bad the bytes of got[0, n) that differ from pattern(from, seq).
__global__ void check(const unsigned char *got, size_t n, int from,
                      unsigned seq, unsigned long long *bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    mine += got[i] != pattern(from, seq, i);
  if (mine) atomicAdd(bad, mine);
}

inline unsigned blocks_for(size_t n) {
  size_t b = (n + 255) / 256;
  return (unsigned)(b < 1 ? 1 : b > 1024 ? 1024 : b);
}

// Every rank, host-synchronised (an allreduce of one int, completed).
inline int agree_sum(int value) {
  int *d = nullptr;
  CUDA(cudaMalloc(&d, sizeof(int)));
  CUDA(cudaMemcpy(d, &value, sizeof value, cudaMemcpyHostToDevice));
  NC(ncore_allreduce(comm, d, d, 1, NCORE_INT32, NCORE_SUM,
                     (ncore_stream_t)stream));
  NC(ncore_comm_synchronize(comm, (ncore_stream_t)stream));
  int sum = 0;
  CUDA(cudaMemcpy(&sum, d, sizeof sum, cudaMemcpyDeviceToHost));
  CUDA(cudaFree(d));
  return sum;
}

// The case's verdict: failed on every rank if it failed on one (why_here:
// this rank's reason, empty when it passed); rank 0 prints it.
inline void report(const std::string &name, const std::string &why_here) {
  if (!why_here.empty())
    std::fprintf(stderr, "rank %d: %s: %s\n", rank, name.c_str(),
                 why_here.c_str());
  int bad = agree_sum(why_here.empty() ? 0 : 1);
  if (rank == 0) {
    if (bad) std::printf("FAIL %s: failed on %d rank(s) (their stderr says why)\n",
                         name.c_str(), bad);
    else std::printf("ok %s\n", name.c_str());
    std::fflush(stdout);
  }
  (bad ? failed : passed)++;
}

// The same, from a count of mismatched bytes this rank saw.
inline void report(const std::string &name, unsigned long long bad_here) {
  report(name, bad_here ? std::to_string(bad_here) + " bytes differ" : "");
}

// Joins the job ncore-run started (the device rule picks the GPU), makes
// that device current and the stream; timeout_ms bounds every wait.
inline void join(int timeout_ms) {
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.timeout_ms = timeout_ms;
  NC(ncore_comm_init_from_env(&comm, &config));
  int device = -1;
  NC(ncore_comm_rank(comm, &rank));
  NC(ncore_comm_size(comm, &nranks));
  NC(ncore_comm_device(comm, &device));
  NC(ncore_comm_lsa_rank(comm, &lsa_rank));
  NC(ncore_comm_lsa_size(comm, &lsa_size));
  CUDA(cudaSetDevice(device));
  CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
}

}  // namespace gpu_test
