/* core/nccl — the function tables of libnccl.so.2 and libcuda.so.1, loaded
 * with dlopen/dlsym (nccl_lib.c) so that libncore.so links against neither,
 * and the checks that a call exists in the loaded version.
 *
 * Types come from NCCL 2.28.9's nccl.h and CUDA's cuda.h (types only; no
 * symbol of either is referenced at link time). NCCL prototypes are taken
 * with __typeof__ from nccl.h so a signature mismatch fails to compile;
 * calls that nccl.h does not declare (device API in nccl_device/core.h, not
 * C-includable; 2.29's one-sided calls) are declared here from their headers. */
#ifndef NCORE_CORE_NCCL_LIB_H
#define NCORE_CORE_NCCL_LIB_H

#include <cuda.h>
#include <stdatomic.h>
#include <nccl.h>
#include <ncore.h>
#include "../op_table.h"
#include "nccl_layouts.h"

/* NCCL 2.29+ one-sided wait descriptor (nccl.h of 2.29: opCnt, peer, sigIdx,
 * ctx, all int). Only used when the loaded NCCL exports ncclWaitSignal. */
typedef struct nccl_wait_signal_desc {
  int opCnt;
  int peer;
  int sigIdx;
  int ctx;
} nccl_wait_signal_desc_t;

/* The host LSA team (nccl_device/core.h: ncclTeam_t ncclTeamLsa(ncclComm_t);
 * C++ only there). */
struct nccl_team {
  int nRanks, rank, stride;
};

/* struct ncclMultimemHandle (nccl_device/impl/core__types.h, 2.28.9 to
 * 2.32): passed by value to ncclGetMultimemDevicePointer. */
typedef struct nccl_multimem_handle {
  void *mcBasePtr;
} nccl_multimem_handle_t;

/* Every NCCL function ncore calls, named once: nccl_functions_t below and
 * the loader (nccl_lib.c) both expand this list.
 *   TYPED(name, required)            its type is nccl.h's (__typeof__, so a
 *                                    signature mismatch fails to compile)
 *   DECLARED(name, required, ret, parameters...)
 *                                    declared here: calls nccl.h does not
 *                                    declare (the device API of
 *                                    nccl_device/core.h, 2.29's one-sided
 *                                    calls), or whose structs changed across
 *                                    versions (ncore's mirrors,
 *                                    nccl_layouts.h)
 *   COLL, P2P                        the NCCL function of every collective
 *                                    and point-to-point row of the table of
 *                                    operations (op_table.h), as the member
 *                                    coll_<row> / p2p_<row>: two rows may
 *                                    name one NCCL function; a collective's
 *                                    per-call twin <nccl>Config (2.31+,
 *                                    required 0) as coll_config_<row>
 * required 1: the load fails without it. 0: NULL where the loaded library
 * lacks it; used only where nccl_layout() says its version has it
 * (nccl_require, at each call, names the version). */
/* clang-format off */
#define NCCL_SYMBOLS(TYPED, DECLARED, COLL, P2P)                                      \
  TYPED(ncclGetVersion, 1)                                                           \
  TYPED(ncclGetErrorString, 1)                                                       \
  TYPED(ncclGetLastError, 1)                                                         \
  TYPED(ncclGetUniqueId, 1)                                                          \
  /* ncclConfig_t grew: ncore passes its 2.30.7 mirror (nccl_layouts.h). */          \
  DECLARED(ncclCommInitRankConfig, 1, ncclResult_t, ncclComm_t *, int, ncclUniqueId, \
           int, nccl_config_t *)                                                     \
  TYPED(ncclCommInitAll, 1)                                                          \
  DECLARED(ncclCommSplit, 1, ncclResult_t, ncclComm_t, int, int, ncclComm_t *,       \
           nccl_config_t *)                                                          \
  DECLARED(ncclCommShrink, 1, ncclResult_t, ncclComm_t, int *, int, ncclComm_t *,    \
           nccl_config_t *, int)                                                     \
  TYPED(ncclCommFinalize, 1)                                                         \
  TYPED(ncclCommDestroy, 1)                                                          \
  TYPED(ncclCommAbort, 1)                                                            \
  TYPED(ncclCommGetAsyncError, 1)                                                    \
  TYPED(ncclCommCount, 1)                                                            \
  TYPED(ncclCommCuDevice, 1)                                                         \
  TYPED(ncclCommUserRank, 1)                                                         \
  TYPED(ncclCommRegister, 1)                                                         \
  TYPED(ncclCommDeregister, 1)                                                       \
  TYPED(ncclCommWindowRegister, 1)                                                   \
  TYPED(ncclCommWindowDeregister, 1)                                                 \
  TYPED(ncclRedOpCreatePreMulSum, 1)                                                 \
  TYPED(ncclRedOpDestroy, 1)                                                         \
  TYPED(ncclMemAlloc, 1)                                                             \
  TYPED(ncclMemFree, 1)                                                              \
  TYPED(ncclGroupStart, 1)                                                           \
  TYPED(ncclGroupEnd, 1)                                                             \
  CORE_OPERATIONS(COLL, P2P, CORE_OP_NONE)                                           \
  /* nccl_device/core.h: requirements and devcomm are passed as opaque              \
   * storage laid out as devcomm_layout.h describes. */                              \
  DECLARED(ncclDevCommCreate, 1, ncclResult_t, ncclComm_t, const void *, void *)     \
  DECLARED(ncclDevCommDestroy, 1, ncclResult_t, ncclComm_t, const void *)            \
  DECLARED(ncclTeamLsa, 1, struct nccl_team, ncclComm_t)                             \
  /* nccl_device/lsa_barrier.h, gin_barrier.h, ll_a2a.h (2.28+; issue 44:        \
   * requirements): handles and requirement nodes as devcomm_requirements.h */    \
  DECLARED(ncclLsaBarrierCreateRequirement, 0, ncclResult_t, struct nccl_team,       \
           int, void *, void *)                                                      \
  DECLARED(ncclGinBarrierCreateRequirement, 0, ncclResult_t, ncclComm_t,             \
           struct nccl_team, int, void *, void *)                                    \
  DECLARED(ncclLLA2ACalcSlots, 0, int, int, int)                                     \
  DECLARED(ncclLLA2ACreateRequirement, 0, ncclResult_t, int, int, void *, void *)    \
  DECLARED(ncclCommInitRankScalable, 0, ncclResult_t, ncclComm_t *, int, int, int,   \
           ncclUniqueId *, nccl_config_t *)                                          \
  DECLARED(ncclPutSignal, 0, ncclResult_t, const void *, size_t, ncclDataType_t,     \
           int, ncclWindow_t, size_t, int, int, unsigned int, ncclComm_t,            \
           cudaStream_t)                                                             \
  DECLARED(ncclSignal, 0, ncclResult_t, int, int, int, unsigned int, ncclComm_t,     \
           cudaStream_t)                                                             \
  DECLARED(ncclWaitSignal, 0, ncclResult_t, int, nccl_wait_signal_desc_t *,          \
           ncclComm_t, cudaStream_t)                                                 \
  /* 2.28.7+: stops in-flight work without freeing (revoke, abort). */              \
  DECLARED(ncclCommRevoke, 0, ncclResult_t, ncclComm_t, int)                         \
  /* 2.29.2+ */                                                                      \
  DECLARED(ncclCommGetUniqueId, 0, ncclResult_t, ncclComm_t, ncclUniqueId *)         \
  DECLARED(ncclCommGrow, 0, ncclResult_t, ncclComm_t, int, const ncclUniqueId *,     \
           int, ncclComm_t *, nccl_config_t *)                                       \
  DECLARED(ncclWinGetUserPtr, 0, ncclResult_t, ncclComm_t, ncclWindow_t, void **)    \
  DECLARED(ncclCommQueryProperties, 0, ncclResult_t, ncclComm_t, void *)             \
  DECLARED(ncclGetLsaDevicePointer, 0, ncclResult_t, ncclWindow_t, size_t, int,      \
           void **)                                                                  \
  DECLARED(ncclGetPeerDevicePointer, 0, ncclResult_t, ncclWindow_t, size_t, int,     \
           void **)                                                                  \
  DECLARED(ncclGetLsaMultimemDevicePointer, 0, ncclResult_t, ncclWindow_t, size_t,   \
           void **)                                                                  \
  DECLARED(ncclGetMultimemDevicePointer, 0, ncclResult_t, ncclWindow_t, size_t,      \
           nccl_multimem_handle_t, void **)                                          \
  /* 2.29.7+ */                                                                      \
  DECLARED(ncclCommSuspend, 0, ncclResult_t, ncclComm_t, int)                        \
  DECLARED(ncclCommResume, 0, ncclResult_t, ncclComm_t)                              \
  DECLARED(ncclCommMemStats, 0, ncclResult_t, ncclComm_t, int, uint64_t *)         \
  /* 2.30+: the parameter API (issue 44: params) */                                  \
  DECLARED(ncclParamGetParameter, 0, ncclResult_t, const char *, const char **,      \
           int *)                                                                    \
  DECLARED(ncclParamGetAllParameterKeys, 0, ncclResult_t, const char ***, int *)    \
  /* 2.31+: CFT teams and logical endpoints (issue 44: cft;                         \
   * nccl_device/core.h; ncclCftLeId is a uint32_t, ncclCftTeamMode_t an int) */    \
  DECLARED(ncclTeamCft, 0, struct nccl_team, ncclComm_t, int)                        \
  DECLARED(ncclTeamCftMultimem, 0, struct nccl_team, ncclComm_t)                     \
  DECLARED(ncclGetMultimemDeviceLeInfo, 0, ncclResult_t, ncclWindow_t, size_t,       \
           uint32_t *, size_t *)                                                     \
  DECLARED(ncclGetCftDeviceLeInfo, 0, ncclResult_t, ncclWindow_t, size_t, int,       \
           struct nccl_team, uint32_t *, size_t *)                                   \
  DECLARED(ncclGetPeerDeviceLeInfo, 0, ncclResult_t, ncclWindow_t, size_t, int,      \
           uint32_t *, size_t *)
/* clang-format on */

#define NCCL_FN_TYPED(name, required) __typeof__(&name) name;
#define NCCL_FN_DECLARED(name, required, ret, ...) ret (*name)(__VA_ARGS__);
/* nccl*Config's parameters after the datatype, by the row's (reduces,
 * rooted), before (comm, stream, config). */
#define NCCL_CONFIG_PARAMS_00
#define NCCL_CONFIG_PARAMS_10 , ncclRedOp_t
#define NCCL_CONFIG_PARAMS_01 , int
#define NCCL_CONFIG_PARAMS_11 , ncclRedOp_t, int
#define NCCL_FN_COLL(name, KIND, nccl, go, reduces, rooted, ...)              \
  __typeof__(&nccl) coll_##name;                                              \
  ncclResult_t (*coll_config_##name)(                                         \
      const void *, void *, size_t,                                           \
      ncclDataType_t NCCL_CONFIG_PARAMS_##reduces##rooted, ncclComm_t,        \
      cudaStream_t, const nccl_coll_config_t *);
#define NCCL_FN_P2P(name, nccl, ...) __typeof__(&nccl) p2p_##name;
typedef struct nccl_functions {
  NCCL_SYMBOLS(NCCL_FN_TYPED, NCCL_FN_DECLARED, NCCL_FN_COLL, NCCL_FN_P2P)
} nccl_functions_t;
#undef NCCL_FN_TYPED
#undef NCCL_FN_DECLARED
#undef NCCL_FN_COLL
#undef NCCL_FN_P2P

/* Every driver entry point ncore calls, named once (cuda_functions_t below
 * and the loader expand it): CU(member, "symbol", required, ret,
 * parameters...). The member drops the "cu" prefix so that cuda.h's
 * renaming macros (cuStreamDestroy -> cuStreamDestroy_v2, ...) never touch
 * it; the symbol is the exported, versioned name dlsym looks up. required
 * 0: NULL where the driver lacks it. */
/* clang-format off */
#define CUDA_SYMBOLS(CU)                                                                    \
  CU(Init, "cuInit", 1, CUresult, unsigned int)                                             \
  CU(GetErrorString, "cuGetErrorString", 1, CUresult, CUresult, const char **)              \
  CU(GetErrorName, "cuGetErrorName", 1, CUresult, CUresult, const char **)                  \
  CU(DeviceGetCount, "cuDeviceGetCount", 1, CUresult, int *)                                \
  CU(DeviceGet, "cuDeviceGet", 1, CUresult, CUdevice *, int)                                \
  CU(DeviceGetAttribute, "cuDeviceGetAttribute", 1, CUresult, int *, CUdevice_attribute,    \
     CUdevice)                                                                              \
  CU(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 1, CUresult, CUcontext *,          \
     CUdevice)                                                                              \
  CU(CtxSetCurrent, "cuCtxSetCurrent", 1, CUresult, CUcontext)                              \
  CU(CtxGetCurrent, "cuCtxGetCurrent", 1, CUresult, CUcontext *)                            \
  CU(CtxGetDevice, "cuCtxGetDevice", 1, CUresult, CUdevice *)                               \
  CU(CtxSynchronize, "cuCtxSynchronize", 1, CUresult, void)                                 \
  CU(StreamCreate, "cuStreamCreate", 1, CUresult, CUstream *, unsigned int)                 \
  CU(StreamDestroy, "cuStreamDestroy_v2", 1, CUresult, CUstream)                            \
  CU(StreamSynchronize, "cuStreamSynchronize", 1, CUresult, CUstream)                       \
  CU(StreamQuery, "cuStreamQuery", 1, CUresult, CUstream)                                   \
  CU(StreamGetCtx, "cuStreamGetCtx", 1, CUresult, CUstream, CUcontext *)                    \
  CU(StreamIsCapturing, "cuStreamIsCapturing", 1, CUresult, CUstream,                       \
     CUstreamCaptureStatus *)                                                               \
  CU(MemcpyAsync, "cuMemcpyAsync", 1, CUresult, CUdeviceptr, CUdeviceptr, size_t, CUstream) \
  CU(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", 1, CUresult, CUdeviceptr, const void *,      \
     size_t, CUstream)                                                                      \
  CU(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", 1, CUresult, void *, CUdeviceptr, size_t,     \
     CUstream)                                                                              \
  CU(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", 1, CUresult, CUdeviceptr, CUdeviceptr,        \
     size_t, CUstream)                                                                      \
  CU(MemsetD8Async, "cuMemsetD8Async", 1, CUresult, CUdeviceptr, unsigned char, size_t,     \
     CUstream)                                                                              \
  CU(StreamWriteValue64, "cuStreamWriteValue64_v2", 1, CUresult, CUstream, CUdeviceptr,     \
     cuuint64_t, unsigned int)                                                              \
  CU(StreamWaitValue64, "cuStreamWaitValue64_v2", 1, CUresult, CUstream, CUdeviceptr,       \
     cuuint64_t, unsigned int)                                                              \
  CU(PointerGetAttribute, "cuPointerGetAttribute", 1, CUresult, void *,                     \
     CUpointer_attribute, CUdeviceptr)                                                      \
  CU(MemGetAddressRange, "cuMemGetAddressRange_v2", 1, CUresult, CUdeviceptr *, size_t *,   \
     CUdeviceptr)                                                                           \
  CU(ModuleLoadData, "cuModuleLoadData", 1, CUresult, CUmodule *, const void *)             \
  CU(ModuleGetFunction, "cuModuleGetFunction", 1, CUresult, CUfunction *, CUmodule,         \
     const char *)                                                                          \
  CU(EventCreate, "cuEventCreate", 1, CUresult, CUevent *, unsigned int)                    \
  CU(EventRecord, "cuEventRecord", 1, CUresult, CUevent, CUstream)                          \
  CU(EventQuery, "cuEventQuery", 1, CUresult, CUevent)                                      \
  CU(EventDestroy, "cuEventDestroy_v2", 1, CUresult, CUevent)                               \
  CU(StreamWaitEvent, "cuStreamWaitEvent", 1, CUresult, CUstream, CUevent, unsigned int)    \
  CU(LaunchKernel, "cuLaunchKernel", 1, CUresult, CUfunction, unsigned int, unsigned int,   \
     unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, CUstream,        \
     void **, void **)                                                                      \
  /* CUDA 12.0+: launches with attributes (programmatic dependent launch,                  \
   * kernels.c). */                                                                         \
  CU(LaunchKernelEx, "cuLaunchKernelEx", 0, CUresult, const CUlaunchConfig *, CUfunction,   \
     void **, void **)                                                                      \
  /* Virtual memory management: the second mapping of a window's memory                    \
   * that send/recv use (window_alias.c); without them there is none. */                   \
  CU(MemAddressReserve, "cuMemAddressReserve", 0, CUresult, CUdeviceptr *, size_t, size_t, \
     CUdeviceptr, unsigned long long)                                                       \
  CU(MemAddressFree, "cuMemAddressFree", 0, CUresult, CUdeviceptr, size_t)                  \
  CU(MemRetainAllocationHandle, "cuMemRetainAllocationHandle", 0, CUresult,                 \
     CUmemGenericAllocationHandle *, void *)                                                \
  CU(MemMap, "cuMemMap", 0, CUresult, CUdeviceptr, size_t, size_t,                          \
     CUmemGenericAllocationHandle, unsigned long long)                                      \
  CU(MemUnmap, "cuMemUnmap", 0, CUresult, CUdeviceptr, size_t)                              \
  CU(MemRelease, "cuMemRelease", 0, CUresult, CUmemGenericAllocationHandle)                 \
  CU(MemSetAccess, "cuMemSetAccess", 0, CUresult, CUdeviceptr, size_t,                      \
     const CUmemAccessDesc *, size_t)                                                       \
  /* The calling thread's stream capture mode (liveness.c's copies run in                  \
   * relaxed mode). */                                                                      \
  CU(ThreadExchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode", 0, CUresult,     \
     CUstreamCaptureMode *)
/* clang-format on */

#define CU_FN(member, symbol, required, ret, ...) ret (*member)(__VA_ARGS__);
typedef struct cuda_functions {
  CUDA_SYMBOLS(CU_FN)
} cuda_functions_t;
#undef CU_FN

/* Filled by nccl_load(); valid after it returned NCORE_OK. */
extern nccl_functions_t nccl_fn;
extern cuda_functions_t cu_fn;

/* 1 once nccl_load succeeded (set once, never cleared). */
extern atomic_int nccl_loaded;
/* nccl_load's first call in the process, and every call after a failed
 * load (which it answers again). */
ncore_status_t nccl_load_first(void);
/* Loads both libraries and checks that a CUDA device exists, once per
 * process. NCORE_OK, or NCORE_ERR_UNAVAILABLE recorded with the reason.
 * Once loaded, one load and no call (a group's start and end ask). */
static inline ncore_status_t nccl_load(void) {
  return atomic_load_explicit(&nccl_loaded, memory_order_acquire)
             ? NCORE_OK
             : nccl_load_first();
}
/* Path of the libnccl.so.2 that was loaded (for messages). */
const char *nccl_loaded_path(void);
/* NCORE_OK when the loaded NCCL is at least `since` (a version code) and
 * exports fn; else NOT_SUPPORTED recorded, naming what (e.g.
 * "ncore_comm_grow (ncclCommGrow)") and the version needed. */
ncore_status_t nccl_require(const void *fn, int since, const char *what);
/* The same for something that is not a call (a struct field, a flag). */
ncore_status_t nccl_require_version(int since, const char *what);

#endif
