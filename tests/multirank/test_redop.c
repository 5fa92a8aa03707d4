/* Multi-rank tests: custom PreMulSum operators (ncore_create_pre_mul_sum):
 * host-immediate and device-resident scalars, every dtype, closed operators,
 * operators of another dtype or communicator. Usage: test_redop N. */
#include <stdlib.h>

#include "coll_values.h"
#include "multirank.h"
#include "testbuf.h"

#define COUNT 19

/* Runs allreduce with op over coll_input(SUM) values and checks that the
 * result is scalar * sum. */
static void check_pre_mul_sum(ncore_comm_t comm, int rank, int n, ncore_dtype_t dt,
                              ncore_redop_t op, double scalar) {
  size_t es = td_size(dt);
  unsigned char host[COUNT * 8];
  for (size_t i = 0; i < COUNT; i++) td_encode(dt, coll_input(NCORE_SUM, rank, n, i), host + i * es);
  void *buf = tb_alloc(COUNT * es);
  CHECK(buf);
  tb_put(buf, host, COUNT * es);
  CHECK_OK(ncore_allreduce(comm, buf, buf, COUNT, dt, op, NULL));
  tb_get(host, buf, COUNT * es);
  for (size_t i = 0; i < COUNT; i++) {
    double want = scalar * coll_expected(NCORE_SUM, n, i);
    double got = td_decode(dt, host + i * es);
    if (got != want) {
      const char *name = "?";
      ncore_dtype_name(dt, &name);
      harness_fail(__FILE__, __LINE__, "premulsum %s scalar %g: element %zu is %g, expected %g",
                   name, scalar, i, got, want);
      return;
    }
  }
  tb_free(buf);
}

MR_TEST(pre_mul_sum_host_immediate_all_dtypes) {
  MR_COMM(comm);
  for (int d = 0; d < TD_DTYPE_COUNT; d++) {
    ncore_dtype_t dt = (ncore_dtype_t)d;
    /* 2 keeps float8 results exact (sums <= 8 -> <= 16); 3 elsewhere. */
    double scalar = (dt == NCORE_FLOAT8E4M3 || dt == NCORE_FLOAT8E5M2) ? 2 : 3;
    unsigned char s[8];
    td_encode(dt, scalar, s);
    ncore_custom_redop_t op;
    CHECK_OK(ncore_create_pre_mul_sum(&op, comm, s, dt, NCORE_SCALAR_HOST_IMMEDIATE));
    td_encode(dt, 100, s); /* copied at creation: later changes do not matter */
    ncore_redop_t value;
    CHECK_OK(ncore_custom_redop_value(op, &value));
    CHECK(value > NCORE_AVG);
    ncore_dtype_t got_dt;
    CHECK_OK(ncore_custom_redop_dtype(op, &got_dt));
    CHECK_EQ(got_dt, dt);
    check_pre_mul_sum(comm, rank, nranks, dt, value, scalar);
    if (harness_failed()) return;
    CHECK_OK(ncore_custom_redop_close(op));
  }
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(pre_mul_sum_device_scalar_read_at_each_collective) {
  MR_COMM(comm);
  float *scalar = tb_alloc(sizeof(float));
  CHECK(scalar);
  float two = 2.0f, five = 5.0f;
  tb_put(scalar, &two, sizeof two);
  ncore_custom_redop_t op;
  CHECK_OK(ncore_create_pre_mul_sum(&op, comm, scalar, NCORE_FLOAT32, NCORE_SCALAR_DEVICE));
  ncore_redop_t value;
  CHECK_OK(ncore_custom_redop_value(op, &value));
  check_pre_mul_sum(comm, rank, nranks, NCORE_FLOAT32, value, 2);
  if (harness_failed()) return;
  tb_put(scalar, &five, sizeof five);
  check_pre_mul_sum(comm, rank, nranks, NCORE_FLOAT32, value, 5);
  if (harness_failed()) return;
  CHECK_OK(ncore_custom_redop_close(op));
  tb_free(scalar);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Host: a device-resident scalar is any memory, at any address; it is read
 * without assuming alignment (a misaligned float load under
 * UBSan). Every dtype wider than a byte, at an odd address. */
MR_TEST(pre_mul_sum_device_scalar_at_an_odd_address) {
  REQUIRE_HOST_BACKEND("the scalar is host memory at an odd address; on NCCL "
                       "a device-resident scalar must be device memory");
  MR_COMM(comm);
  unsigned char storage[16];
  for (int d = 0; d < TD_DTYPE_COUNT; d++) {
    ncore_dtype_t dt = (ncore_dtype_t)d;
    if (td_size(dt) == 1) continue;
    td_encode(dt, 3, storage + 1);
    ncore_custom_redop_t op;
    CHECK_OK(ncore_create_pre_mul_sum(&op, comm, storage + 1, dt, NCORE_SCALAR_DEVICE));
    ncore_redop_t value;
    CHECK_OK(ncore_custom_redop_value(op, &value));
    check_pre_mul_sum(comm, rank, nranks, dt, value, 3);
    if (harness_failed()) return;
    CHECK_OK(ncore_custom_redop_close(op));
  }
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(pre_mul_sum_with_reduce_and_reduce_scatter) {
  MR_COMM(comm);
  double scalar = 0.5;
  ncore_custom_redop_t op;
  CHECK_OK(ncore_create_pre_mul_sum(&op, comm, &scalar, NCORE_FLOAT64, NCORE_SCALAR_HOST_IMMEDIATE));
  ncore_redop_t value;
  CHECK_OK(ncore_custom_redop_value(op, &value));
  double *buf = tb_alloc((size_t)nranks * sizeof(double));
  CHECK(buf);
  double *host = malloc((size_t)nranks * sizeof(double));
  for (int j = 0; j < nranks; j++) host[j] = rank + 1 + 10 * j;
  tb_put(buf, host, (size_t)nranks * sizeof(double));
  double *out = tb_alloc(sizeof(double));
  CHECK_OK(ncore_reduce_scatter(comm, buf, out, 1, NCORE_FLOAT64, value, NULL));
  double got;
  tb_get(&got, out, sizeof got);
  /* 0.5 * sum_r (r + 1 + 10 * rank) */
  double want = 0.5 * ((double)nranks * (nranks + 1) / 2 + 10.0 * rank * nranks);
  if (got != want) {
    harness_fail(__FILE__, __LINE__, "reduce_scatter premulsum: %g, expected %g", got, want);
    return;
  }
  CHECK_OK(ncore_reduce(comm, buf, out, 1, NCORE_FLOAT64, value, 0, NULL));
  if (rank == 0) {
    tb_get(&got, out, sizeof got);
    CHECK(got == 0.5 * nranks * (nranks + 1) / 2);
  }
  free(host);
  tb_free(buf);
  tb_free(out);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(custom_op_errors) {
  MR_COMM(comm);
  float s = 1.0f;
  ncore_custom_redop_t op;
  CHECK_STATUS(ncore_create_pre_mul_sum(NULL, comm, &s, NCORE_FLOAT32, NCORE_SCALAR_HOST_IMMEDIATE),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_create_pre_mul_sum: out");
  CHECK_STATUS(ncore_create_pre_mul_sum(&op, comm, NULL, NCORE_FLOAT32, NCORE_SCALAR_HOST_IMMEDIATE),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("scalar");
  CHECK_STATUS(ncore_create_pre_mul_sum(&op, comm, &s, (ncore_dtype_t)12, NCORE_SCALAR_HOST_IMMEDIATE),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("dtype");
  CHECK_STATUS(ncore_create_pre_mul_sum(&op, comm, &s, NCORE_FLOAT32, (ncore_scalar_residence_t)7),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("residence");

  /* An operator made for float32 used with float64. */
  CHECK_OK(ncore_create_pre_mul_sum(&op, comm, &s, NCORE_FLOAT32, NCORE_SCALAR_HOST_IMMEDIATE));
  ncore_redop_t value;
  CHECK_OK(ncore_custom_redop_value(op, &value));
  double *buf = tb_alloc(64);
  CHECK(buf);
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 2, NCORE_FLOAT64, value, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("op");

  /* A closed operator's value answers CLOSED, never another operator. */
  CHECK_OK(ncore_custom_redop_close(op));
  CHECK_EQ(ncore_custom_redop_is_valid(op), 0);
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 2, NCORE_FLOAT32, value, NULL), NCORE_ERR_CLOSED);
  CHECK_MESSAGE_CONTAINS("op");
  ncore_custom_redop_t other;
  CHECK_OK(ncore_create_pre_mul_sum(&other, comm, &s, NCORE_FLOAT32, NCORE_SCALAR_HOST_IMMEDIATE));
  ncore_redop_t other_value;
  CHECK_OK(ncore_custom_redop_value(other, &other_value));
  CHECK(other_value != value);
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 2, NCORE_FLOAT32, value, NULL), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_custom_redop_value(op, &value), NCORE_ERR_CLOSED);
  ncore_dtype_t dt;
  CHECK_STATUS(ncore_custom_redop_dtype(op, &dt), NCORE_ERR_CLOSED);
  CHECK_OK(ncore_custom_redop_close(op));
  CHECK_STATUS(ncore_custom_redop_value(other, NULL), NCORE_ERR_INVALID_ARGUMENT);

  /* An operator of another communicator. */
  ncore_comm_t twin = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_split(comm, 0, rank, &twin, NULL));
  ncore_custom_redop_t foreign;
  CHECK_OK(ncore_create_pre_mul_sum(&foreign, twin, &s, NCORE_FLOAT32, NCORE_SCALAR_HOST_IMMEDIATE));
  ncore_redop_t foreign_value;
  CHECK_OK(ncore_custom_redop_value(foreign, &foreign_value));
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 2, NCORE_FLOAT32, foreign_value, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("op");
  /* Custom ops are only for reductions that take an op; broadcast has none,
   * so nothing to check there. Destroying the twin closes its operator. */
  CHECK_OK(ncore_comm_destroy(twin));
  CHECK_EQ(ncore_custom_redop_is_valid(foreign), 0);
  CHECK_STATUS(ncore_custom_redop_value(foreign, &foreign_value), NCORE_ERR_CLOSED);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_create_pre_mul_sum(&op, comm, &s, NCORE_FLOAT32, NCORE_SCALAR_HOST_IMMEDIATE),
               NCORE_ERR_CLOSED);
  CHECK_EQ(ncore_custom_redop_is_valid(other), 0);
}

HARNESS_MAIN
