/* core — bfloat16 conversions as inline, branch-free functions, so that the
 * bfloat16 reduction loops inline and vectorise them (dtype_reduce.c); the
 * out-of-line core_bf16_to_float / core_float_to_bf16 (dtype_convert.c) are
 * these same functions. */
#ifndef NCORE_CORE_DTYPE_BF16_INLINE_H
#define NCORE_CORE_DTYPE_BF16_INLINE_H

#include <stdint.h>
#include <string.h>

/* bfloat16 is the top half of a float: widening is exact. */
static inline float core_bf16_to_float_inline(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Round to nearest-even by adding 0x7fff plus the kept LSB (a carry into the
 * exponent gives the right overflow to infinity); NaN becomes a quiet NaN
 * of the same sign, since rounding could turn a NaN into infinity. */
static inline uint16_t core_float_to_bf16_inline(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  uint32_t quiet_nan = ((x >> 16) & 0x8000u) | 0x7fc0u;
  return (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

#endif
