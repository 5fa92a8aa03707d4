/* core/nccl — ncclResult_t and CUresult failures as ncore statuses, with a
 * message naming the failing function and NCCL's / CUDA's own text. */
#ifndef NCORE_CORE_NCCL_STATUS_H
#define NCORE_CORE_NCCL_STATUS_H

#include "nccl_lib.h"

/* The status of an ncclResult_t: values 0..7 are equal, ncclTimeout (8,
 * 2.30.3+) is NCORE_ERR_TIMEOUT, anything else NCORE_ERR_INTERNAL. */
ncore_status_t nccl_status_of(ncclResult_t result);
/* NCORE_OK for ncclSuccess, NCORE_IN_PROGRESS for ncclInProgress (nothing
 * recorded); else records "<function> failed: <text> (<last error>)" and
 * returns the mapped status. */
ncore_status_t nccl_check(ncclResult_t result, const char *function,
                          ncclComm_t comm);
/* NCORE_OK for CUDA_SUCCESS; any failure is NCORE_ERR_UNHANDLED_CUDA,
 * recorded as "<function> failed: <NAME> (<text>)". */
ncore_status_t cu_check(CUresult result, const char *function);

#endif
