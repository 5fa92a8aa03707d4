/* core — element types: sizes, names, and the conversions and reduction
 * kernels that the host backend uses (float16, bfloat16 and the two float8s
 * are computed in float and rounded to nearest-even, as NCCL does). */
#ifndef NCORE_CORE_DTYPE_H
#define NCORE_CORE_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <ncore.h>

#define CORE_DTYPE_COUNT 12

/* 1 if dtype is one of the twelve, else 0. */
int core_dtype_is_valid(int dtype);
/* Element size in bytes; 0 for an invalid dtype. */
size_t core_dtype_size(ncore_dtype_t dtype);
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
