/* core/nccl — custom reduction operators: ncclRedOpCreatePreMulSum. */
#ifndef NCORE_CORE_NCCL_CUSTOM_REDOP_H
#define NCORE_CORE_NCCL_CUSTOM_REDOP_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_redop_create_pre_mul_sum(void *comm, const void *scalar,
                                             ncore_dtype_t dtype,
                                             ncore_scalar_residence_t residence,
                                             void **out);
void nccl_redop_destroy(void *comm, void *op);

#endif
