/* core — the element-type table: validity, sizes and names (core/dtype.h),
 * and the public ncore_dtype_size / ncore_dtype_name (ncore/buffer.h). */
#include "dtype.h"
#include "error.h"

/* Names by ncore_dtype_t, whose values equal NCCL's ncclDataType_t
 * (nccl.core's names; the sizes are dtype.h's CORE_DTYPE_SIZES). */
static const char *const dtype_names[CORE_DTYPE_COUNT] = {
    [NCORE_INT8] = "int8",
    [NCORE_UINT8] = "uint8",
    [NCORE_INT32] = "int32",
    [NCORE_UINT32] = "uint32",
    [NCORE_INT64] = "int64",
    [NCORE_UINT64] = "uint64",
    [NCORE_FLOAT16] = "float16",
    [NCORE_FLOAT32] = "float32",
    [NCORE_FLOAT64] = "float64",
    [NCORE_BFLOAT16] = "bfloat16",
    [NCORE_FLOAT8E4M3] = "float8_e4m3",
    [NCORE_FLOAT8E5M2] = "float8_e5m2",
};

const char *core_dtype_name(ncore_dtype_t dtype) {
  return core_dtype_is_valid((int)dtype) ? dtype_names[dtype] : "invalid";
}

/* Shared argument check of the two public lookups. */
static ncore_status_t check_lookup(ncore_dtype_t dtype, const void *out) {
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  if (!core_dtype_is_valid((int)dtype))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "dtype: %d is not a data type (valid: 0..%d)", (int)dtype,
                      CORE_DTYPE_COUNT - 1);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_dtype_size(ncore_dtype_t dtype, size_t *out) {
  CORE_ENTER("ncore_dtype_size");
  ncore_status_t status = check_lookup(dtype, out);
  if (status == NCORE_OK) *out = core_dtype_size(dtype);
  return status;
}

NCORE_API ncore_status_t ncore_dtype_name(ncore_dtype_t dtype,
                                          const char **out) {
  CORE_ENTER("ncore_dtype_name");
  ncore_status_t status = check_lookup(dtype, out);
  if (status == NCORE_OK) *out = core_dtype_name(dtype);
  return status;
}
