/* ncore — what this process's ncore is and can do (ABI 1.1): the version,
 * the backend NCORE_BACKEND_AUTO picks here and why, the libnccl loaded (path
 * and version) and the features of the chosen backend. For bug reports and
 * for programs that adapt to the machine; NCORE_DEBUG=INFO logs the same
 * facts as they are decided. */
#ifndef NCORE_INFO_H
#define NCORE_INFO_H

#include <stdint.h>
#include "errors.h"
#include "export.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* Bits of ncore_library_info_t.features: calls that work on the chosen
 * backend (on NCCL, those the loaded libnccl provides; ncore/comm_control.h
 * and ncore/onesided.h name the version each needs). */
/* ncore_signal, ncore_put_signal, ncore_wait_signal (ncore/onesided.h). */
#define NCORE_FEATURE_ONE_SIDED 0x1u
/* ncore_comm_revoke. */
#define NCORE_FEATURE_REVOKE 0x2u
/* ncore_comm_get_unique_id and ncore_comm_grow. */
#define NCORE_FEATURE_GROW 0x4u
/* ncore_comm_suspend and ncore_comm_resume. */
#define NCORE_FEATURE_SUSPEND 0x8u
/* ncore_comm_mem_stat. */
#define NCORE_FEATURE_MEM_STAT 0x10u
/* ncore_comm_init_rank_scalable with more than one id. */
#define NCORE_FEATURE_SCALABLE_INIT 0x20u

/* Sizes of the text fields, terminator included. */
#define NCORE_INFO_VERSION_BYTES 32
#define NCORE_INFO_REASON_BYTES 512
#define NCORE_INFO_PATH_BYTES 1024

/* The library's description. Versioned output: set struct_size
 * (NCORE_LIBRARY_INFO_INIT does); the library writes only the fields that
 * fit in struct_size, so a program built against an older, shorter struct
 * keeps working. New fields are only appended. Text fields are
 * NUL-terminated (truncated if longer). */
typedef struct ncore_library_info {
  uint32_t struct_size;
  /* ncore_abi_version() of the loaded library. */
  uint32_t abi_version;
  /* The ncore_backend_t that NCORE_BACKEND_AUTO resolves to in this process
   * (HOST or NCCL); NCORE_BACKEND_AUTO when it resolves to none (NCORE_BACKEND
   * names nothing, or asks for NCCL where NCCL is unavailable). */
  int32_t backend;
  /* NCORE_FEATURE_* of that backend; 0 when backend is AUTO. */
  uint32_t features;
  /* The loaded libnccl's version code (ncclGetVersion: 22809 for 2.28.9);
   * 0 when no libnccl was loaded. */
  int32_t nccl_version;
  /* CUDA devices visible to the NCCL backend; 0 without it. */
  int32_t cuda_device_count;
  /* ncore_version_string(): "MAJOR.MINOR.PATCH". */
  char version[NCORE_INFO_VERSION_BYTES];
  /* Why backend is what it is, e.g. "NCORE_BACKEND is unset and NCCL is not
   * usable: ...". */
  char backend_reason[NCORE_INFO_REASON_BYTES];
  /* The file libnccl was loaded from; "" when none was. */
  char nccl_path[NCORE_INFO_PATH_BYTES];
  /* Appended in ABI 1.2 (issue 44: version helpers). The newest NCCL whose
   * structs and calls this ncore knows, as a version code (23007 for
   * 2.30.7): what nccl4py calls the header version of its bindings. */
  int32_t nccl_headers_version;
  /* The CUDA toolkit the loaded libnccl was built with, as CUDA_VERSION
   * counts (12090 for 12.9), read from its "NCCL version X+cudaA.B" banner
   * (nccl4py's cuda_variant); 0 when no libnccl was loaded or its file says
   * none. */
  int32_t nccl_cuda_version;
} ncore_library_info_t;

#define NCORE_LIBRARY_INFO_INIT                                     \
  {                                                                 \
    (uint32_t)sizeof(ncore_library_info_t), /* struct_size */       \
    0, 0, 0, 0, 0, "", "", "",                                      \
    0, /* nccl_headers_version */                                   \
    0  /* nccl_cuda_version */                                      \
  }

/* Describes the library into *out, up to out->struct_size. Probes NCCL as
 * NCORE_BACKEND_AUTO would (loading libnccl.so.2 and libcuda.so.1 when
 * found); a backend that cannot be used is described, not an error.
 * Thread-safe.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, struct_size
 * below 8 or above a page). */
NCORE_API ncore_status_t ncore_library_info(ncore_library_info_t *out);

NCORE_END_DECLS

#endif /* NCORE_INFO_H */
