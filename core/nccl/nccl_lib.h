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

#define NCCL_FN(name) __typeof__(&name) name
/* The function of a row of the table of operations, named by the row
 * (coll_allreduce, p2p_send, ...): two rows may name one NCCL function. */
#define NCCL_COLL_FN(name, KIND, nccl, ...) __typeof__(&nccl) coll_##name;
#define NCCL_P2P_FN(name, nccl, ...) __typeof__(&nccl) p2p_##name;
typedef struct nccl_functions {
  NCCL_FN(ncclGetVersion);
  NCCL_FN(ncclGetErrorString);
  NCCL_FN(ncclGetLastError);
  NCCL_FN(ncclGetUniqueId);
  /* ncclConfig_t grew: ncore passes its 2.30.7 mirror (nccl_layouts.h). */
  ncclResult_t (*ncclCommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int,
                                         nccl_config_t *);
  NCCL_FN(ncclCommInitAll);
  ncclResult_t (*ncclCommSplit)(ncclComm_t, int, int, ncclComm_t *,
                                nccl_config_t *);
  ncclResult_t (*ncclCommShrink)(ncclComm_t, int *, int, ncclComm_t *,
                                 nccl_config_t *, int);
  NCCL_FN(ncclCommFinalize);
  NCCL_FN(ncclCommDestroy);
  NCCL_FN(ncclCommAbort);
  NCCL_FN(ncclCommGetAsyncError);
  NCCL_FN(ncclCommCount);
  NCCL_FN(ncclCommCuDevice);
  NCCL_FN(ncclCommUserRank);
  NCCL_FN(ncclCommRegister);
  NCCL_FN(ncclCommDeregister);
  NCCL_FN(ncclCommWindowRegister);
  NCCL_FN(ncclCommWindowDeregister);
  NCCL_FN(ncclRedOpCreatePreMulSum);
  NCCL_FN(ncclRedOpDestroy);
  NCCL_FN(ncclMemAlloc);
  NCCL_FN(ncclMemFree);
  NCCL_FN(ncclGroupStart);
  NCCL_FN(ncclGroupEnd);
  /* The NCCL function of every point-to-point and collective row of the
   * table of operations (op_table.h): p2p_send (ncclSend), p2p_recv,
   * coll_allreduce (ncclAllReduce), ... */
  CORE_OPERATIONS(NCCL_COLL_FN, NCCL_P2P_FN, CORE_OP_NONE)
  /* nccl_device/core.h (C++ only there): requirements and devcomm are
   * passed as opaque storage laid out as devcomm_layout.h describes. */
  ncclResult_t (*ncclDevCommCreate)(ncclComm_t, const void *reqs, void *out);
  ncclResult_t (*ncclDevCommDestroy)(ncclComm_t, const void *devcomm);
  /* Host team query (nccl_device/core.h: ncclTeam_t ncclTeamLsa(ncclComm_t)). */
  struct nccl_team { int nRanks, rank, stride; } (*ncclTeamLsa)(ncclComm_t);
  /* Optional: NULL when the loaded library lacks them; each is used only
   * where nccl_layout() says its version has it (nccl_has). The structs
   * whose layout changed between versions are ncore's mirrors
   * (nccl_layouts.h), so these are declared here, not taken from nccl.h. */
  ncclResult_t (*ncclCommInitRankScalable)(ncclComm_t *, int, int, int,
                                           ncclUniqueId *, nccl_config_t *);
  ncclResult_t (*ncclPutSignal)(const void *, size_t, ncclDataType_t, int,
                                ncclWindow_t, size_t, int, int, unsigned int,
                                ncclComm_t, cudaStream_t);
  ncclResult_t (*ncclSignal)(int, int, int, unsigned int, ncclComm_t,
                             cudaStream_t);
  ncclResult_t (*ncclWaitSignal)(int, nccl_wait_signal_desc_t *, ncclComm_t,
                                 cudaStream_t);
  /* 2.28.7+: stops in-flight work without freeing (revoke, abort). */
  ncclResult_t (*ncclCommRevoke)(ncclComm_t, int);
  /* 2.29.2+ */
  ncclResult_t (*ncclCommGetUniqueId)(ncclComm_t, ncclUniqueId *);
  ncclResult_t (*ncclCommGrow)(ncclComm_t, int, const ncclUniqueId *, int,
                               ncclComm_t *, nccl_config_t *);
  ncclResult_t (*ncclWinGetUserPtr)(ncclComm_t, ncclWindow_t, void **);
  ncclResult_t (*ncclCommQueryProperties)(ncclComm_t, void *props);
  ncclResult_t (*ncclGetLsaDevicePointer)(ncclWindow_t, size_t, int, void **);
  ncclResult_t (*ncclGetPeerDevicePointer)(ncclWindow_t, size_t, int, void **);
  ncclResult_t (*ncclGetLsaMultimemDevicePointer)(ncclWindow_t, size_t,
                                                  void **);
  /* 2.29.7+ */
  ncclResult_t (*ncclCommSuspend)(ncclComm_t, int);
  ncclResult_t (*ncclCommResume)(ncclComm_t);
  ncclResult_t (*ncclCommMemStats)(ncclComm_t, int, uint64_t *);
} nccl_functions_t;
#undef NCCL_FN
#undef NCCL_COLL_FN
#undef NCCL_P2P_FN

/* Driver API entry points, dlsym'd by their exported (versioned) names. The
 * members drop the "cu" prefix so that cuda.h's renaming macros
 * (cuStreamDestroy -> cuStreamDestroy_v2, ...) never touch them. */
typedef struct cuda_functions {
  CUresult (*Init)(unsigned int);
  CUresult (*GetErrorString)(CUresult, const char **);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxGetCurrent)(CUcontext *);
  CUresult (*CtxGetDevice)(CUdevice *);
  CUresult (*CtxSynchronize)(void);
  CUresult (*StreamCreate)(CUstream *, unsigned int);
  CUresult (*StreamDestroy)(CUstream);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*StreamQuery)(CUstream);
  CUresult (*StreamGetCtx)(CUstream, CUcontext *);
  CUresult (*StreamIsCapturing)(CUstream, CUstreamCaptureStatus *);
  CUresult (*MemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*StreamWriteValue64)(CUstream, CUdeviceptr, cuuint64_t,
                                 unsigned int);
  CUresult (*StreamWaitValue64)(CUstream, CUdeviceptr, cuuint64_t,
                                unsigned int);
  CUresult (*PointerGetAttribute)(void *, CUpointer_attribute, CUdeviceptr);
  CUresult (*MemGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*EventCreate)(CUevent *, unsigned int);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventQuery)(CUevent);
  CUresult (*EventDestroy)(CUevent);
  CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned int);
  CUresult (*LaunchKernel)(CUfunction, unsigned int, unsigned int,
                           unsigned int, unsigned int, unsigned int,
                           unsigned int, unsigned int, CUstream, void **,
                           void **);
  /* Optional (CUDA 12.0+): launches with attributes (programmatic
   * dependent launch, kernels.c); NULL where the driver lacks it. */
  CUresult (*LaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                             void **);
  /* Optional (virtual memory management): the second mapping of a
   * window's memory that send/recv use (window_alias.c); NULL where the
   * driver lacks them, and then there is none. */
  CUresult (*MemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr,
                                unsigned long long);
  CUresult (*MemAddressFree)(CUdeviceptr, size_t);
  CUresult (*MemRetainAllocationHandle)(CUmemGenericAllocationHandle *, void *);
  CUresult (*MemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                     unsigned long long);
  CUresult (*MemUnmap)(CUdeviceptr, size_t);
  CUresult (*MemRelease)(CUmemGenericAllocationHandle);
  CUresult (*MemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *,
                           size_t);
  /* Optional: the calling thread's stream capture mode (liveness.c's
   * copies run in relaxed mode); NULL where the driver lacks it. */
  CUresult (*ThreadExchangeStreamCaptureMode)(CUstreamCaptureMode *);
} cuda_functions_t;

/* Filled by nccl_load(); valid after it returned NCORE_OK. */
extern nccl_functions_t nccl_fn;
extern cuda_functions_t cu_fn;

/* Loads both libraries and checks that a CUDA device exists, once per
 * process. NCORE_OK, or NCORE_ERR_UNAVAILABLE recorded with the reason. */
ncore_status_t nccl_load(void);
/* Path of the libnccl.so.2 that was loaded (for messages). */
const char *nccl_loaded_path(void);
/* NCORE_OK when the loaded NCCL is at least `since` (a version code) and
 * exports fn; else NOT_SUPPORTED recorded, naming what (e.g.
 * "ncore_comm_grow (ncclCommGrow)") and the version needed. */
ncore_status_t nccl_require(const void *fn, int since, const char *what);
/* The same for something that is not a call (a struct field, a flag). */
ncore_status_t nccl_require_version(int since, const char *what);

#endif
