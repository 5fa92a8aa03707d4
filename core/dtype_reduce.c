/* core — element-wise reduction kernels for the host backend (core/dtype.h).
 *
 * Native types run plain loops over restrict pointers so that they vectorise.
 * gcc 12's -O2 uses the "very cheap" vectoriser cost model, which skips every
 * loop whose trip count is unknown; the pragma below lets these loops use the
 * "cheap" model (vector body + scalar tail) whatever the build's flags. Signed integers are added and multiplied as unsigned, so overflow
 * wraps as it does on the GPU instead of being undefined behaviour in C.
 * float16, bfloat16 and the float8s are widened to float, combined, and
 * rounded to nearest-even on store, as NCCL does.
 *
 * MAX and MIN of floating-point types are IEEE 754's maxNum / minNum, what
 * NCCL's kernels compute (src/device/reduce_kernel.h: fmaxf / fminf for
 * float and double, __hmax / __hmin for half, bfloat16 and the float8s,
 * all of which return the other operand when one is NaN): a NaN is dropped
 * against a number, so the result is NaN only where every rank's element
 * is, whichever rank holds it. (A plain `in > acc ? in : acc` kept a NaN
 * only from rank 0, the first accumulator.) Written as "a NaN accumulator
 * takes the input, else the larger": maxps, cmpneqps and a select, 26 %
 * slower than maxps alone on cache-resident data (0.136 against 0.108 ns
 * per float on the project's VM; the || form was 47 %). */
#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "dtype_bf16_inline.h"
#include "dtype_reduce_f16c.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=cheap")
#endif

/* x is NaN: for floating-point types only (an integer compared with itself
 * draws gcc's self-comparison warning, and is never unordered). */
#define UNORDERED_FLOAT(x) ((x) != (x))
#define UNORDERED_NEVER(x) 0

/* One loop per (type, operator); WRAP is the type arithmetic happens in,
 * UNORDERED tells a NaN accumulator (which MAX and MIN replace). */
#define DEFINE_NATIVE_REDUCE(NAME, T, WRAP, UNORDERED)                        \
  static void NAME(T *restrict acc, const T *restrict in, size_t count,       \
                   ncore_redop_t op) {                                        \
    switch (op) {                                                             \
      case NCORE_SUM:                                                         \
      case NCORE_AVG:                                                         \
        for (size_t i = 0; i < count; i++)                                    \
          acc[i] = (T)((WRAP)acc[i] + (WRAP)in[i]);                           \
        break;                                                                \
      case NCORE_PROD:                                                        \
        for (size_t i = 0; i < count; i++)                                    \
          acc[i] = (T)((WRAP)acc[i] * (WRAP)in[i]);                           \
        break;                                                                \
      case NCORE_MAX:                                                         \
        for (size_t i = 0; i < count; i++)                                    \
          acc[i] = UNORDERED(acc[i]) ? in[i] : in[i] > acc[i] ? in[i] : acc[i];\
        break;                                                                \
      case NCORE_MIN:                                                         \
        for (size_t i = 0; i < count; i++)                                    \
          acc[i] = UNORDERED(acc[i]) ? in[i] : in[i] < acc[i] ? in[i] : acc[i];\
        break;                                                                \
      default:                                                                \
        break;                                                                \
    }                                                                         \
  }

DEFINE_NATIVE_REDUCE(reduce_int8, int8_t, uint32_t, UNORDERED_NEVER)
DEFINE_NATIVE_REDUCE(reduce_uint8, uint8_t, uint32_t, UNORDERED_NEVER)
DEFINE_NATIVE_REDUCE(reduce_int32, int32_t, uint32_t, UNORDERED_NEVER)
DEFINE_NATIVE_REDUCE(reduce_uint32, uint32_t, uint32_t, UNORDERED_NEVER)
DEFINE_NATIVE_REDUCE(reduce_int64, int64_t, uint64_t, UNORDERED_NEVER)
DEFINE_NATIVE_REDUCE(reduce_uint64, uint64_t, uint64_t, UNORDERED_NEVER)
DEFINE_NATIVE_REDUCE(reduce_float32, float, float, UNORDERED_FLOAT)
DEFINE_NATIVE_REDUCE(reduce_float64, double, double, UNORDERED_FLOAT)

/* Narrow 16-bit and 8-bit floats: widen, combine, round back. One loop per
 * operator (the switch outside), so the bfloat16 loops vectorise. */
#define NARROW_LOOP(T, TO_FLOAT, FROM_FLOAT, EXPR)                           \
  for (size_t i = 0; i < count; i++) {                                       \
    float a = TO_FLOAT(acc[i]), b = TO_FLOAT(in[i]);                         \
    acc[i] = FROM_FLOAT(EXPR);                                               \
  }
#define DEFINE_NARROW_REDUCE(NAME, T, TO_FLOAT, FROM_FLOAT)                  \
  static void NAME(T *restrict acc, const T *restrict in, size_t count,      \
                   ncore_redop_t op) {                                       \
    switch (op) {                                                            \
      case NCORE_SUM:                                                        \
      case NCORE_AVG:                                                        \
        NARROW_LOOP(T, TO_FLOAT, FROM_FLOAT, a + b) break;                   \
      case NCORE_PROD: NARROW_LOOP(T, TO_FLOAT, FROM_FLOAT, a * b) break;    \
      case NCORE_MAX:                                                        \
        NARROW_LOOP(T, TO_FLOAT, FROM_FLOAT,                                 \
                    UNORDERED_FLOAT(a) ? b : b > a ? b : a) break;           \
      case NCORE_MIN:                                                        \
        NARROW_LOOP(T, TO_FLOAT, FROM_FLOAT,                                 \
                    UNORDERED_FLOAT(a) ? b : b < a ? b : a) break;           \
      default:                                                               \
        break;                                                               \
    }                                                                        \
  }

DEFINE_NARROW_REDUCE(reduce_float16, uint16_t, core_half_to_float,
                     core_float_to_half)
DEFINE_NARROW_REDUCE(reduce_bfloat16, uint16_t, core_bf16_to_float_inline,
                     core_float_to_bf16_inline)
DEFINE_NARROW_REDUCE(reduce_fp8e4m3, uint8_t, core_fp8e4m3_to_float,
                     core_float_to_fp8e4m3)
DEFINE_NARROW_REDUCE(reduce_fp8e5m2, uint8_t, core_fp8e5m2_to_float,
                     core_float_to_fp8e5m2)

static void reduce_into_aligned(void *acc, const void *in, size_t count,
                                ncore_dtype_t dtype, ncore_redop_t op) {
  switch (dtype) {
    case NCORE_INT8: reduce_int8(acc, in, count, op); break;
    case NCORE_UINT8: reduce_uint8(acc, in, count, op); break;
    case NCORE_INT32: reduce_int32(acc, in, count, op); break;
    case NCORE_UINT32: reduce_uint32(acc, in, count, op); break;
    case NCORE_INT64: reduce_int64(acc, in, count, op); break;
    case NCORE_UINT64: reduce_uint64(acc, in, count, op); break;
    case NCORE_FLOAT16: {
      /* Whole steps of eight through F16C, the rest one by one. */
      size_t done = 0;
      if (count >= 8 && core_cpu_has_f16c())
        done = core_reduce_float16_f16c(acc, in, count, op);
      if (done < count)
        reduce_float16((uint16_t *)acc + done, (const uint16_t *)in + done,
                       count - done, op);
      break;
    }
    case NCORE_FLOAT32: reduce_float32(acc, in, count, op); break;
    case NCORE_FLOAT64: reduce_float64(acc, in, count, op); break;
    case NCORE_BFLOAT16: reduce_bfloat16(acc, in, count, op); break;
    case NCORE_FLOAT8E4M3: reduce_fp8e4m3(acc, in, count, op); break;
    case NCORE_FLOAT8E5M2: reduce_fp8e5m2(acc, in, count, op); break;
  }
}

/* AVG: integer division for integers (towards zero, as C and CUDA). */
#define DEFINE_NATIVE_DIVIDE(NAME, T)                                 \
  static void NAME(T *restrict acc, size_t count, T divisor) {        \
    for (size_t i = 0; i < count; i++) acc[i] = (T)(acc[i] / divisor); \
  }

DEFINE_NATIVE_DIVIDE(divide_int8, int8_t)
DEFINE_NATIVE_DIVIDE(divide_uint8, uint8_t)
DEFINE_NATIVE_DIVIDE(divide_int32, int32_t)
DEFINE_NATIVE_DIVIDE(divide_uint32, uint32_t)
DEFINE_NATIVE_DIVIDE(divide_int64, int64_t)
DEFINE_NATIVE_DIVIDE(divide_uint64, uint64_t)
DEFINE_NATIVE_DIVIDE(divide_float32, float)
DEFINE_NATIVE_DIVIDE(divide_float64, double)

#define DEFINE_NARROW_DIVIDE(NAME, T, TO_FLOAT, FROM_FLOAT)            \
  static void NAME(T *restrict acc, size_t count, float divisor) {     \
    for (size_t i = 0; i < count; i++)                                 \
      acc[i] = FROM_FLOAT(TO_FLOAT(acc[i]) / divisor);                 \
  }

DEFINE_NARROW_DIVIDE(divide_float16, uint16_t, core_half_to_float,
                     core_float_to_half)
DEFINE_NARROW_DIVIDE(divide_bfloat16, uint16_t, core_bf16_to_float,
                     core_float_to_bf16)
DEFINE_NARROW_DIVIDE(divide_fp8e4m3, uint8_t, core_fp8e4m3_to_float,
                     core_float_to_fp8e4m3)
DEFINE_NARROW_DIVIDE(divide_fp8e5m2, uint8_t, core_fp8e5m2_to_float,
                     core_float_to_fp8e5m2)

static void finish_aligned(void *acc, size_t count, ncore_dtype_t dtype,
                           int nranks) {
  switch (dtype) {
    case NCORE_INT8: divide_int8(acc, count, (int8_t)nranks); break;
    case NCORE_UINT8: divide_uint8(acc, count, (uint8_t)nranks); break;
    case NCORE_INT32: divide_int32(acc, count, (int32_t)nranks); break;
    case NCORE_UINT32: divide_uint32(acc, count, (uint32_t)nranks); break;
    case NCORE_INT64: divide_int64(acc, count, (int64_t)nranks); break;
    case NCORE_UINT64: divide_uint64(acc, count, (uint64_t)nranks); break;
    case NCORE_FLOAT16: divide_float16(acc, count, (float)nranks); break;
    case NCORE_FLOAT32: divide_float32(acc, count, (float)nranks); break;
    case NCORE_FLOAT64: divide_float64(acc, count, (double)nranks); break;
    case NCORE_BFLOAT16: divide_bfloat16(acc, count, (float)nranks); break;
    case NCORE_FLOAT8E4M3: divide_fp8e4m3(acc, count, (float)nranks); break;
    case NCORE_FLOAT8E5M2: divide_fp8e5m2(acc, count, (float)nranks); break;
  }
}

/* out[i] = in[i] * s, in the arithmetic type WRAP (out may equal in). The
 * scalar is the caller's (a PreMulSum operator's), at any address: read it
 * with memcpy, never through a T pointer it may not be aligned for. */
#define DEFINE_NATIVE_SCALE(NAME, T, WRAP)                                  \
  static void NAME(T *out, const T *in, size_t count,                       \
                   const void *scalar) {                                    \
    T scalar_value;                                                         \
    memcpy(&scalar_value, scalar, sizeof scalar_value);                     \
    WRAP s = (WRAP)scalar_value;                                            \
    for (size_t i = 0; i < count; i++) out[i] = (T)((WRAP)in[i] * s);       \
  }

DEFINE_NATIVE_SCALE(scale_int8, int8_t, uint32_t)
DEFINE_NATIVE_SCALE(scale_uint8, uint8_t, uint32_t)
DEFINE_NATIVE_SCALE(scale_int32, int32_t, uint32_t)
DEFINE_NATIVE_SCALE(scale_uint32, uint32_t, uint32_t)
DEFINE_NATIVE_SCALE(scale_int64, int64_t, uint64_t)
DEFINE_NATIVE_SCALE(scale_uint64, uint64_t, uint64_t)
DEFINE_NATIVE_SCALE(scale_float32, float, float)
DEFINE_NATIVE_SCALE(scale_float64, double, double)

#define DEFINE_NARROW_SCALE(NAME, T, TO_FLOAT, FROM_FLOAT)                  \
  static void NAME(T *out, const T *in, size_t count, const void *scalar) { \
    T scalar_value;                                                         \
    memcpy(&scalar_value, scalar, sizeof scalar_value);                     \
    float s = TO_FLOAT(scalar_value);                                       \
    for (size_t i = 0; i < count; i++) out[i] = FROM_FLOAT(TO_FLOAT(in[i]) * s); \
  }

DEFINE_NARROW_SCALE(scale_float16, uint16_t, core_half_to_float,
                    core_float_to_half)
DEFINE_NARROW_SCALE(scale_bfloat16, uint16_t, core_bf16_to_float,
                    core_float_to_bf16)
DEFINE_NARROW_SCALE(scale_fp8e4m3, uint8_t, core_fp8e4m3_to_float,
                    core_float_to_fp8e4m3)
DEFINE_NARROW_SCALE(scale_fp8e5m2, uint8_t, core_fp8e5m2_to_float,
                    core_float_to_fp8e5m2)

/* out and in may be the same buffer (an in-place pre-multiply), so the scale
 * loops take no restrict; gcc still vectorises them behind an overlap check. */
static void scale_aligned(void *out, const void *in, size_t count,
                          ncore_dtype_t dtype, const void *scalar) {
  switch (dtype) {
    case NCORE_INT8: scale_int8(out, in, count, scalar); break;
    case NCORE_UINT8: scale_uint8(out, in, count, scalar); break;
    case NCORE_INT32: scale_int32(out, in, count, scalar); break;
    case NCORE_UINT32: scale_uint32(out, in, count, scalar); break;
    case NCORE_INT64: scale_int64(out, in, count, scalar); break;
    case NCORE_UINT64: scale_uint64(out, in, count, scalar); break;
    case NCORE_FLOAT16: scale_float16(out, in, count, scalar); break;
    case NCORE_FLOAT32: scale_float32(out, in, count, scalar); break;
    case NCORE_FLOAT64: scale_float64(out, in, count, scalar); break;
    case NCORE_BFLOAT16: scale_bfloat16(out, in, count, scalar); break;
    case NCORE_FLOAT8E4M3: scale_fp8e4m3(out, in, count, scalar); break;
    case NCORE_FLOAT8E5M2: scale_fp8e5m2(out, in, count, scalar); break;
  }
}

/* ---- the entry points: any alignment ----
 * The loops above read and write T through T pointers, which C allows only
 * at addresses aligned for T; a caller's buffer may be at any address (a
 * byte offset into a NumPy array, a packed struct). Aligned buffers, the
 * common case, go to the loops directly; others are staged through aligned
 * blocks with memcpy, so every element still lands exactly. */

/* Elements per staged block (a multiple of every element size). */
#define STAGE_BYTES 4096

static int aligned(const void *p, size_t element) {
  return ((uintptr_t)p & (element - 1)) == 0;
}

void core_reduce_into(void *acc, const void *in, size_t count,
                      ncore_dtype_t dtype, ncore_redop_t op) {
  size_t element = core_dtype_size(dtype);
  if (element <= 1 || (aligned(acc, element) && aligned(in, element))) {
    reduce_into_aligned(acc, in, count, dtype, op);
    return;
  }
  _Alignas(16) unsigned char a[STAGE_BYTES], b[STAGE_BYTES];
  size_t per_block = STAGE_BYTES / element;
  for (size_t done = 0; done < count; done += per_block) {
    size_t n = count - done < per_block ? count - done : per_block;
    size_t offset = done * element;
    memcpy(a, (unsigned char *)acc + offset, n * element);
    memcpy(b, (const unsigned char *)in + offset, n * element);
    reduce_into_aligned(a, b, n, dtype, op);
    memcpy((unsigned char *)acc + offset, a, n * element);
  }
}

void core_reduce_finish(void *acc, size_t count, ncore_dtype_t dtype,
                        ncore_redop_t op, int nranks) {
  if (op != NCORE_AVG || nranks <= 1) return;
  size_t element = core_dtype_size(dtype);
  if (element <= 1 || aligned(acc, element)) {
    finish_aligned(acc, count, dtype, nranks);
    return;
  }
  _Alignas(16) unsigned char a[STAGE_BYTES];
  size_t per_block = STAGE_BYTES / element;
  for (size_t done = 0; done < count; done += per_block) {
    size_t n = count - done < per_block ? count - done : per_block;
    unsigned char *at = (unsigned char *)acc + done * element;
    memcpy(a, at, n * element);
    finish_aligned(a, n, dtype, nranks);
    memcpy(at, a, n * element);
  }
}

void core_scale(void *out, const void *in, size_t count, ncore_dtype_t dtype,
                const void *scalar) {
  size_t element = core_dtype_size(dtype);
  if (element <= 1 || (aligned(out, element) && aligned(in, element))) {
    scale_aligned(out, in, count, dtype, scalar);
    return;
  }
  _Alignas(16) unsigned char a[STAGE_BYTES];
  size_t per_block = STAGE_BYTES / element;
  for (size_t done = 0; done < count; done += per_block) {
    size_t n = count - done < per_block ? count - done : per_block;
    size_t offset = done * element;
    memcpy(a, (const unsigned char *)in + offset, n * element);
    scale_aligned(a, a, n, dtype, scalar);
    memcpy((unsigned char *)out + offset, a, n * element);
  }
}
