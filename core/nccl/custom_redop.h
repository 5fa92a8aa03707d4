/* core/nccl — custom reduction operators: ncclRedOpCreatePreMulSum. */
#ifndef NCORE_CORE_NCCL_CUSTOM_REDOP_H
#define NCORE_CORE_NCCL_CUSTOM_REDOP_H

#include "../backend.h"
#include "nccl_lib.h"

/* A custom operator: the NCCL backend's core_backend_redop_t. */
struct core_backend_redop {
  ncclRedOp_t op;
};

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_redop_create_pre_mul_sum(
    core_backend_comm_t *comm, const void *scalar, ncore_dtype_t dtype,
    ncore_scalar_residence_t residence, core_backend_redop_t **out);
void nccl_redop_destroy(core_backend_comm_t *comm, core_backend_redop_t *op);

#endif
