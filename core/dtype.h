/* core — element types: sizes, names, and the conversions and reduction
 * kernels that the host backend uses (float16, bfloat16 and the two float8s
 * are computed in float and rounded to nearest-even, as NCCL does). */
#ifndef NCORE_CORE_DTYPE_H
#define NCORE_CORE_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <ncore.h>

#define CORE_DTYPE_COUNT 12

/* Each dtype's element size, 4 bits per dtype at 4 * its value: read on
 * every call, so it is an immediate in the code, not a table in memory. */
#define CORE_DTYPE_SIZE_AT(dtype, size) ((uint64_t)(size) << (4 * (dtype)))
#define CORE_DTYPE_SIZES                                                    \
  (CORE_DTYPE_SIZE_AT(NCORE_INT8, 1) | CORE_DTYPE_SIZE_AT(NCORE_UINT8, 1) | \
   CORE_DTYPE_SIZE_AT(NCORE_INT32, 4) |                                     \
   CORE_DTYPE_SIZE_AT(NCORE_UINT32, 4) |                                    \
   CORE_DTYPE_SIZE_AT(NCORE_INT64, 8) |                                     \
   CORE_DTYPE_SIZE_AT(NCORE_UINT64, 8) |                                    \
   CORE_DTYPE_SIZE_AT(NCORE_FLOAT16, 2) |                                   \
   CORE_DTYPE_SIZE_AT(NCORE_FLOAT32, 4) |                                   \
   CORE_DTYPE_SIZE_AT(NCORE_FLOAT64, 8) |                                   \
   CORE_DTYPE_SIZE_AT(NCORE_BFLOAT16, 2) |                                  \
   CORE_DTYPE_SIZE_AT(NCORE_FLOAT8E4M3, 1) |                                \
   CORE_DTYPE_SIZE_AT(NCORE_FLOAT8E5M2, 1))

/* 1 if dtype is one of the twelve, else 0. */
static inline int core_dtype_is_valid(int dtype) {
  return dtype >= 0 && dtype < CORE_DTYPE_COUNT;
}
/* Element size in bytes; 0 for an invalid dtype. */
static inline size_t core_dtype_size(ncore_dtype_t dtype) {
  return core_dtype_is_valid((int)dtype)
             ? (size_t)((CORE_DTYPE_SIZES >> (4 * (int)dtype)) & 0xf)
             : 0;
}
/* Lower-case name ("float32"); "invalid" for an invalid dtype. */
const char *core_dtype_name(ncore_dtype_t dtype);

/* Scalar conversions, round-to-nearest-even, saturating/NaN as IEEE/OCP. */
float core_half_to_float(uint16_t h);
uint16_t core_float_to_half(float f);
float core_bf16_to_float(uint16_t b);
uint16_t core_float_to_bf16(float f);
float core_fp8e4m3_to_float(uint8_t v);
uint8_t core_float_to_fp8e4m3(float f);
float core_fp8e5m2_to_float(uint8_t v);
uint8_t core_float_to_fp8e5m2(float f);

/* acc[i] = acc[i] op in[i] for count elements of dtype. op is a built-in
 * (SUM, PROD, MAX, MIN; AVG reduces as SUM, see core_reduce_finish). */
void core_reduce_into(void *acc, const void *in, size_t count,
                      ncore_dtype_t dtype, ncore_redop_t op);

/* Finishes a reduction over nranks inputs in place: AVG divides by nranks
 * (integer division for integers); a PreMulSum scales by *scalar (one element
 * of dtype) — callers pre-multiply instead when they prefer, see host
 * backend; other ops do nothing. */
void core_reduce_finish(void *acc, size_t count, ncore_dtype_t dtype,
                        ncore_redop_t op, int nranks);

/* acc[i] = in[i] * scalar for count elements (PreMulSum's pre-multiply). */
void core_scale(void *out, const void *in, size_t count, ncore_dtype_t dtype,
                const void *scalar);

#endif
