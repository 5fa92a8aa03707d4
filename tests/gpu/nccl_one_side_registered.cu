// nccl_one_side_registered.cu — raw NCCL (no ncore): a send/recv between two
// GPUs where only the receive buffer is registered with the communicator
// never completes on NVLink (P2P transport), while registering both sides or
// neither completes. The registration can be explicit (ncclCommRegister) or
// implicit: ncclCommWindowRegister calls ncclCommRegister on the window's
// memory (src/dev_runtime.cc of NCCL 2.28.9 and 2.30.7), so a receive into
// window memory from a plain send buffer is "one side registered". Why: each
// side decides alone whether its buffer is IPC-registered
// (src/enqueue.cc, "We require users registering buffers on both sides"),
// and a registered side moves data in steps of NCCL_MAX_NET_SIZE where the
// other uses the p2p chunk size (src/device/sendrecv.h, useLargeChunk).
// NCCL documents mixing registered and unregistered buffers as undefined
// behaviour (user guide, "User Buffer Registration"). This is the minimal
// reproducer of the hang first seen through ncore's put_signal sequence
// (tests/gpu/putsig_sequence.c); ncore's fix is in core/nccl/window_alias.c.
//
// Build (here): tests/gpu/build.sh. Run (GPU machine, 2+ GPUs):
//   build/bin/nccl_one_side_registered [bytes] [sends]
// Forks two ranks (GPUs 0 and 1) per case; each case prints
//   case <name>: completed | HANG (not complete after 15 s)
// and the program exits 0 when the cases behave as described above.
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); _exit(3); } } while (0)
#define NK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { printf("%s: %s\n", #x, ncclGetErrorString(r_)); _exit(3); } } while (0)

enum { REG_NONE, REG_RECV_ONLY, REG_BOTH, WIN_RECV_ONLY, WIN_BOTH };
static const char *case_names[] = {"nothing registered", "receive buffer registered (ncclCommRegister)",
                                   "both buffers registered (ncclCommRegister)",
                                   "receive buffer in a window (ncclCommWindowRegister)",
                                   "both buffers in windows"};

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

// One rank of one case; exit status 0 completed, 1 hang.
static int rank_main(int rank, ncclUniqueId id, int mode, size_t bytes, int sends) {
  CK(cudaSetDevice(rank));
  ncclComm_t comm;
  NK(ncclCommInitRank(&comm, 2, id, rank));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  void *src, *dst;
  NK(ncclMemAlloc(&src, bytes));
  NK(ncclMemAlloc(&dst, bytes));
  void *h1 = NULL, *h2 = NULL;
  ncclWindow_t w1 = NULL, w2 = NULL;
  int recv_side = rank == 1;
  if (mode == REG_RECV_ONLY && recv_side) NK(ncclCommRegister(comm, dst, bytes, &h1));
  if (mode == REG_BOTH) { NK(ncclCommRegister(comm, dst, bytes, &h1)); NK(ncclCommRegister(comm, src, bytes, &h2)); }
  // Window registration is collective: both ranks register dst; in
  // WIN_RECV_ONLY rank 0 sends from src, which is in no window.
  if (mode == WIN_RECV_ONLY || mode == WIN_BOTH) NK(ncclCommWindowRegister(comm, dst, bytes, &w1, 0));
  if (mode == WIN_BOTH) NK(ncclCommWindowRegister(comm, src, bytes, &w2, 0));
  CK(cudaStreamSynchronize(st));
  for (int i = 0; i < sends; i++) {
    if (rank == 0) NK(ncclSend(mode == WIN_BOTH ? src : src, bytes, ncclInt8, 1, comm, st));
    else NK(ncclRecv(dst, bytes, ncclInt8, 0, comm, st));
  }
  double deadline = now() + 15;
  cudaError_t q;
  while ((q = cudaStreamQuery(st)) == cudaErrorNotReady && now() < deadline) usleep(1000);
  if (q == cudaErrorNotReady) _exit(1);  // no clean teardown possible: the kernel still runs
  CK(q);
  if (w2) NK(ncclCommWindowDeregister(comm, w2));
  if (w1) NK(ncclCommWindowDeregister(comm, w1));
  if (h2) NK(ncclCommDeregister(comm, h2));
  if (h1) NK(ncclCommDeregister(comm, h1));
  NK(ncclCommDestroy(comm));
  return 0;
}

int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (1u << 20);
  int sends = argc > 2 ? atoi(argv[2]) : 50;
  setvbuf(stdout, NULL, _IONBF, 0);
  int bad = 0;
  for (int mode = REG_NONE; mode <= WIN_BOTH; mode++) {
    int fds[2];
    if (pipe(fds) != 0) return 3;
    pid_t pids[2];
    for (int r = 0; r < 2; r++) {
      pids[r] = fork();
      if (pids[r] == 0) {
        ncclUniqueId id;
        if (r == 0) {
          NK(ncclGetUniqueId(&id));
          if (write(fds[1], &id, sizeof id) != sizeof id) _exit(3);
        } else if (read(fds[0], &id, sizeof id) != sizeof id) _exit(3);
        _exit(rank_main(r, id, mode, bytes, sends));
      }
    }
    int status[2];
    for (int r = 0; r < 2; r++) waitpid(pids[r], &status[r], 0);
    close(fds[0]); close(fds[1]);
    int hung = 0, failed = 0;
    for (int r = 0; r < 2; r++) {
      int code = WIFEXITED(status[r]) ? WEXITSTATUS(status[r]) : 128;
      if (code == 1) hung = 1; else if (code != 0) failed = 1;
    }
    int expect_hang = mode == REG_RECV_ONLY || mode == WIN_RECV_ONLY;
    printf("case %s, %zu B x %d: %s\n", case_names[mode], bytes, sends,
           failed ? "FAILED" : hung ? "HANG (not complete after 15 s)" : "completed");
    if (failed || hung != expect_hang) bad = 1;
  }
  printf("nccl_one_side_registered: %s\n", bad ? "not as described" : "as described: one side registered hangs");
  return bad;
}
