/* core — custom reduction operators (ncore/resources.h,
 * ncclRedOpCreatePreMulSum). Each gets an ncore_redop_t value unique in the
 * process and never reused, so a closed operator's value can be recognised
 * (CLOSED) and can never silently name a newer operator. */
#include "redop_lookup.h"
#include "resource_entry.h"
#include "validate.h"

NCORE_API ncore_status_t ncore_create_pre_mul_sum(
    ncore_custom_redop_t *out, ncore_comm_t comm, const void *scalar,
    ncore_dtype_t dtype, ncore_scalar_residence_t residence) {
  CORE_ENTER("ncore_create_pre_mul_sum");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_resource_create_begin(out, comm, &c);
  if (status != NCORE_OK) return status;
  status = core_check_not_null(scalar, "scalar");
  if (status == NCORE_OK) status = core_check_dtype((int)dtype, "dtype");
  if (status == NCORE_OK && residence != NCORE_SCALAR_DEVICE &&
      residence != NCORE_SCALAR_HOST_IMMEDIATE)
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "residence: %d is not a scalar residence (DEVICE 0, "
                        "HOST_IMMEDIATE 1)", (int)residence);
  core_resource_t fields = {.dtype = dtype};
  if (status == NCORE_OK)
    status = c->ops->redop_create_pre_mul_sum(c->impl, scalar, dtype,
                                              residence, &fields.impl.redop);
  if (status == NCORE_OK) fields.redop_value = core_next_redop_value();
  return core_resource_create_end(c, status, CORE_HANDLE_CUSTOM_REDOP, &fields,
                                  out);
}

CORE_RESOURCE_QUERY(ncore_custom_redop_value, ncore_custom_redop_t, op,
                    CORE_HANDLE_CUSTOM_REDOP, ncore_redop_t, res->redop_value)
CORE_RESOURCE_QUERY(ncore_custom_redop_dtype, ncore_custom_redop_t, op,
                    CORE_HANDLE_CUSTOM_REDOP, ncore_dtype_t, res->dtype)
CORE_RESOURCE_CLOSE_AND_IS_VALID(ncore_custom_redop_close,
                                 ncore_custom_redop_is_valid,
                                 ncore_custom_redop_t, op,
                                 CORE_HANDLE_CUSTOM_REDOP)
