/* Unit tests: dtype sizes and names, DLPack / typestr dtype mapping, and the
 * rounding of float16 / bfloat16 / float8 arithmetic, checked through a
 * two-rank allreduce driven from one thread (ncore_comm_init_all + group). */
#include <dlpack/dlpack.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testbuf.h"

TEST(dtype_sizes) {
  static const size_t expected[12] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  for (int d = 0; d < 12; d++) {
    size_t size = 0;
    CHECK_OK(ncore_dtype_size((ncore_dtype_t)d, &size));
    CHECK_EQ(size, expected[d]);
  }
  size_t size;
  CHECK_STATUS(ncore_dtype_size((ncore_dtype_t)12, &size), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("dtype");
  CHECK_STATUS(ncore_dtype_size((ncore_dtype_t)-1, &size), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(dtype_names) {
  static const char *expected[12] = {"int8", "uint8", "int32", "uint32",
                                     "int64", "uint64", "float16", "float32",
                                     "float64", "bfloat16", "float8_e4m3",
                                     "float8_e5m2"};
  for (int d = 0; d < 12; d++) {
    const char *name = NULL;
    CHECK_OK(ncore_dtype_name((ncore_dtype_t)d, &name));
    CHECK_STR_EQ(name, expected[d]);
  }
  const char *name;
  CHECK_STATUS(ncore_dtype_name((ncore_dtype_t)42, &name), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("42");
  CHECK_STATUS(ncore_dtype_name(NCORE_INT8, NULL), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(dtype_from_dlpack_maps_supported_types) {
  struct { uint8_t code, bits; ncore_dtype_t want; } cases[] = {
      {kDLInt, 8, NCORE_INT8},       {kDLUInt, 8, NCORE_UINT8},
      {kDLInt, 32, NCORE_INT32},     {kDLUInt, 32, NCORE_UINT32},
      {kDLInt, 64, NCORE_INT64},     {kDLUInt, 64, NCORE_UINT64},
      {kDLFloat, 16, NCORE_FLOAT16}, {kDLFloat, 32, NCORE_FLOAT32},
      {kDLFloat, 64, NCORE_FLOAT64}, {kDLBfloat, 16, NCORE_BFLOAT16},
      {10, 8, NCORE_FLOAT8E4M3} /* kDLFloat8_e4m3fn (DLPack 1.0) */,
      {12, 8, NCORE_FLOAT8E5M2} /* kDLFloat8_e5m2 */};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ncore_dtype_t got = (ncore_dtype_t)-1;
    CHECK_OK(ncore_dtype_from_dlpack(cases[i].code, cases[i].bits, 1, &got));
    CHECK_EQ(got, cases[i].want);
  }
}

TEST(dtype_from_dlpack_rejects_with_message) {
  ncore_dtype_t got;
  CHECK_STATUS(ncore_dtype_from_dlpack(6 /* kDLBool */, 8, 1, &got), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("bool");
  CHECK_STATUS(ncore_dtype_from_dlpack(kDLComplex, 64, 1, &got), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("complex");
  CHECK_STATUS(ncore_dtype_from_dlpack(kDLFloat, 32, 4, &got), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("lanes");
  CHECK_STATUS(ncore_dtype_from_dlpack(kDLInt, 16, 1, &got), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("16");
  CHECK_STATUS(ncore_dtype_from_dlpack(kDLFloat, 32, 1, NULL), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(dtype_from_typestr) {
  struct { const char *s; ncore_dtype_t want; } ok[] = {
      {"|i1", NCORE_INT8},    {"|u1", NCORE_UINT8},   {"<i4", NCORE_INT32},
      {"<u4", NCORE_UINT32},  {"<i8", NCORE_INT64},   {"<u8", NCORE_UINT64},
      {"<f2", NCORE_FLOAT16}, {"<f4", NCORE_FLOAT32}, {"<f8", NCORE_FLOAT64}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    ncore_dtype_t got = (ncore_dtype_t)-1;
    CHECK_OK(ncore_dtype_from_typestr(ok[i].s, &got));
    CHECK_EQ(got, ok[i].want);
  }
  const char *bad[] = {"<V2", "|b1", "<c8", "<i2", "f4", "", "<f4x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ncore_dtype_t got;
    CHECK_STATUS(ncore_dtype_from_typestr(bad[i], &got), NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("typestr");
  }
  ncore_dtype_t got;
  CHECK_STATUS(ncore_dtype_from_typestr(NULL, &got), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(test_codec_is_self_consistent) {
  /* The tests' own codec (testbuf.c) must agree with known bit patterns. */
  uint16_t h;
  td_encode(NCORE_FLOAT16, 1.0, &h);
  CHECK_EQ(h, 0x3c00);
  td_encode(NCORE_BFLOAT16, -2.0, &h);
  CHECK_EQ(h, 0xc000);
  uint8_t b = 0x7e;
  CHECK(td_decode(NCORE_FLOAT8E4M3, &b) == 448.0);
  b = 0x7b;
  CHECK(td_decode(NCORE_FLOAT8E5M2, &b) == 57344.0);
  td_encode(NCORE_FLOAT8E4M3, 18.0, &b);
  CHECK(td_decode(NCORE_FLOAT8E4M3, &b) == 18.0);
}

/* ---- arithmetic through a two-rank allreduce in one thread ---- */

/* Allreduces a[i] (rank 0) with b[i] (rank 1), n elements of dtype, into
 * out (rank 0's result; rank 1's must be equal). Skips when two ranks cannot
 * be made in this process. */
static void pair_allreduce(ncore_dtype_t dtype, ncore_redop_t op,
                           const double *a, const double *b, int n,
                           double *out) {
  if (!harness_is_host()) {
    int count = 0;
    ncore_device_count(NCORE_BACKEND_NCCL, &count);
    if (count < 2) SKIP("needs two devices for ncore_comm_init_all");
  }
  ncore_comm_t comms[2];
  CHECK_OK(ncore_comm_init_all(comms, 2, NULL, NULL));
  size_t es = td_size(dtype), bytes = es * (size_t)n;
  unsigned char host[2][64];
  for (int i = 0; i < n; i++) {
    td_encode(dtype, a[i], host[0] + es * i);
    td_encode(dtype, b[i], host[1] + es * i);
  }
  /* Each rank's buffer on its own GPU (init_all: rank r on device r), and
   * each rank's stream waited for before its result is read. */
  void *buf[2];
  for (int r = 0; r < 2; r++) {
    if (!harness_is_host()) CHECK_OK(ncore_device_set(NCORE_BACKEND_NCCL, r));
    buf[r] = tb_alloc(bytes);
    CHECK(buf[r]);
    tb_put(buf[r], host[r], bytes);
  }
  CHECK_OK(ncore_group_start());
  for (int r = 0; r < 2; r++)
    CHECK_OK(ncore_allreduce(comms[r], buf[r], buf[r], (size_t)n, dtype, op, NULL));
  CHECK_OK(ncore_group_end());
  for (int r = 0; r < 2; r++) {
    CHECK_OK(ncore_comm_synchronize(comms[r], NULL));
    if (!harness_is_host()) CHECK_OK(ncore_device_set(NCORE_BACKEND_NCCL, r));
    tb_get(host[r], buf[r], bytes);
  }
  CHECK(memcmp(host[0], host[1], bytes) == 0);
  for (int i = 0; i < n; i++) out[i] = td_decode(dtype, host[0] + es * i);
  for (int r = 0; r < 2; r++) {
    if (!harness_is_host()) CHECK_OK(ncore_device_set(NCORE_BACKEND_NCCL, r));
    tb_free(buf[r]);
    CHECK_OK(ncore_comm_destroy(comms[r]));
  }
}

/* Checks each result against the expected value, naming the element. */
#define CHECK_VALUES(got, want, n)                                           \
  do {                                                                       \
    for (int k_ = 0; k_ < (n); k_++)                                         \
      if ((got)[k_] != (want)[k_]) {                                         \
        harness_fail(__FILE__, __LINE__, "element %d: got %g, expected %g",  \
                     k_, (got)[k_], (want)[k_]);                             \
        return;                                                              \
      }                                                                      \
  } while (0)

TEST(float16_sum_rounds_to_nearest_even) {
  /* 2048 + 1 = 2049 lies halfway between 2048 and 2050: even is 2048.
   * 2050 + 1 = 2051 lies halfway between 2050 and 2052: even is 2052.
   * 0.5 + 0.25 is exact. 65504 + 65504 overflows to inf. */
  double a[] = {2048, 2050, 0.5, 65504}, b[] = {1, 1, 0.25, 65504};
  double want[] = {2048, 2052, 0.75, INFINITY}, got[4];
  pair_allreduce(NCORE_FLOAT16, NCORE_SUM, a, b, 4, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, want, 4);
}

TEST(bfloat16_sum_rounds_to_nearest_even) {
  double a[] = {256, 258, 1.5}, b[] = {1, 1, 0.25};
  double want[] = {256, 260, 1.75}, got[3];
  pair_allreduce(NCORE_BFLOAT16, NCORE_SUM, a, b, 3, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, want, 3);
}

TEST(float8_e4m3_sum_rounds_and_saturates) {
  /* 16 + 1 -> 16, 18 + 1 -> 20 (ties to even), 448 + 448 saturates to 448
   * (e4m3fn has no infinity), -448 + -448 -> -448. */
  double a[] = {16, 18, 448, -448, 0.5}, b[] = {1, 1, 448, -448, 0.25};
  double want[] = {16, 20, 448, -448, 0.75}, got[5];
  pair_allreduce(NCORE_FLOAT8E4M3, NCORE_SUM, a, b, 5, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, want, 5);
}

TEST(float8_e5m2_sum_rounds_to_nearest_even) {
  double a[] = {8, 10, 0.5}, b[] = {1, 1, 0.25};
  double want[] = {8, 12, 0.75}, got[3];
  pair_allreduce(NCORE_FLOAT8E5M2, NCORE_SUM, a, b, 3, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, want, 3);
}

TEST(float16_prod_min_max_avg) {
  double a[] = {3, -2, 0.5}, b[] = {0.5, 4, 7};
  double got[3];
  double prod[] = {1.5, -8, 3.5};
  pair_allreduce(NCORE_FLOAT16, NCORE_PROD, a, b, 3, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, prod, 3);
  double mn[] = {0.5, -2, 0.5};
  pair_allreduce(NCORE_FLOAT16, NCORE_MIN, a, b, 3, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, mn, 3);
  double mx[] = {3, 4, 7};
  pair_allreduce(NCORE_FLOAT16, NCORE_MAX, a, b, 3, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, mx, 3);
  double avg[] = {1.75, 1, 3.75};
  pair_allreduce(NCORE_FLOAT16, NCORE_AVG, a, b, 3, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, avg, 3);
}

TEST(integer_avg_truncates_and_wraps) {
  double a[] = {3, 7, -3}, b[] = {4, 8, -4};
  double got[3];
  double avg[] = {3, 7, -3}; /* 7/2, 15/2, -7/2 in integer division */
  pair_allreduce(NCORE_INT32, NCORE_AVG, a, b, 3, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, avg, 3);
  double ua[] = {200, 255, 1}, ub[] = {100, 1, 2};
  double wrap[] = {44, 0, 3}; /* uint8 sums wrap modulo 256 */
  pair_allreduce(NCORE_UINT8, NCORE_SUM, ua, ub, 3, got);
  if (harness_stopped()) return;
  CHECK_VALUES(got, wrap, 3);
}

/* Buffers at addresses not aligned for their element type (a byte offset
 * into a larger buffer) reduce and pre-multiply exactly like aligned ones
 * (the fuzzer found misaligned loads, undefined behaviour in C). Host
 * backend: the reductions run in this process on the user's memory. */
TEST(reductions_on_misaligned_buffers) {
  REQUIRE_HOST_BACKEND("the reduction runs on the caller's host memory");
  ncore_unique_id_t id;
  CHECK_OK(ncore_get_unique_id(&id, NCORE_BACKEND_HOST));
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_init_rank(&comm, 1, &id, 0, NULL));
  enum { N = 3000 }; /* more than one staging block of int32 */
  unsigned char *raw = malloc(2 * N * sizeof(int32_t) + 8);
  CHECK(raw);
  int32_t *send = (int32_t *)(void *)(raw + 1);   /* odd addresses */
  int32_t *recv = (int32_t *)(void *)(raw + 3 + N * sizeof(int32_t));
  for (int i = 0; i < N; i++) {
    int32_t v = i - 7;
    memcpy((unsigned char *)send + i * sizeof v, &v, sizeof v);
  }
  CHECK_OK(ncore_allreduce(comm, send, recv, N, NCORE_INT32, NCORE_SUM, NULL));
  for (int i = 0; i < N; i++) {
    int32_t got;
    memcpy(&got, (unsigned char *)recv + i * sizeof got, sizeof got);
    if (got != i - 7) {
      harness_fail(__FILE__, __LINE__, "sum element %d: %d", i, (int)got);
      break;
    }
  }
  int32_t scalar = 3;
  ncore_custom_redop_t op = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_create_pre_mul_sum(&op, comm, &scalar, NCORE_INT32,
                                    NCORE_SCALAR_HOST_IMMEDIATE));
  ncore_redop_t value = 0;
  CHECK_OK(ncore_custom_redop_value(op, &value));
  CHECK_OK(ncore_allreduce(comm, send, recv, N, NCORE_INT32, value, NULL));
  for (int i = 0; i < N; i++) {
    int32_t got;
    memcpy(&got, (unsigned char *)recv + i * sizeof got, sizeof got);
    if (got != 3 * (i - 7)) {
      harness_fail(__FILE__, __LINE__, "pre-mul-sum element %d: %d", i,
                   (int)got);
      break;
    }
  }
  CHECK_OK(ncore_comm_destroy(comm));
  free(raw);
}

HARNESS_MAIN
