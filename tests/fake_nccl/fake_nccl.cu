// tests/fake_nccl — a test double of libnccl.so.2 for NCCL versions the
// machines cannot run. Built once per header set (tools: build.sh) against
// the REAL headers of the version it pretends to be (the CUDA toolkit's
// 2.28.9, third_party/nccl-headers/{2.29.7,2.30.7}), so what it reads from
// ncore is interpreted with NCCL's own struct definitions, not ncore's
// mirrors. It exports that version's symbols only, reports its version,
// validates what NCCL validates (size / magic / version of the versioned
// structs), records what it received (fake_nccl_record), and behaves as a
// one-rank communicator on host memory. With the stand-in driver
// (fake_cuda.c) it lets the dispatch of every version run in CI.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <thread>
#include <map>
#include <mutex>
#include <vector>
#include <string>
#include <nccl.h>
#include <nccl_device.h>

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace {
std::mutex lock;
std::map<std::string, long long> &records() {
  static std::map<std::string, long long> r;
  return r;
}
void record(const std::string &key, long long value) {
  std::lock_guard<std::mutex> g(lock);
  records()[key] = value;
}
void count(const char *call) {
  std::lock_guard<std::mutex> g(lock);
  records()[std::string("calls.") + call]++;
}
thread_local char last_error[256];
ncclResult_t fail(ncclResult_t r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return r;
}
struct FakeComm {
  int revoked = 0, suspended = 0, id_outstanding = 0;
  int nranks = 1, rank = 0;
  int device = 0; /* the device current when it was made, as NCCL's */
  int busy_polls = 0; /* ncclCommGetAsyncError answers InProgress this often */
  /* A child made while this communicator was busy: as NCCL's init job, the
   * fake writes it to the caller's pointer only when the busy polls end. */
  ncclComm_t *child_out = nullptr;
  ncclComm_t child = nullptr;
  int windows_registered = 0; /* FAKE_NCCL_LSA_WORLD: its registrations */
};
struct FakeWindow {
  char *base;
  size_t size;
  int index = -1; /* FAKE_NCCL_LSA_WORLD: which collective registration */
};
// FAKE_NCCL_LSA_WORLD (with FAKE_NCCL_WORLD_RANKS=N): the N ranks are
// threads of this process and form one LSA team, as GPUs of one machine:
// a window registration is collective (each rank's k-th waits for the
// others' k-th, 10 s at most), and a window's pointer for a peer is that
// peer's buffer. What ncore does between LSA peers runs on host memory.
bool lsa_world() { return std::getenv("FAKE_NCCL_LSA_WORLD") != nullptr; }
std::condition_variable world_windows_changed;
std::vector<std::vector<char *>> &world_windows() { /* [index][rank] */
  static std::vector<std::vector<char *>> w;
  return w;
}
}  // namespace

// What the fake saw: the value recorded under key, or -1 if none.
/* The banner real libnccl embeds (src/init.cc VERSION_STRING), which
 * ncore_library_info reads the CUDA version from. */
#define FAKE_STR2(x) #x
#define FAKE_STR(x) FAKE_STR2(x)
__attribute__((used)) static const char fake_version_banner[] =
    "NCCL version " FAKE_STR(NCCL_MAJOR) "." FAKE_STR(NCCL_MINOR) "." FAKE_STR(NCCL_PATCH)
    "+cuda12.9";

FAKE_API long long fake_nccl_record(const char *key) {
  std::lock_guard<std::mutex> g(lock);
  auto it = records().find(key);
  return it == records().end() ? -1 : it->second;
}

FAKE_API ncclResult_t ncclGetVersion(int *v) {
  *v = NCCL_VERSION_CODE;
  return ncclSuccess;
}
FAKE_API const char *ncclGetErrorString(ncclResult_t r) {
  return r == ncclSuccess ? "no error" : "fake NCCL error";
}
FAKE_API const char *ncclGetLastError(ncclComm_t) { return last_error; }
FAKE_API ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  std::memset(id, 0x11, sizeof *id);
  return ncclSuccess;
}

static ncclResult_t check_config(const ncclConfig_t *config) {
  if (config == nullptr) return ncclSuccess;
  record("config.size", (long long)config->size);
  record("config.magic", config->magic);
  record("config.version", config->version);
  // NCCL copies min(size, sizeof) bytes: a size below its own is a caller
  // built against an older NCCL; ncore always passes at least NCCL's.
  if (config->magic != 0xcafebeef)
    return fail(ncclInvalidArgument, "config magic 0x%x", config->magic);
  if (config->size < sizeof(ncclConfig_t))
    return fail(ncclInvalidArgument, "config size %zu < %zu", config->size,
                sizeof(ncclConfig_t));
  if (config->version > NCCL_VERSION_CODE)
    return fail(ncclInvalidArgument, "config version %u newer than %d",
                config->version, NCCL_VERSION_CODE);
  record("config.blocking", config->blocking);
  record("config.CTAPolicy", config->CTAPolicy);
#if NCCL_VERSION_CODE >= 22900
  record("config.graphUsageMode", config->graphUsageMode);
  record("config.numRmaCtx", config->numRmaCtx);
#endif
#if NCCL_VERSION_CODE >= 23000
  record("config.maxP2pPeers", config->maxP2pPeers);
#endif
#if NCCL_VERSION_CODE >= 23005
  record("config.graphStreamOrdering", config->graphStreamOrdering);
#endif
#if NCCL_VERSION_CODE >= 23100
  record("config.launchOrderImplicit", config->launchOrderImplicit);
  record("config.numRmaSig", config->numRmaSig);
  record("config.rmaEagerInit", config->rmaEagerInit);
#endif
#if NCCL_VERSION_CODE >= 23101
  record("config.hostCftMode", config->hostCftMode);
#endif
#if NCCL_VERSION_CODE >= 23200
  record("config.nvlsHostMode", config->nvlsHostMode);
#endif
  return ncclSuccess;
}

// FAKE_NCCL_WORLD_RANKS (default 1): the ranks of a world communicator, of
// which this process plays any one; every rank is its own LSA team (as
// ranks on one GPU, each its own NCCL host). Nothing crosses to the other
// ranks: it shows what ncore does around a world of several LSA teams.
static int world_ranks() {
  const char *n = std::getenv("FAKE_NCCL_WORLD_RANKS");
  return n ? std::atoi(n) : 1;
}
// The calling thread's current device, from the stand-in driver ncore
// loaded (NCORE_CUDA_LIBRARY): NCCL runs a rank on the current device.
static int current_device() {
  const char *lib = std::getenv("NCORE_CUDA_LIBRARY");
  void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  auto get = h ? reinterpret_cast<CUresult (*)(CUdevice *)>(
                     dlsym(h, "cuCtxGetDevice"))
               : nullptr;
  CUdevice d = 0;
  if (get == nullptr || get(&d) != CUDA_SUCCESS) d = 0;
  return static_cast<int>(d);
}
static ncclComm_t new_comm(int nranks, int rank) {
  FakeComm *c = new FakeComm;
  c->nranks = nranks;
  c->rank = rank;
  c->device = current_device();
  return reinterpret_cast<ncclComm_t>(c);
}
static ncclResult_t make_comm(ncclComm_t *comm, int nranks, int rank) {
  if (nranks != world_ranks() || rank < 0 || rank >= nranks)
    return fail(ncclInvalidArgument, "the fake runs rank %d of %d ranks only "
                "(FAKE_NCCL_WORLD_RANKS), not of %d", rank, world_ranks(),
                nranks);
  *comm = new_comm(nranks, rank);
  return ncclSuccess;
}
static FakeComm *fake(ncclComm_t comm) {
  return reinterpret_cast<FakeComm *>(comm);
}
// A non-blocking communicator's calls: FAKE_NCCL_IN_PROGRESS=N makes an
// enqueue answer ncclInProgress and the communicator's state stay
// ncclInProgress for N polls; until then NCCL refuses every other call on
// it, with NCCL's own message.
static ncclResult_t refuse_if_busy(ncclComm_t comm) {
  if (comm != nullptr && fake(comm)->busy_polls > 0)
    return fail(ncclInvalidUsage, "Attempt to use communicator before the "
                "previous operation returned ncclSuccess");
  return ncclSuccess;
}
static ncclResult_t enqueued(ncclComm_t comm) {
  const char *n = std::getenv("FAKE_NCCL_IN_PROGRESS");
  if (n == nullptr || comm == nullptr) return ncclSuccess;
  fake(comm)->busy_polls = std::atoi(n);
  return ncclInProgress;
}

FAKE_API ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                             ncclUniqueId, int rank,
                                             ncclConfig_t *config) {
  count("ncclCommInitRankConfig");
  ncclResult_t r = check_config(config);
  return r != ncclSuccess ? r : make_comm(comm, nranks, rank);
}
FAKE_API ncclResult_t ncclCommInitRankScalable(ncclComm_t *comm, int nranks,
                                               int rank, int nIds,
                                               ncclUniqueId *, ncclConfig_t *config) {
  count("ncclCommInitRankScalable");
  record("scalable.nIds", nIds);
  ncclResult_t r = check_config(config);
  return r != ncclSuccess ? r : make_comm(comm, nranks, rank);
}
FAKE_API ncclResult_t ncclCommInitAll(ncclComm_t *comms, int n, const int *) {
  return make_comm(comms, n, 0);
}
FAKE_API ncclResult_t ncclCommSplit(ncclComm_t parent, int color, int,
                                    ncclComm_t *out, ncclConfig_t *config) {
  if (refuse_if_busy(parent) != ncclSuccess) return ncclInvalidUsage;
  count("ncclCommSplit");
  // A non-blocking parent is in progress while its child is made.
  (void)enqueued(parent);
  ncclResult_t r = check_config(config);
  if (r != ncclSuccess) return r;
  if (color == NCCL_SPLIT_NOCOLOR) {
    *out = nullptr;
    return ncclSuccess;
  }
  // FAKE_NCCL_SPLIT_RESULT: what a split answers instead (a peer that died
  // during it: ncclRemoteError = 6).
  if (const char *result = std::getenv("FAKE_NCCL_SPLIT_RESULT"))
    return fail((ncclResult_t)std::atoi(result), "split answers %s", result);
  ncclComm_t child = new_comm(1, 0); /* the rank's own team, in this world */
  if (fake(parent)->busy_polls > 0) {
    *out = nullptr; /* NCCL: NULL until the child's init job ends */
    fake(parent)->child_out = out;
    fake(parent)->child = child;
    return ncclInProgress;
  }
  *out = child;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommShrink(ncclComm_t, int *, int, ncclComm_t *,
                                     ncclConfig_t *, int) {
  return fail(ncclInvalidArgument, "a one-rank fake excludes nobody");
}
// FAKE_NCCL_FINALIZE_RESULT: the ncclResult_t finalize answers (a result
// code of a newer NCCL, such as ncclTimeout = 8, reaches ncore this way).
FAKE_API ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  if (refuse_if_busy(comm) != ncclSuccess) return ncclInvalidUsage;
  const char *result = std::getenv("FAKE_NCCL_FINALIZE_RESULT");
  if (result == nullptr) return ncclSuccess;
  return fail((ncclResult_t)std::atoi(result), "finalize answers %s", result);
}
// A world's communicator gone: its rank's registrations leave the world's
// table, so a later world (another test) registers afresh.
static void world_forget(FakeComm *f) {
  if (f->nranks <= 1) return;
  std::lock_guard<std::mutex> g(lock);
  auto &all = world_windows();
  for (int i = 0; i < f->windows_registered && i < (int)all.size(); i++)
    if (f->rank < (int)all[i].size()) all[i][f->rank] = nullptr;
}
FAKE_API ncclResult_t ncclCommDestroy(ncclComm_t c) {
  world_forget(fake(c));
  delete fake(c);
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommAbort(ncclComm_t c) {
  world_forget(fake(c));
  delete fake(c);
  return ncclSuccess;
}
// FAKE_NCCL_ASYNC_ERROR: the communicator's asynchronous error (a peer
// that NCCL found dead: ncclRemoteError = 6), while its streams complete:
// NCCL's kernels leave early once a communicator fails.
FAKE_API ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *e) {
  *e = ncclSuccess;
  if (c != nullptr && fake(c)->busy_polls > 0) {
    if (--fake(c)->busy_polls == 0 && fake(c)->child_out != nullptr) {
      *fake(c)->child_out = fake(c)->child; /* the job's late write */
      fake(c)->child_out = nullptr;
    }
    *e = ncclInProgress;
  } else if (const char *async = std::getenv("FAKE_NCCL_ASYNC_ERROR")) {
    *e = (ncclResult_t)std::atoi(async);
  }
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommCount(const ncclComm_t c, int *n) {
  *n = fake(c)->nranks;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommCuDevice(const ncclComm_t c, int *d) {
  *d = fake(c)->device;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommUserRank(const ncclComm_t c, int *r) {
  *r = fake(c)->rank;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommRegister(const ncclComm_t, void *, size_t,
                                       void **handle) {
  *handle = std::malloc(1);
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommDeregister(const ncclComm_t, void *handle) {
  std::free(handle);
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommWindowRegister(ncclComm_t c, void *buff, size_t size,
                                             ncclWindow_t *win, int flags) {
  count("ncclCommWindowRegister");
  record("window.flags", flags);
  if (fake(c)->nranks > 1 && !lsa_world()) {
    // Several LSA teams and no GIN: NCCL 2.29.2+ makes no window, without
    // an error (seen on the GPU machine); the fake answers so for every
    // version, since ncore takes the same path on each.
    *win = nullptr;
    return ncclSuccess;
  }
  FakeWindow *w = new FakeWindow{(char *)buff, size};
  if (fake(c)->nranks > 1) {
    std::unique_lock<std::mutex> g(lock);
    auto &all = world_windows();
    w->index = fake(c)->windows_registered++;
    if ((int)all.size() <= w->index) all.resize(w->index + 1);
    all[w->index].resize(fake(c)->nranks, nullptr);
    all[w->index][fake(c)->rank] = (char *)buff;
    world_windows_changed.notify_all();
    auto complete = [&] {
      for (char *b : all[w->index])
        if (b == nullptr) return false;
      return true;
    };
    if (!world_windows_changed.wait_for(g, std::chrono::seconds(10), complete)) {
      int index = w->index;
      delete w;
      return fail(ncclSystemError, "window %d: not every rank registered it", index);
    }
  }
  *win = reinterpret_cast<ncclWindow_t>(w);
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommWindowDeregister(ncclComm_t, ncclWindow_t win) {
  delete reinterpret_cast<FakeWindow *>(win);
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *,
                                               ncclDataType_t,
                                               ncclScalarResidence_t, ncclComm_t) {
  *op = (ncclRedOp_t)ncclNumOps;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclRedOpDestroy(ncclRedOp_t, ncclComm_t) { return ncclSuccess; }
FAKE_API ncclResult_t ncclMemAlloc(void **ptr, size_t size) {
  *ptr = std::calloc(1, size ? size : 1);
  return *ptr ? ncclSuccess : ncclSystemError;
}
FAKE_API ncclResult_t ncclMemFree(void *ptr) {
  std::free(ptr);
  return ncclSuccess;
}
// FAKE_NCCL_TOUCH_BYTES=N (default 0): every enqueue (each collective,
// send and recv, and ncclGroupEnd, where NCCL launches a group) writes one
// byte in each 64-byte line of N bytes of the double's own memory and runs
// through 64 KiB of its own code, as real NCCL's ~9 us enqueue works
// through its own state and code: what the caller keeps between calls,
// data and instructions, is then evicted as on a GPU host, so that a cache
// simulation (bench/gpu/entry_cost_profile.py) counts the caller's misses
// of a cold call. Read once: the knob must not add work of its own.
#define FAKE_CODE_2(x) x x
#define FAKE_CODE_8(x) FAKE_CODE_2(FAKE_CODE_2(FAKE_CODE_2(x)))
#define FAKE_CODE_512(x) FAKE_CODE_8(FAKE_CODE_8(FAKE_CODE_8(x)))
static void __attribute__((noinline)) run_code_footprint() {
  // Each step is a load, an add and a store of its own (volatile): about
  // 16 bytes of code, 4096 of them.
  static volatile unsigned step;
  FAKE_CODE_8(FAKE_CODE_512(step = step + 1u;))
}
static void touch_footprint() {
  static const size_t bytes = [] {
    const char *n = std::getenv("FAKE_NCCL_TOUCH_BYTES");
    return n != nullptr ? (size_t)std::strtoull(n, nullptr, 10) : (size_t)0;
  }();
  static volatile unsigned char *const memory =
      bytes > 0 ? static_cast<unsigned char *>(std::calloc(bytes, 1)) : nullptr;
  if (memory == nullptr) return;
  for (size_t i = 0; i < bytes; i += 64) memory[i] = (unsigned char)(memory[i] + 1);
  run_code_footprint();
}
FAKE_API ncclResult_t ncclGroupStart() { return ncclSuccess; }
FAKE_API ncclResult_t ncclGroupEnd() {
  touch_footprint();
  return ncclSuccess;
}

static size_t type_size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
  }
}
// One rank: every collective copies send to receive.
static ncclResult_t copy(const void *s, void *r, size_t n, ncclDataType_t t,
                         ncclComm_t comm, cudaStream_t stream,
                         const char *call) {
  ncclResult_t busy = refuse_if_busy(comm);
  if (busy != ncclSuccess) return busy;
  count(call);
  record((std::string("stream.") + call).c_str(),
         (long long)(uintptr_t)stream);
  if (s != r) std::memmove(r, s, n * type_size(t));
  touch_footprint();
  return enqueued(comm);
}
// FAKE_NCCL_P2P_BLOCK_MS: send and recv stay that long inside the call, as
// NCCL's do while they set up the connection to a peer not there yet.
static void p2p_block() {
  if (const char *ms = std::getenv("FAKE_NCCL_P2P_BLOCK_MS"))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atol(ms)));
}
FAKE_API ncclResult_t ncclSend(const void *, size_t, ncclDataType_t, int,
                               ncclComm_t, cudaStream_t) {
  count("ncclSend");
  touch_footprint();
  p2p_block();
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclRecv(void *, size_t, ncclDataType_t, int, ncclComm_t,
                               cudaStream_t) {
  count("ncclRecv");
  touch_footprint();
  p2p_block();
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclAllReduce(const void *s, void *r, size_t n,
                                    ncclDataType_t t, ncclRedOp_t, ncclComm_t comm,
                                    cudaStream_t stream) {
  return copy(s, r, n, t, comm, stream, "ncclAllReduce");
}
FAKE_API ncclResult_t ncclBroadcast(const void *s, void *r, size_t n,
                                    ncclDataType_t t, int, ncclComm_t comm,
                                    cudaStream_t stream) {
  return copy(s, r, n, t, comm, stream, "ncclBroadcast");
}
FAKE_API ncclResult_t ncclReduce(const void *s, void *r, size_t n,
                                 ncclDataType_t t, ncclRedOp_t, int, ncclComm_t comm,
                                 cudaStream_t stream) {
  return copy(s, r, n, t, comm, stream, "ncclReduce");
}
FAKE_API ncclResult_t ncclAllGather(const void *s, void *r, size_t n,
                                    ncclDataType_t t, ncclComm_t comm, cudaStream_t stream) {
  return copy(s, r, n, t, comm, stream, "ncclAllGather");
}
FAKE_API ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n,
                                        ncclDataType_t t, ncclRedOp_t,
                                        ncclComm_t comm, cudaStream_t stream) {
  return copy(s, r, n, t, comm, stream, "ncclReduceScatter");
}
FAKE_API ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n,
                                   ncclDataType_t t, ncclComm_t comm, cudaStream_t stream) {
  return copy(s, r, n, t, comm, stream, "ncclAlltoAll");
}
FAKE_API ncclResult_t ncclGather(const void *s, void *r, size_t n,
                                 ncclDataType_t t, int, ncclComm_t comm, cudaStream_t stream) {
  return copy(s, r, n, t, comm, stream, "ncclGather");
}
FAKE_API ncclResult_t ncclScatter(const void *s, void *r, size_t n,
                                  ncclDataType_t t, int, ncclComm_t comm,
                                  cudaStream_t stream) {
  return copy(s, r, n, t, comm, stream, "ncclScatter");
}

// ---- device API host calls ----
FAKE_API ncclResult_t ncclDevCommCreate(ncclComm_t,
                                        ncclDevCommRequirements_t const *reqs,
                                        ncclDevComm_t *out) {
  count("ncclDevCommCreate");
#if NCCL_VERSION_CODE >= 22902
  record("reqs.size", (long long)reqs->size);
  record("reqs.magic", reqs->magic);
  record("reqs.version", reqs->version);
  // src/dev_runtime.cc: the magic is required, and NCCL copies `size`
  // bytes into its own struct.
  if (reqs->magic != 0xcafebeef)
    return fail(ncclInvalidUsage, "ncclDevCommRequirements_t argument must be "
                "initialized via NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER");
  if (reqs->size > sizeof(ncclDevCommRequirements_t))
    return fail(ncclInvalidUsage, "requirements size %zu > %zu", reqs->size,
                sizeof(ncclDevCommRequirements_t));
  if (reqs->version > NCCL_VERSION_CODE)
    return fail(ncclInvalidUsage, "requirements version %u", reqs->version);
#endif
  record("reqs.ginContextCount", reqs->ginContextCount);
  record("reqs.ginSignalCount", reqs->ginSignalCount);
  record("reqs.ginForceEnable", reqs->ginForceEnable);
#if NCCL_VERSION_CODE >= 22905
  record("reqs.ginConnectionType", reqs->ginConnectionType);
  record("reqs.ginQueueDepth", reqs->ginQueueDepth);
#endif
#if NCCL_VERSION_CODE >= 23000
  record("reqs.worldGinBarrierCount", reqs->worldGinBarrierCount);
#endif
#if NCCL_VERSION_CODE >= 23007
  record("reqs.ginStrongSignalsRequired", reqs->ginStrongSignalsRequired);
#endif
  // The chained lists (issue 44: requirements): what each node asks, and
  // distinct handles written where the nodes say, as NCCL does.
  int n = 0;
  for (ncclDevResourceRequirements_t *r = reqs->resourceRequirementsList; r;
       r = r->next, n++) {
    const std::string key = "reqs.resource." + std::to_string(n);
    record(key + ".bufferSize", (long long)r->bufferSize);
    record(key + ".ginSignalCount", r->ginSignalCount);
    if (r->outBufferHandle) *r->outBufferHandle = 0x1000u * (n + 1);
    if (r->outGinSignalStart) *r->outGinSignalStart = 500u + n;
  }
  record("reqs.resources", n);
  n = 0;
  for (ncclTeamRequirements_t *t = reqs->teamRequirementsList; t;
       t = t->next, n++) {
    const std::string key = "reqs.team." + std::to_string(n);
    record(key + ".nRanks", t->team.nRanks);
    record(key + ".rank", t->team.rank);
    record(key + ".stride", t->team.stride);
    record(key + ".multimem", t->multimem);
    if (t->outMultimemHandle)
      t->outMultimemHandle->mcBasePtr = (void *)(uintptr_t)(0x70000 + 0x1000 * n);
  }
  record("reqs.teams", n);
  if (std::getenv("FAKE_NCCL_NO_MULTIMEM") != nullptr) {
    bool multimem = reqs->lsaMultimem;
    for (ncclTeamRequirements_t *t = reqs->teamRequirementsList; t; t = t->next)
      multimem = multimem || t->multimem;
    if (multimem)  // NCCL's words (2.28.9 and 2.30.7, NCCL_NVLS_ENABLE=0)
      return fail(ncclInvalidArgument,
                  "Multicast support requested for team but none available on system.");
  }
  // Distinct values where ncore reads them, written through NCCL's own
  // struct so that a wrong offset in ncore shows.
  std::memset((void *)out, 0, sizeof *out);
  out->rank = 0;
  out->nRanks = 1;
  out->lsaRank = 0;
  out->lsaSize = 1;
  out->ginSignalCount = reqs->ginSignalCount + 100;
  out->ginCounterCount = 13;
#if NCCL_VERSION_CODE >= 22905
  out->ginConnectionCount = 0;
  out->ginContextCount = reqs->ginContextCount + 200;
#else
  out->ginContextCount = 0;
#endif
  return ncclSuccess;
}
// The resource requirement helpers (nccl_device/lsa_barrier.h,
// gin_barrier.h, ll_a2a.h): record their arguments, fill one node the way
// NCCL does (the handle's output fields are written by ncclDevCommCreate).
FAKE_API ncclResult_t ncclLsaBarrierCreateRequirement(
    ncclTeam_t team, int nBarriers, ncclLsaBarrierHandle_t *handle,
    ncclDevResourceRequirements_t *req) {
  count("ncclLsaBarrierCreateRequirement");
  record("lsa_barrier.team", team.nRanks * 10000 + team.rank * 100 + team.stride);
  record("lsa_barrier.nBarriers", nBarriers);
  std::memset((void *)req, 0, sizeof *req);
  req->bufferSize = (size_t)nBarriers * team.nRanks * 4;
  req->bufferAlign = 16;
  req->outBufferHandle = &handle->bufHandle;
  handle->nBarriers = nBarriers;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclGinBarrierCreateRequirement(
    ncclComm_t, ncclTeam_t team, int nBarriers, ncclGinBarrierHandle_t *handle,
    ncclDevResourceRequirements_t *req) {
  count("ncclGinBarrierCreateRequirement");
  record("gin_barrier.team", team.nRanks * 10000 + team.rank * 100 + team.stride);
  record("gin_barrier.nBarriers", nBarriers);
  std::memset((void *)req, 0, sizeof *req);
  req->ginSignalCount = nBarriers * team.nRanks;
  req->outGinSignalStart = &handle->signal0;
  return ncclSuccess;
}
FAKE_API int ncclLLA2ACalcSlots(int maxElts, int maxEltSize) {
  count("ncclLLA2ACalcSlots");
  record("ll_a2a.maxElts", maxElts);
  record("ll_a2a.maxEltSize", maxEltSize);
  return maxElts * ((maxEltSize + 7) / 8);  // 8-byte slots, rounded up
}
FAKE_API ncclResult_t ncclLLA2ACreateRequirement(
    int nBlocks, int nSlots, ncclLLA2AHandle_t *handle,
    ncclDevResourceRequirements_t *req) {
  count("ncclLLA2ACreateRequirement");
  record("ll_a2a.nBlocks", nBlocks);
  record("ll_a2a.nSlots", nSlots);
  std::memset((void *)req, 0, sizeof *req);
  req->bufferSize = (size_t)nBlocks * nSlots * 16;
  req->bufferAlign = 16;
  req->outBufferHandle = &handle->bufHandle;
  handle->nSlots = nSlots;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclDevCommDestroy(ncclComm_t, ncclDevComm_t const *) {
  return ncclSuccess;
}
FAKE_API ncclTeam_t ncclTeamLsa(ncclComm_t c) {
  ncclTeam_t team;
  team.nRanks = lsa_world() ? fake(c)->nranks : 1;
  team.rank = lsa_world() ? fake(c)->rank : 0;
  team.stride = 1;
  return team;
}

#if NCCL_VERSION_CODE >= 23100
// 2.31+: the CFT host calls (nccl_device/core.h). The double has no compute
// fabric; it records what ncore sent and answers values of its own that a
// test can tell apart from anything ncore could make up: a team
// {10 + mode, 1, 3} (multimem: {20, 2, 5}) and an address (100 + peer,
// offset + 1000), peer -1 for the multimem query.
FAKE_API ncclTeam_t ncclTeamCft(ncclComm_t, ncclCftTeamMode_t mode) {
  count("ncclTeamCft");
  record("cft.team_mode", (long long)mode);
  ncclTeam_t team;
  team.nRanks = 10 + (int)mode;
  team.rank = 1;
  team.stride = 3;
  return team;
}
FAKE_API ncclTeam_t ncclTeamCftMultimem(ncclComm_t) {
  count("ncclTeamCftMultimem");
  ncclTeam_t team;
  team.nRanks = 20;
  team.rank = 2;
  team.stride = 5;
  return team;
}
static ncclResult_t le_info(size_t offset, int peer, ncclCftLeId *leId,
                            size_t *leOffset, const char *call) {
  count(call);
  record("cft.offset", (long long)offset);
  record("cft.peer", peer);
  *leId = (ncclCftLeId)(100 + peer);
  *leOffset = offset + 1000;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclGetMultimemDeviceLeInfo(ncclWindow_t, size_t offset,
                                                  ncclCftLeId *leId,
                                                  size_t *leOffset) {
  return le_info(offset, -1, leId, leOffset, "ncclGetMultimemDeviceLeInfo");
}
FAKE_API ncclResult_t ncclGetCftDeviceLeInfo(ncclWindow_t, size_t offset,
                                             int peerCft, ncclTeam_t cftTeam,
                                             ncclCftLeId *leId,
                                             size_t *leOffset) {
  record("cft.team_n_ranks", cftTeam.nRanks);
  record("cft.team_rank", cftTeam.rank);
  record("cft.team_stride", cftTeam.stride);
  return le_info(offset, peerCft, leId, leOffset, "ncclGetCftDeviceLeInfo");
}
FAKE_API ncclResult_t ncclGetPeerDeviceLeInfo(ncclWindow_t, size_t offset,
                                              int peerWorld, ncclCftLeId *leId,
                                              size_t *leOffset) {
  return le_info(offset, peerWorld, leId, leOffset, "ncclGetPeerDeviceLeInfo");
}
#endif

#if NCCL_VERSION_CODE >= 22807
FAKE_API ncclResult_t ncclCommRevoke(ncclComm_t comm, int flags) {
  count("ncclCommRevoke");
  if (flags != 0) return fail(ncclInvalidArgument, "revoke flags %d", flags);
  if (fake(comm)->revoked++) return fail(ncclInvalidArgument, "revoked twice");
  return ncclSuccess;
}
#endif

static ncclResult_t window_pointer(ncclWindow_t win, size_t offset, int rank,
                                   void **out, const char *call) {
  count(call);
  const FakeWindow *w = reinterpret_cast<FakeWindow *>(win);
  if (w->index >= 0) { /* FAKE_NCCL_LSA_WORLD: that rank's buffer */
    std::lock_guard<std::mutex> g(lock);
    const auto &bases = world_windows()[w->index];
    *out = rank >= 0 && rank < (int)bases.size() ? bases[rank] + offset : nullptr;
    return ncclSuccess;
  }
  *out = rank == 0 ? w->base + offset : nullptr;
  return ncclSuccess;
}
// What NCCL 2.28's device getters (ncclGetLsaPointer, ncclGetPeerPointer)
// give ncore's pointer kernels: the stand-in driver runs those kernels on
// the host and asks here (one rank: LSA rank and world rank are one).
FAKE_API void *fake_nccl_window_pointer(ncclWindow_t w, size_t offset,
                                        int rank) {
  void *out = nullptr;
  window_pointer(w, offset, rank, &out, "pointer kernel");
  return out;
}
#if NCCL_VERSION_CODE >= 22902
FAKE_API ncclResult_t ncclCommGetUniqueId(ncclComm_t comm, ncclUniqueId *id) {
  count("ncclCommGetUniqueId");
  if (fake(comm)->id_outstanding)
    return fail(ncclInvalidUsage, "an id is outstanding");
  fake(comm)->id_outstanding = 1;
  std::memset(id, 0x5a, sizeof *id);
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommGrow(ncclComm_t, int, const ncclUniqueId *, int,
                                   ncclComm_t *, ncclConfig_t *) {
  count("ncclCommGrow");
  return fail(ncclInvalidUsage, "the fake cannot grow");
}
FAKE_API ncclResult_t ncclWinGetUserPtr(ncclComm_t, ncclWindow_t win,
                                        void **out) {
  *out = reinterpret_cast<FakeWindow *>(win)->base;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommQueryProperties(ncclComm_t c,
                                              ncclCommProperties_t *props) {
  count("ncclCommQueryProperties");
  record("props.size", (long long)props->size);
  record("props.magic", props->magic);
  record("props.version", props->version);
  if (props->magic != 0xcafebeef || props->size > sizeof *props)
    return fail(ncclInvalidArgument, "properties size %zu magic 0x%x",
                props->size, props->magic);
  props->rank = fake(c)->rank;
  props->nRanks = fake(c)->nranks;
  props->cudaDev = 0;
  props->nvmlDev = 5;
  props->deviceApiSupport = true;
  /* The double hands out multicast bases (team multimem); with
   * FAKE_NCCL_NO_MULTIMEM it reports none, as NCCL_NVLS_ENABLE=0 does. */
  props->multimemSupport = std::getenv("FAKE_NCCL_NO_MULTIMEM") == nullptr;
  props->ginType = NCCL_GIN_TYPE_NONE;
#if NCCL_VERSION_CODE >= 22905
  props->nLsaTeams = lsa_world() ? 1 : fake(c)->nranks; /* else each its own */
  props->hostRmaSupport = true;
  props->railedGinType = NCCL_GIN_TYPE_NONE;
#endif
#if NCCL_VERSION_CODE >= 23100
  // As NCCL: the fields of the caller's version only.
  if (props->version >= 23100) {
    props->commHash = 1000 + (uint64_t)fake(c)->rank;
    props->ginMinStride = 2;
    props->ginConnectionType = NCCL_GIN_CONNECTION_FULL;
    for (int t = 0; t < 64; t++) props->ginSupport[t] = t == 0 || t == 2;
    props->devCommRuntimeVersionSize = 4096;
  }
#endif
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclGetLsaDevicePointer(ncclWindow_t w, size_t o,
                                              int lsaRank, void **out) {
  return window_pointer(w, o, lsaRank, out, "ncclGetLsaDevicePointer");
}
FAKE_API ncclResult_t ncclGetPeerDevicePointer(ncclWindow_t w, size_t o,
                                               int peer, void **out) {
  return window_pointer(w, o, peer, out, "ncclGetPeerDevicePointer");
}
FAKE_API ncclResult_t ncclGetLsaMultimemDevicePointer(ncclWindow_t, size_t,
                                                      void **out) {
  count("ncclGetLsaMultimemDevicePointer");
  *out = nullptr;
  return ncclInvalidUsage;  // no NVLink multicast
}
// Through a team's handle: the handle's base plus the offset, so ncore's
// passing of both shows (a stand-in address, never dereferenced).
FAKE_API ncclResult_t ncclGetMultimemDevicePointer(ncclWindow_t, size_t offset,
                                                   ncclMultimemHandle_t mm,
                                                   void **out) {
  count("ncclGetMultimemDevicePointer");
  *out = mm.mcBasePtr ? (char *)mm.mcBasePtr + offset : nullptr;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclPutSignal(const void *, size_t, ncclDataType_t, int,
                                    ncclWindow_t, size_t, int, int,
                                    unsigned int, ncclComm_t, cudaStream_t) {
  count("ncclPutSignal");
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclSignal(int, int, int, unsigned int, ncclComm_t,
                                 cudaStream_t) {
  count("ncclSignal");
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclWaitSignal(int, ncclWaitSignalDesc_t *, ncclComm_t,
                                     cudaStream_t) {
  count("ncclWaitSignal");
  return ncclSuccess;
}
#endif

#if NCCL_VERSION_CODE >= 22907
FAKE_API ncclResult_t ncclCommSuspend(ncclComm_t comm, int flags) {
  count("ncclCommSuspend");
  record("suspend.flags", flags);
  fake(comm)->suspended = 1;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommResume(ncclComm_t comm) {
  count("ncclCommResume");
  fake(comm)->suspended = 0;
  return ncclSuccess;
}
FAKE_API ncclResult_t ncclCommMemStats(ncclComm_t comm, ncclCommMemStat_t stat,
                                       uint64_t *value) {
  switch (stat) {
    case ncclStatGpuMemSuspend: *value = 12000; break;
    case ncclStatGpuMemSuspended: *value = (uint64_t)fake(comm)->suspended; break;
    case ncclStatGpuMemPersist: *value = 345; break;
    case ncclStatGpuMemTotal: *value = 12345; break;
    default: return fail(ncclInvalidArgument, "stat %d", (int)stat);
  }
  return ncclSuccess;
}
#endif

// ---- the per-call configuration (issue 44: collconfig) ----
// nccl*Config of 2.31+: ncclCollConfig_t checked as NCCL checks it (magic,
// a size of at least 2.31's 64 bytes and at most this header's, a version
// no newer than this one, forceAlgSelection 0 or 1), every field recorded
// under "collconfig.<field>" (the ext list's length as "collconfig.ext",
// algSelection's first character as "collconfig.algSelection", 0 for none),
// then the plain collective runs.
#if NCCL_VERSION_CODE >= 23100
static ncclResult_t check_coll_config(const ncclCollConfig_t *c) {
  count("ncclCollConfig");
  if (c == nullptr) {
    record("collconfig.null", 1);
    return ncclSuccess;
  }
  record("collconfig.size", (long long)c->size);
  record("collconfig.magic", c->magic);
  record("collconfig.version", c->version);
  if (c->magic != 0xcafebeef)
    return fail(ncclInvalidArgument, "collConfig magic 0x%x", c->magic);
  if (c->size < 64 || c->size > sizeof(ncclCollConfig_t))
    return fail(ncclInvalidArgument, "collConfig size %zu", c->size);
  if (c->version > NCCL_VERSION_CODE)
    return fail(ncclInvalidArgument, "collConfig version %u newer than %d", c->version,
                NCCL_VERSION_CODE);
  if (c->forceAlgSelection != 0 && c->forceAlgSelection != 1)
    return fail(ncclInvalidArgument, "forceAlgSelection %d", c->forceAlgSelection);
  record("collconfig.minCTAs", c->minCTAs);
  record("collconfig.maxCTAs", c->maxCTAs);
  record("collconfig.nvlsCTAs", c->nvlsCTAs);
  record("collconfig.cgaClusterSize", c->cgaClusterSize);
  record("collconfig.forceAlgSelection", c->forceAlgSelection);
  record("collconfig.CTAPolicy", c->CTAPolicy);
  record("collconfig.userProfilerTag", (long long)c->userProfilerTag);
  record("collconfig.algSelection", c->algSelection ? c->algSelection[0] : 0);
  long long ext = 0;
  for (const ncclConfigExt_t *e = c->ext; e != nullptr; e = e->next) ext++;
  record("collconfig.ext", ext);
#if NCCL_VERSION_CODE >= 23200
  if (c->size >= sizeof(ncclCollConfig_t))
    record("collconfig.launchCompletionEvent", (long long)(uintptr_t)c->launchCompletionEvent);
#endif
  return ncclSuccess;
}

#define FAKE_CONFIG_CALL(call, plain)                       \
  do {                                                      \
    ncclResult_t checked = check_coll_config(config);       \
    if (checked != ncclSuccess) return checked;             \
    count(call);                                            \
    return plain;                                           \
  } while (0)

FAKE_API ncclResult_t ncclAllReduceConfig(const void *s, void *r, size_t n, ncclDataType_t t,
                                          ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream,
                                          const ncclCollConfig_t *config) {
  FAKE_CONFIG_CALL("ncclAllReduceConfig", ncclAllReduce(s, r, n, t, op, comm, stream));
}
FAKE_API ncclResult_t ncclBroadcastConfig(const void *s, void *r, size_t n, ncclDataType_t t,
                                          int root, ncclComm_t comm, cudaStream_t stream,
                                          const ncclCollConfig_t *config) {
  FAKE_CONFIG_CALL("ncclBroadcastConfig", ncclBroadcast(s, r, n, t, root, comm, stream));
}
FAKE_API ncclResult_t ncclReduceConfig(const void *s, void *r, size_t n, ncclDataType_t t,
                                       ncclRedOp_t op, int root, ncclComm_t comm,
                                       cudaStream_t stream, const ncclCollConfig_t *config) {
  FAKE_CONFIG_CALL("ncclReduceConfig", ncclReduce(s, r, n, t, op, root, comm, stream));
}
FAKE_API ncclResult_t ncclAllGatherConfig(const void *s, void *r, size_t n, ncclDataType_t t,
                                          ncclComm_t comm, cudaStream_t stream,
                                          const ncclCollConfig_t *config) {
  FAKE_CONFIG_CALL("ncclAllGatherConfig", ncclAllGather(s, r, n, t, comm, stream));
}
FAKE_API ncclResult_t ncclReduceScatterConfig(const void *s, void *r, size_t n,
                                              ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                                              cudaStream_t stream,
                                              const ncclCollConfig_t *config) {
  FAKE_CONFIG_CALL("ncclReduceScatterConfig", ncclReduceScatter(s, r, n, t, op, comm, stream));
}
FAKE_API ncclResult_t ncclAlltoAllConfig(const void *s, void *r, size_t n, ncclDataType_t t,
                                         ncclComm_t comm, cudaStream_t stream,
                                         const ncclCollConfig_t *config) {
  FAKE_CONFIG_CALL("ncclAlltoAllConfig", ncclAlltoAll(s, r, n, t, comm, stream));
}
FAKE_API ncclResult_t ncclGatherConfig(const void *s, void *r, size_t n, ncclDataType_t t,
                                       int root, ncclComm_t comm, cudaStream_t stream,
                                       const ncclCollConfig_t *config) {
  FAKE_CONFIG_CALL("ncclGatherConfig", ncclGather(s, r, n, t, root, comm, stream));
}
FAKE_API ncclResult_t ncclScatterConfig(const void *s, void *r, size_t n, ncclDataType_t t,
                                        int root, ncclComm_t comm, cudaStream_t stream,
                                        const ncclCollConfig_t *config) {
  FAKE_CONFIG_CALL("ncclScatterConfig", ncclScatter(s, r, n, t, root, comm, stream));
}
#undef FAKE_CONFIG_CALL
#endif

#if NCCL_VERSION_CODE >= 23000
/* The parameter API (nccl.h 2.30.7): two parameters, each its variable's
 * value when set, else a default; unknown keys are ncclInvalidArgument. */
static const char *const fake_param_keys[] = {"NCCL_DEBUG", "NCCL_FAKE_PARAM"};
static const char *const fake_param_defaults[] = {"WARN", "42"};
FAKE_API ncclResult_t ncclParamGetParameter(const char *key, const char **value,
                                            int *valueLen) {
  count("ncclParamGetParameter");
  for (int i = 0; i < 2; i++) {
    if (key == NULL || strcmp(key, fake_param_keys[i]) != 0) continue;
    const char *set = getenv(key);
    *value = set != NULL ? set : fake_param_defaults[i];
    *valueLen = (int)strlen(*value);
    return ncclSuccess;
  }
  return fail(ncclInvalidArgument, "no parameter %s", key ? key : "(null)");
}
FAKE_API ncclResult_t ncclParamGetAllParameterKeys(const char ***table, int *tableLen) {
  count("ncclParamGetAllParameterKeys");
  *table = (const char **)fake_param_keys;
  *tableLen = 2;
  return ncclSuccess;
}
#endif
