/* tests/harness — communication buffers and an independent dtype codec
 * (testbuf.h). */
#include "testbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

void *tb_alloc(size_t bytes) {
  void *p = NULL;
  ncore_backend_t backend = harness_backend();
  ncore_status_t st = ncore_mem_alloc(&p, bytes ? bytes : 1, backend);
  if (st != NCORE_OK) {
    harness_fail(__FILE__, __LINE__, "ncore_mem_alloc(%zu): %s (\"%s\")", bytes,
                 ncore_status_string(st), ncore_last_error_message());
    return NULL;
  }
  st = ncore_memset(p, 0, bytes ? bytes : 1, NULL, backend);
  if (st == NCORE_OK) st = ncore_stream_synchronize(NULL, backend);
  if (st != NCORE_OK)
    harness_fail(__FILE__, __LINE__, "ncore_memset: %s (\"%s\")",
                 ncore_status_string(st), ncore_last_error_message());
  return p;
}

void tb_free(void *ptr) {
  if (!ptr) return;
  ncore_status_t st = ncore_mem_free(ptr, harness_backend());
  if (st != NCORE_OK)
    harness_fail(__FILE__, __LINE__, "ncore_mem_free: %s (\"%s\")",
                 ncore_status_string(st), ncore_last_error_message());
}

/* One copy plus a synchronisation, failures recorded. */
static void copy_sync(void *dst, const void *src, size_t bytes,
                      ncore_memcpy_kind_t kind) {
  ncore_backend_t backend = harness_backend();
  ncore_status_t st = ncore_memcpy(dst, src, bytes, kind, NULL, backend);
  if (st == NCORE_OK) st = ncore_stream_synchronize(NULL, backend);
  if (st != NCORE_OK)
    harness_fail(__FILE__, __LINE__, "ncore_memcpy(%zu bytes): %s (\"%s\")", bytes,
                 ncore_status_string(st), ncore_last_error_message());
}

void tb_put(void *dst, const void *host_src, size_t bytes) {
  copy_sync(dst, host_src, bytes, NCORE_MEMCPY_HOST_TO_DEVICE);
}

void tb_get(void *host_dst, const void *src, size_t bytes) {
  copy_sync(host_dst, src, bytes, NCORE_MEMCPY_DEVICE_TO_HOST);
}

size_t td_size(ncore_dtype_t dtype) {
  static const size_t sizes[TD_DTYPE_COUNT] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return (unsigned)dtype < TD_DTYPE_COUNT ? sizes[dtype] : 0;
}

int td_is_integer(ncore_dtype_t dtype) { return dtype <= NCORE_UINT64; }

int td_mantissa_bits(ncore_dtype_t dtype) {
  switch (dtype) {
    case NCORE_FLOAT16: return 10;
    case NCORE_BFLOAT16: return 7;
    case NCORE_FLOAT8E4M3: return 3;
    case NCORE_FLOAT8E5M2: return 2;
    case NCORE_FLOAT32: return 23;
    case NCORE_FLOAT64: return 52;
    default: return 0;
  }
}

/* A small binary float format: exponent and mantissa widths, bias, and
 * whether the all-ones exponent is Inf/NaN (IEEE) or normal (e4m3fn). */
typedef struct small_float {
  int ebits, mbits, bias, ieee_top;
} small_float_t;

static const small_float_t F16 = {5, 10, 15, 1};
static const small_float_t BF16 = {8, 7, 127, 1};
static const small_float_t E4M3 = {4, 3, 7, 0};
static const small_float_t E5M2 = {5, 2, 15, 1};

static double small_decode(small_float_t f, uint32_t bits) {
  uint32_t m = bits & ((1u << f.mbits) - 1);
  uint32_t e = (bits >> f.mbits) & ((1u << f.ebits) - 1);
  int sign = (bits >> (f.ebits + f.mbits)) & 1;
  uint32_t emax = (1u << f.ebits) - 1;
  double v;
  if (e == emax && f.ieee_top) v = m ? NAN : INFINITY;
  else if (e == emax && m == (1u << f.mbits) - 1) v = NAN; /* e4m3fn NaN */
  else if (e == 0) v = ldexp((double)m, 1 - f.bias - f.mbits);
  else v = ldexp(1.0 + ldexp((double)m, -f.mbits), (int)e - f.bias);
  return sign ? -v : v;
}

static uint32_t small_encode(small_float_t f, double v) {
  uint32_t sign = signbit(v) ? 1u << (f.ebits + f.mbits) : 0;
  uint32_t emax = (1u << f.ebits) - 1;
  if (isnan(v)) return sign | (emax << f.mbits) | ((1u << f.mbits) - 1);
  double a = fabs(v);
  if (a == 0) return sign;
  int ex;
  double frac = frexp(a, &ex); /* a = frac * 2^ex, frac in [0.5, 1) */
  int e = ex - 1 + f.bias;
  if (e <= 0) {
    uint32_t m = (uint32_t)(a / ldexp(1.0, 1 - f.bias - f.mbits));
    return sign | m;
  }
  uint32_t top = f.ieee_top ? emax - 1 : emax;
  if ((uint32_t)e > top) {
    if (f.ieee_top) return sign | (emax << f.mbits); /* Inf */
    return sign | (emax << f.mbits) | ((1u << f.mbits) - 2); /* 448 */
  }
  uint32_t m = (uint32_t)ldexp(frac * 2 - 1, f.mbits);
  return sign | ((uint32_t)e << f.mbits) | m;
}

double td_decode(ncore_dtype_t dtype, const void *p) {
  switch (dtype) {
    case NCORE_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case NCORE_UINT8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case NCORE_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case NCORE_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case NCORE_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case NCORE_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case NCORE_FLOAT32: { float v; memcpy(&v, p, 4); return v; }
    case NCORE_FLOAT64: { double v; memcpy(&v, p, 8); return v; }
    case NCORE_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return small_decode(F16, v); }
    case NCORE_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return small_decode(BF16, v); }
    case NCORE_FLOAT8E4M3: return small_decode(E4M3, *(const uint8_t *)p);
    case NCORE_FLOAT8E5M2: return small_decode(E5M2, *(const uint8_t *)p);
  }
  return NAN;
}

void td_encode(ncore_dtype_t dtype, double v, void *p) {
  switch (dtype) {
    case NCORE_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); return; }
    case NCORE_UINT8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); return; }
    case NCORE_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); return; }
    case NCORE_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); return; }
    case NCORE_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); return; }
    case NCORE_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); return; }
    case NCORE_FLOAT32: { float x = (float)v; memcpy(p, &x, 4); return; }
    case NCORE_FLOAT64: memcpy(p, &v, 8); return;
    case NCORE_FLOAT16: { uint16_t x = (uint16_t)small_encode(F16, v); memcpy(p, &x, 2); return; }
    case NCORE_BFLOAT16: { uint16_t x = (uint16_t)small_encode(BF16, v); memcpy(p, &x, 2); return; }
    case NCORE_FLOAT8E4M3: *(uint8_t *)p = (uint8_t)small_encode(E4M3, v); return;
    case NCORE_FLOAT8E5M2: *(uint8_t *)p = (uint8_t)small_encode(E5M2, v); return;
  }
}
