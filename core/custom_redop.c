/* core — custom reduction operators (ncore/resources.h,
 * ncclRedOpCreatePreMulSum). Each gets an ncore_redop_t value unique in the
 * process and never reused, so a closed operator's value can be recognised
 * (CLOSED) and can never silently name a newer operator. */
#include "comm_object.h"
#include "error.h"
#include "validate.h"

NCORE_API ncore_status_t ncore_create_pre_mul_sum(
    ncore_custom_redop_t *out, ncore_comm_t comm, const void *scalar,
    ncore_dtype_t dtype, ncore_scalar_residence_t residence) {
  CORE_ENTER("ncore_create_pre_mul_sum");
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  *out = NCORE_NULL_HANDLE;
  core_comm_object_t *c = NULL;
  status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  status = core_check_not_null(scalar, "scalar");
  if (status == NCORE_OK) status = core_check_dtype((int)dtype, "dtype");
  if (status == NCORE_OK && residence != NCORE_SCALAR_DEVICE &&
      residence != NCORE_SCALAR_HOST_IMMEDIATE)
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "residence: %d is not a scalar residence (DEVICE 0, "
                        "HOST_IMMEDIATE 1)", (int)residence);
  core_resource_t fields = {0};
  if (status == NCORE_OK)
    status = c->ops->redop_create_pre_mul_sum(c->impl, scalar, dtype,
                                              residence, &fields.impl);
  if (status == NCORE_OK) {
    fields.dtype = dtype;
    fields.redop_value = core_next_redop_value();
    status = core_resource_publish(c, CORE_HANDLE_CUSTOM_REDOP, &fields, out);
  }
  core_comm_release(c);
  return status;
}

/* Acquires op for a query with a non-NULL out. */
static ncore_status_t begin_query(ncore_custom_redop_t op, const void *out,
                                  core_resource_t **res) {
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  return core_resource_acquire(op, CORE_HANDLE_CUSTOM_REDOP, "op", res);
}

NCORE_API ncore_status_t ncore_custom_redop_value(ncore_custom_redop_t op,
                                                  ncore_redop_t *out) {
  CORE_ENTER("ncore_custom_redop_value");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(op, out, &res);
  if (status != NCORE_OK) return status;
  *out = res->redop_value;
  core_resource_release(res);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_custom_redop_dtype(ncore_custom_redop_t op,
                                                  ncore_dtype_t *out) {
  CORE_ENTER("ncore_custom_redop_dtype");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(op, out, &res);
  if (status != NCORE_OK) return status;
  *out = res->dtype;
  core_resource_release(res);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_custom_redop_close(ncore_custom_redop_t op) {
  CORE_ENTER("ncore_custom_redop_close");
  return core_resource_close(op, CORE_HANDLE_CUSTOM_REDOP, "op");
}

NCORE_API int ncore_custom_redop_is_valid(ncore_custom_redop_t op) {
  CORE_ENTER("ncore_custom_redop_is_valid");
  return core_resource_is_valid(op, CORE_HANDLE_CUSTOM_REDOP);
}
