/* core/nccl — PreMulSum operators (custom_redop.h). */
#include "custom_redop.h"

#include <stdlib.h>

#include "../error.h"
#include "device.h"

ncore_status_t nccl_redop_create_pre_mul_sum(
    core_backend_comm_t *comm, const void *scalar, ncore_dtype_t dtype,
    ncore_scalar_residence_t residence, core_backend_redop_t **out) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  core_backend_redop_t *op = malloc(sizeof *op);
  if (op == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  /* ncore's residence values equal ncclScalarResidence_t (device 0, host
   * immediate 1): NCCL copies a host scalar now, and reads a device one at
   * each collective. */
  status = nccl_check(nccl_fn.ncclRedOpCreatePreMulSum(
                          &op->op, (void *)scalar, (ncclDataType_t)dtype,
                          (ncclScalarResidence_t)residence, c->nccl),
                      "ncclRedOpCreatePreMulSum", c->nccl);
  if (status != NCORE_OK) {
    free(op);
    return status;
  }
  *out = op;
  return NCORE_OK;
}

void nccl_redop_destroy(core_backend_comm_t *comm, core_backend_redop_t *op) {
  nccl_comm_t *c = comm;
  if (!core_comm_state_aborted(c->state)) {
    cu_fn.CtxSetCurrent(c->ctx);
    (void)nccl_fn.ncclRedOpDestroy(op->op, c->nccl);
  }
  free(op);
}
