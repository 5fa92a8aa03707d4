/* bench/gpu/percall.c — the cost ncore adds to a call on NCCL (issue 15):
 * raw NCCL and ncore communicators in one process, on the same device and
 * stream, one rank; rounds of CALLS 8-byte calls, raw and ncore interleaved,
 * best of ROUNDS per side. The GPU is idle in these loops: enqueueing is
 * what is measured. Raw NCCL is the libnccl.so.2 ncore itself loaded
 * (NCORE_NCCL_LIBRARY or the loader's search), opened again with dlopen.
 * Prints one JSON object.
 * Usage: percall [CALLS [ROUNDS]]   (defaults 20000, 5) */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <nccl.h>
#include <ncore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIE(...) do { fprintf(stderr, "percall: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)
#define NCORE_OK_OR_DIE(call) do { ncore_status_t s_ = (call); if (s_ != NCORE_OK) DIE("%s: %s", #call, ncore_last_error_message()); } while (0)

static struct {
  ncclResult_t (*GetUniqueId)(ncclUniqueId *);
  ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*AllReduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*GroupStart)(void);
  ncclResult_t (*GroupEnd)(void);
  ncclResult_t (*GetVersion)(int *);
} nccl;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *sym(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p) DIE("%s missing", name);
  return p;
}

int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 20000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  /* ncore first: it finds libnccl; raw NCCL opens the same file. */
  ncore_unique_id_t id;
  NCORE_OK_OR_DIE(ncore_get_unique_id(&id, NCORE_BACKEND_NCCL));
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.backend = NCORE_BACKEND_NCCL;
  config.device = 0;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  NCORE_OK_OR_DIE(ncore_comm_init_rank(&comm, 1, &id, 0, &config));
  const char *path = getenv("NCORE_NCCL_LIBRARY");
  void *lib = dlopen(path && *path ? path : "libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = dlopen(path && *path ? path : "libnccl.so.2", RTLD_NOW);
  if (!lib) DIE("dlopen libnccl: %s", dlerror());
  nccl.GetUniqueId = sym(lib, "ncclGetUniqueId");
  nccl.CommInitRank = sym(lib, "ncclCommInitRank");
  nccl.CommDestroy = sym(lib, "ncclCommDestroy");
  nccl.AllReduce = sym(lib, "ncclAllReduce");
  nccl.Send = sym(lib, "ncclSend");
  nccl.Recv = sym(lib, "ncclRecv");
  nccl.GroupStart = sym(lib, "ncclGroupStart");
  nccl.GroupEnd = sym(lib, "ncclGroupEnd");
  nccl.GetVersion = sym(lib, "ncclGetVersion");
  int version = 0;
  nccl.GetVersion(&version);
  /* ncore made device 0's primary context current on this thread. */
  CUstream stream;
  if (cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) DIE("cuStreamCreate");
  ncclUniqueId rid;
  ncclComm_t raw;
  if (nccl.GetUniqueId(&rid) != ncclSuccess || nccl.CommInitRank(&raw, 1, rid, 0) != ncclSuccess)
    DIE("raw NCCL init");
  void *a = NULL, *b = NULL;
  NCORE_OK_OR_DIE(ncore_mem_alloc(&a, 4096, NCORE_BACKEND_NCCL));
  NCORE_OK_OR_DIE(ncore_mem_alloc(&b, 4096, NCORE_BACKEND_NCCL));
  const char *names[] = {"allreduce_8B", "group_send_recv_self_8B"};
  double best_raw[2] = {1e30, 1e30}, best_ncore[2] = {1e30, 1e30};
  for (int r = 0; r < rounds + 1; r++) { /* round 0 warms up */
    for (int op = 0; op < 2; op++) {
      for (int side = 0; side < 2; side++) {
        int ncore_side = (r + side) % 2; /* alternate which side goes first */
        double t0 = now_s();
        for (int i = 0; i < calls; i++) {
          if (op == 0) {
            if (ncore_side) NCORE_OK_OR_DIE(ncore_allreduce(comm, a, b, 2, NCORE_FLOAT32, NCORE_SUM, stream));
            else if (nccl.AllReduce(a, b, 2, ncclFloat32, ncclSum, raw, (cudaStream_t)stream) != ncclSuccess) DIE("ncclAllReduce");
          } else if (ncore_side) {
            NCORE_OK_OR_DIE(ncore_group_start());
            NCORE_OK_OR_DIE(ncore_send(comm, a, 2, NCORE_FLOAT32, 0, stream));
            NCORE_OK_OR_DIE(ncore_recv(comm, b, 2, NCORE_FLOAT32, 0, stream));
            NCORE_OK_OR_DIE(ncore_group_end());
          } else {
            nccl.GroupStart();
            nccl.Send(a, 2, ncclFloat32, 0, raw, (cudaStream_t)stream);
            nccl.Recv(b, 2, ncclFloat32, 0, raw, (cudaStream_t)stream);
            if (nccl.GroupEnd() != ncclSuccess) DIE("ncclGroupEnd");
          }
        }
        if (cuStreamSynchronize(stream) != CUDA_SUCCESS) DIE("cuStreamSynchronize");
        double per_call = (now_s() - t0) / calls * 1e6;
        if (r > 0) {
          double *best = ncore_side ? &best_ncore[op] : &best_raw[op];
          if (per_call < *best) *best = per_call;
        }
      }
    }
  }
  printf("{\"nccl_version\": %d, \"calls\": %d, \"rounds\": %d, \"results\": [", version, calls, rounds);
  for (int op = 0; op < 2; op++)
    printf("%s{\"call\": \"%s\", \"raw_us\": %.3f, \"ncore_us\": %.3f, \"ratio\": %.3f, \"added_us\": %.3f}",
           op ? ", " : "", names[op], best_raw[op], best_ncore[op], best_ncore[op] / best_raw[op],
           best_ncore[op] - best_raw[op]);
  printf("]}\n");
  nccl.CommDestroy(raw);
  NCORE_OK_OR_DIE(ncore_mem_free(a, NCORE_BACKEND_NCCL));
  NCORE_OK_OR_DIE(ncore_mem_free(b, NCORE_BACKEND_NCCL));
  NCORE_OK_OR_DIE(ncore_comm_destroy(comm));
  return 0;
}
