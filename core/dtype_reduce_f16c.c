/* core — float16 reductions through F16C (core/dtype_reduce_f16c.h). */
#include "dtype_reduce_f16c.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

/* CPUID leaf 1: F16C (ecx bit 29), AVX (bit 28), and OSXSAVE (bit 27) with
 * the OS saving YMM state (XCR0 bits 1 and 2). Read with cpuid directly
 * because clang 14's __builtin_cpu_supports does not know "f16c". */
static int detect_f16c(void) {
  unsigned int eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  const unsigned int needed = (1u << 29) | (1u << 28) | (1u << 27);
  if ((ecx & needed) != needed) return 0;
  unsigned int xcr0_low, xcr0_high;
  __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  (void)xcr0_high;
  return (xcr0_low & 6u) == 6u;
}

int core_cpu_has_f16c(void) {
  /* Relaxed atomics: racing threads all compute and store the same value. */
  static int answer = -1;
  int known = __atomic_load_n(&answer, __ATOMIC_RELAXED);
  if (known < 0) {
    known = detect_f16c();
    __atomic_store_n(&answer, known, __ATOMIC_RELAXED);
  }
  return known;
}

/* b where the accumulator a is NaN, else m. MAX and MIN are maxNum /
 * minNum (dtype_reduce.c says why): vmaxps / vminps return their second
 * operand, a, when either is NaN, so a NaN accumulator is replaced by b
 * afterwards. (Masks, not _mm256_blendv_ps: gcc 12 split that into eight
 * scalar branches here, four times slower.) */
__attribute__((target("avx,f16c"))) static inline __m256 unless_a_is_nan(
    __m256 a, __m256 b, __m256 m) {
  __m256 nan = _mm256_cmp_ps(a, a, _CMP_UNORD_Q);
  return _mm256_or_ps(_mm256_and_ps(nan, b), _mm256_andnot_ps(nan, m));
}

/* Combines eight floats; op as in core_reduce_into (dtype.h). */
__attribute__((target("avx,f16c"))) static inline __m256 combine8(
    __m256 a, __m256 b, ncore_redop_t op) {
  switch (op) {
    case NCORE_PROD: return _mm256_mul_ps(a, b);
    case NCORE_MAX: return unless_a_is_nan(a, b, _mm256_max_ps(b, a)); /* b > a ? b : a */
    case NCORE_MIN: return unless_a_is_nan(a, b, _mm256_min_ps(b, a)); /* b < a ? b : a */
    default: return _mm256_add_ps(a, b);
  }
}

__attribute__((target("avx,f16c"))) size_t core_reduce_float16_f16c(
    uint16_t *acc, const uint16_t *in, size_t count, ncore_redop_t op) {
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(acc + i)));
    __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(in + i)));
    __m128i r = _mm256_cvtps_ph(combine8(a, b, op), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128((__m128i *)(acc + i), r);
  }
  return i;
}

#else

int core_cpu_has_f16c(void) { return 0; }

size_t core_reduce_float16_f16c(uint16_t *acc, const uint16_t *in,
                                size_t count, ncore_redop_t op) {
  (void)acc, (void)in, (void)count, (void)op;
  return 0;
}

#endif
