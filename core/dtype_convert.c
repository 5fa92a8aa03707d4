/* core — scalar conversions between float and the narrow float types
 * (core/dtype.h): IEEE binary16, bfloat16, and OCP float8 E4M3 (the "fn"
 * variant: no infinity, NaN = S.1111.111, max 448) and E5M2 (IEEE-like, with
 * infinity). Every narrowing rounds to nearest-even. The float8 narrowings
 * saturate to the largest finite value, like CUDA's __NV_SATFINITE
 * constructors that NCCL's float8 kernels use (cuda_fp8.hpp), and turn NaN
 * into 0x7f as it does. Only bit operations and exact float arithmetic are
 * used, so the library needs no libm. */
#include <math.h>
#include <string.h>

#include "dtype.h"
#include "dtype_bf16_inline.h"

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* 2^exponent as a float, exponent in the normal range [-126, 127]. */
static float power_of_two(int exponent) {
  return bits_float((uint32_t)(exponent + 127) << 23);
}

/* Rounds a non-negative float below 2^23 to the nearest integer, ties to
 * even (what rintf does in the default rounding mode). */
static uint32_t round_half_even(float value) {
  uint32_t whole = (uint32_t)value;
  float fraction = value - (float)whole;
  if (fraction > 0.5f || (fraction == 0.5f && (whole & 1u))) whole++;
  return whole;
}

float core_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    /* Zero or subnormal: mantissa * 2^-24 is exact in float. */
    float magnitude = (float)mantissa * power_of_two(-24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t core_float_to_half(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return (uint16_t)(sign | 0x7e00u); /* NaN */
  /* 65520 = 65504 + half an ulp: ties round to the even neighbour, which is
   * infinity, so everything from there up overflows. */
  if (magnitude >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) { /* normal half: >= 2^-14 */
    uint32_t odd = (magnitude >> 13) & 1u;
    magnitude += 0xfffu + odd; /* round to nearest, ties to even */
    magnitude -= (uint32_t)(127 - 15) << 23;
    return (uint16_t)(sign | (magnitude >> 13));
  }
  /* Subnormal half: adding 0.5 (whose ulp is 2^-24, the half subnormal
   * step) lets the FPU round to nearest-even for us. */
  float shifted = bits_float(magnitude) + 0.5f;
  return (uint16_t)(sign | (float_bits(shifted) - float_bits(0.5f)));
}

float core_bf16_to_float(uint16_t b) { return core_bf16_to_float_inline(b); }

uint16_t core_float_to_bf16(float f) { return core_float_to_bf16_inline(f); }

float core_fp8e4m3_to_float(uint8_t v) {
  uint32_t exponent = (v >> 3) & 0xfu;
  uint32_t mantissa = v & 0x7u;
  float magnitude;
  if (exponent == 15 && mantissa == 7) return NAN;
  if (exponent == 0)
    magnitude = (float)mantissa * power_of_two(-9);
  else
    magnitude = (float)(8u + mantissa) * power_of_two((int)exponent - 10);
  return (v & 0x80u) ? -magnitude : magnitude;
}

float core_fp8e5m2_to_float(uint8_t v) {
  /* E5M2 is the top byte of an IEEE half. */
  return core_half_to_float((uint16_t)((uint16_t)v << 8));
}

/* Rounds |f| (finite, not NaN) to a float8 with exp_bits/man_bits/bias,
 * returning the unsigned code before saturation; codes above max_code are
 * saturated by the caller. */
static uint32_t fp8_round_magnitude(uint32_t magnitude, int man_bits,
                                    int bias) {
  int min_normal_exp = 1 - bias; /* unbiased */
  uint32_t min_normal_bits = (uint32_t)(min_normal_exp + 127) << 23;
  if (magnitude < min_normal_bits) {
    /* Subnormal: count units of 2^(min_normal_exp - man_bits) (scaling by a
     * power of two is exact), rounded to nearest-even. A result of
     * 1 << man_bits is the smallest normal, which is the right code. */
    float units = bits_float(magnitude) * power_of_two(man_bits - min_normal_exp);
    return round_half_even(units);
  }
  int drop = 23 - man_bits;
  uint32_t odd = (magnitude >> drop) & 1u;
  magnitude += ((1u << drop) >> 1) - 1u + odd; /* nearest, ties to even */
  uint32_t exponent = (magnitude >> 23) - 127u + (uint32_t)bias;
  uint32_t mantissa = (magnitude >> drop) & ((1u << man_bits) - 1u);
  return (exponent << man_bits) | mantissa;
}

/* Shared body of the two float8 narrowings (satfinite). */
static uint8_t float_to_fp8(float f, int man_bits, int bias, uint32_t max_code) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 24) & 0x80u;
  uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return 0x7f; /* NaN, as CUDA */
  if (magnitude == 0x7f800000u) return (uint8_t)(sign | max_code);
  uint32_t code = fp8_round_magnitude(magnitude, man_bits, bias);
  if (code > max_code) code = max_code;
  return (uint8_t)(sign | code);
}

uint8_t core_float_to_fp8e4m3(float f) {
  return float_to_fp8(f, 3, 7, 0x7eu); /* 0x7e = 448 */
}

uint8_t core_float_to_fp8e5m2(float f) {
  return float_to_fp8(f, 2, 15, 0x7bu); /* 0x7b = 57344 */
}
