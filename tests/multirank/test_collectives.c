/* Multi-rank tests: the eight collectives over all twelve dtypes and the
 * five built-in operators, in and out of place, with every rooted variant
 * checked at two roots; exact expected values. Usage: test_collectives N. */
#include <math.h>
#include <stdlib.h>

#include "coll_values.h"
#include "multirank.h"
#include "testbuf.h"

#define COUNT 37 /* odd, so no implementation can assume even sizes */

static const ncore_redop_t OPS[5] = {NCORE_SUM, NCORE_PROD, NCORE_MAX, NCORE_MIN, NCORE_AVG};

/* Uploads count doubles encoded as dtype into fresh communication memory
 * (or into dst when not NULL). Returns the buffer. */
static void *upload(ncore_dtype_t dtype, const double *vals, size_t count, void *dst) {
  size_t es = td_size(dtype);
  unsigned char *host = malloc(count * es + 1);
  for (size_t i = 0; i < count; i++) td_encode(dtype, vals[i], host + i * es);
  void *buf = dst ? dst : tb_alloc(count * es);
  if (buf) tb_put(buf, host, count * es);
  free(host);
  return buf;
}

/* How far a result of op in dtype may be from the exact value: 0, except
 * for AVG of a floating dtype, which NCCL computes by scaling each input by
 * 1/nranks before summing (ncclAvg: a PreMulSum), so a non-power-of-two
 * rank count rounds within two units of the dtype's last place. */
static double tolerance(ncore_redop_t op, ncore_dtype_t dtype, double want) {
  if (op != NCORE_AVG || td_is_integer(dtype)) return 0;
  return fabs(want) * ldexp(1.0, 1 - td_mantissa_bits(dtype));
}

/* Downloads count elements of dtype and compares them with want (within
 * tolerance(op, ...); op is -1 for data movement); records a failure naming
 * what, the dtype and the element. Returns 1 if they match. */
static int verify_op(const char *what, ncore_dtype_t dtype, int op,
                     const void *buf, const double *want, size_t count) {
  size_t es = td_size(dtype);
  unsigned char *host = malloc(count * es + 1);
  tb_get(host, buf, count * es);
  int ok = 1;
  for (size_t i = 0; i < count && ok; i++) {
    double got = td_decode(dtype, host + i * es);
    if (fabs(got - want[i]) > tolerance((ncore_redop_t)op, dtype, want[i]) ||
        got != got) {
      const char *name = "?";
      ncore_dtype_name(dtype, &name);
      harness_fail(__FILE__, __LINE__, "%s %s: element %zu is %g, expected %g",
                   what, name, i, got, want[i]);
      ok = 0;
    }
  }
  free(host);
  return ok;
}

/* verify_op for data movement: exact. */
static int verify(const char *what, ncore_dtype_t dtype, const void *buf,
                  const double *want, size_t count) {
  return verify_op(what, dtype, -1, buf, want, count);
}

/* Reports a failed call with its description and returns 0. */
static int call_ok(ncore_status_t st, const char *what, ncore_dtype_t dtype) {
  st = harness_settle(st); /* a non-blocking communicator's NCORE_IN_PROGRESS */
  if (st == NCORE_OK) return 1;
  const char *name = "?";
  ncore_dtype_name(dtype, &name);
  harness_fail(__FILE__, __LINE__, "%s %s: %s (\"%s\")", what, name,
               ncore_status_string(st), ncore_last_error_message());
  return 0;
}

static int allreduce_case(ncore_comm_t comm, int rank, int n, ncore_dtype_t dt,
                          ncore_redop_t op, int in_place) {
  double in[COUNT], want[COUNT];
  for (size_t i = 0; i < COUNT; i++) {
    in[i] = coll_input(op, rank, n, i);
    want[i] = coll_expected(op, n, i);
  }
  void *send = upload(dt, in, COUNT, NULL);
  void *recv = in_place ? send : tb_alloc(COUNT * td_size(dt));
  char what[64];
  snprintf(what, sizeof what, "allreduce %s%s", coll_op_name(op), in_place ? " in place" : "");
  int ok = send && recv &&
           call_ok(ncore_allreduce(comm, send, recv, COUNT, dt, op, NULL), what, dt) &&
           verify_op(what, dt, op, recv, want, COUNT);
  if (!in_place) tb_free(recv);
  tb_free(send);
  return ok;
}

static int reduce_case(ncore_comm_t comm, int rank, int n, ncore_dtype_t dt,
                       ncore_redop_t op, int root, int in_place) {
  double in[COUNT], want[COUNT];
  for (size_t i = 0; i < COUNT; i++) {
    in[i] = coll_input(op, rank, n, i);
    want[i] = coll_expected(op, n, i);
  }
  void *send = upload(dt, in, COUNT, NULL);
  /* Non-root ranks pass a NULL recvbuf (allowed) unless in place. */
  void *recv = in_place ? send : rank == root ? tb_alloc(COUNT * td_size(dt)) : NULL;
  char what[64];
  snprintf(what, sizeof what, "reduce %s root %d%s", coll_op_name(op), root,
           in_place ? " in place" : "");
  int ok = send && call_ok(ncore_reduce(comm, send, recv, COUNT, dt, op, root, NULL), what, dt) &&
           (rank != root || verify_op(what, dt, op, recv, want, COUNT));
  if (!in_place) tb_free(recv);
  tb_free(send);
  return ok;
}

static int reduce_scatter_case(ncore_comm_t comm, int rank, int n, ncore_dtype_t dt,
                               ncore_redop_t op, int in_place) {
  size_t total = (size_t)n * COUNT, es = td_size(dt);
  double *in = malloc(total * sizeof(double)), want[COUNT];
  for (size_t j = 0; j < total; j++) in[j] = coll_input(op, rank, n, j);
  for (size_t i = 0; i < COUNT; i++) want[i] = coll_expected(op, n, (size_t)rank * COUNT + i);
  unsigned char *send = upload(dt, in, total, NULL);
  void *recv = in_place ? send + (size_t)rank * COUNT * es : tb_alloc(COUNT * es);
  char what[64];
  snprintf(what, sizeof what, "reduce_scatter %s%s", coll_op_name(op), in_place ? " in place" : "");
  int ok = send && recv &&
           call_ok(ncore_reduce_scatter(comm, send, recv, COUNT, dt, op, NULL), what, dt) &&
           verify_op(what, dt, op, recv, want, COUNT);
  if (!in_place) tb_free(recv);
  tb_free(send);
  free(in);
  return ok;
}

MR_TEST(allreduce_all_dtypes_all_ops) {
  MR_COMM(comm);
  for (int d = 0; d < TD_DTYPE_COUNT; d++)
    for (int o = 0; o < 5; o++)
      for (int in_place = 0; in_place < 2; in_place++)
        if (!allreduce_case(comm, rank, nranks, (ncore_dtype_t)d, OPS[o], in_place)) return;
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(reduce_all_dtypes_all_ops_two_roots) {
  MR_COMM(comm);
  int roots[2] = {0, nranks - 1};
  for (int d = 0; d < TD_DTYPE_COUNT; d++)
    for (int o = 0; o < 5; o++)
      for (int k = 0; k < 2; k++)
        for (int in_place = 0; in_place < 2; in_place++)
          if (!reduce_case(comm, rank, nranks, (ncore_dtype_t)d, OPS[o], roots[k], in_place))
            return;
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(reduce_scatter_all_dtypes_all_ops) {
  MR_COMM(comm);
  for (int d = 0; d < TD_DTYPE_COUNT; d++)
    for (int o = 0; o < 5; o++)
      for (int in_place = 0; in_place < 2; in_place++)
        if (!reduce_scatter_case(comm, rank, nranks, (ncore_dtype_t)d, OPS[o], in_place)) return;
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(broadcast_all_dtypes_two_roots) {
  MR_COMM(comm);
  double vals[COUNT], want[COUNT];
  for (int d = 0; d < TD_DTYPE_COUNT; d++) {
    ncore_dtype_t dt = (ncore_dtype_t)d;
    for (int root = 0; root < nranks; root += nranks - 1) {
      for (int in_place = 0; in_place < 2; in_place++) {
        for (size_t i = 0; i < COUNT; i++) {
          vals[i] = coll_plain(rank, 1, i); /* differs per rank: only root's counts */
          want[i] = coll_plain(root, 1, i);
        }
        void *send = upload(dt, vals, COUNT, NULL);
        void *recv = in_place ? send : tb_alloc(COUNT * td_size(dt));
        char what[64];
        snprintf(what, sizeof what, "broadcast root %d%s", root, in_place ? " in place" : "");
        if (!call_ok(ncore_broadcast(comm, send, recv, COUNT, dt, root, NULL), what, dt)) return;
        if (!verify(what, dt, recv, want, COUNT)) return;
        if (!in_place) tb_free(recv);
        tb_free(send);
      }
      if (nranks == 1) break;
    }
  }
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(allgather_all_dtypes) {
  MR_COMM(comm);
  size_t total = (size_t)nranks * COUNT;
  double *want = malloc(total * sizeof(double)), mine[COUNT];
  for (int r = 0; r < nranks; r++)
    for (size_t i = 0; i < COUNT; i++) want[(size_t)r * COUNT + i] = coll_plain(r, 0, i);
  for (size_t i = 0; i < COUNT; i++) mine[i] = coll_plain(rank, 0, i);
  for (int d = 0; d < TD_DTYPE_COUNT; d++) {
    ncore_dtype_t dt = (ncore_dtype_t)d;
    size_t es = td_size(dt);
    for (int in_place = 0; in_place < 2; in_place++) {
      unsigned char *recv = tb_alloc(total * es);
      CHECK(recv);
      void *send = in_place ? upload(dt, mine, COUNT, recv + (size_t)rank * COUNT * es)
                            : upload(dt, mine, COUNT, NULL);
      const char *what = in_place ? "allgather in place" : "allgather";
      if (!call_ok(ncore_allgather(comm, send, recv, COUNT, dt, NULL), what, dt)) return;
      if (!verify(what, dt, recv, want, total)) return;
      if (!in_place) tb_free(send);
      tb_free(recv);
    }
  }
  free(want);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(alltoall_all_dtypes) {
  MR_COMM(comm);
  size_t total = (size_t)nranks * COUNT;
  double *in = malloc(total * sizeof(double)), *want = malloc(total * sizeof(double));
  for (int j = 0; j < nranks; j++)
    for (size_t i = 0; i < COUNT; i++) {
      in[(size_t)j * COUNT + i] = coll_plain(rank, j, i);   /* block j goes to rank j */
      want[(size_t)j * COUNT + i] = coll_plain(j, rank, i); /* from sender j */
    }
  for (int d = 0; d < TD_DTYPE_COUNT; d++) {
    ncore_dtype_t dt = (ncore_dtype_t)d;
    void *send = upload(dt, in, total, NULL);
    void *recv = tb_alloc(total * td_size(dt));
    CHECK(send && recv);
    if (!call_ok(ncore_alltoall(comm, send, recv, COUNT, dt, NULL), "alltoall", dt)) return;
    if (!verify("alltoall", dt, recv, want, total)) return;
    tb_free(send);
    tb_free(recv);
  }
  free(in);
  free(want);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(gather_all_dtypes_two_roots) {
  MR_COMM(comm);
  size_t total = (size_t)nranks * COUNT;
  double *want = malloc(total * sizeof(double)), mine[COUNT];
  for (int r = 0; r < nranks; r++)
    for (size_t i = 0; i < COUNT; i++) want[(size_t)r * COUNT + i] = coll_plain(r, 2, i);
  for (size_t i = 0; i < COUNT; i++) mine[i] = coll_plain(rank, 2, i);
  for (int d = 0; d < TD_DTYPE_COUNT; d++) {
    ncore_dtype_t dt = (ncore_dtype_t)d;
    size_t es = td_size(dt);
    for (int root = 0; root < nranks; root += nranks - 1) {
      for (int in_place = 0; in_place < 2; in_place++) {
        unsigned char *recv = rank == root ? tb_alloc(total * es) : NULL;
        void *send;
        if (in_place && rank == root) send = upload(dt, mine, COUNT, recv + (size_t)root * COUNT * es);
        else send = upload(dt, mine, COUNT, NULL);
        char what[64];
        snprintf(what, sizeof what, "gather root %d%s", root, in_place ? " in place" : "");
        if (!call_ok(ncore_gather(comm, send, recv, COUNT, dt, root, NULL), what, dt)) return;
        if (rank == root && !verify(what, dt, recv, want, total)) return;
        if (send != (void *)(recv + (size_t)root * COUNT * es) || rank != root) tb_free(send);
        tb_free(recv);
      }
      if (nranks == 1) break;
    }
  }
  free(want);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(scatter_all_dtypes_two_roots) {
  MR_COMM(comm);
  size_t total = (size_t)nranks * COUNT;
  double *in = malloc(total * sizeof(double)), want[COUNT];
  for (int d = 0; d < TD_DTYPE_COUNT; d++) {
    ncore_dtype_t dt = (ncore_dtype_t)d;
    size_t es = td_size(dt);
    for (int root = 0; root < nranks; root += nranks - 1) {
      for (int r = 0; r < nranks; r++)
        for (size_t i = 0; i < COUNT; i++) in[(size_t)r * COUNT + i] = coll_plain(root, r + 3, i);
      for (size_t i = 0; i < COUNT; i++) want[i] = coll_plain(root, rank + 3, i);
      for (int in_place = 0; in_place < 2; in_place++) {
        unsigned char *send = rank == root ? upload(dt, in, total, NULL) : NULL;
        void *recv = in_place && rank == root ? (void *)(send + (size_t)root * COUNT * es)
                                              : tb_alloc(COUNT * es);
        char what[64];
        snprintf(what, sizeof what, "scatter root %d%s", root, in_place ? " in place" : "");
        if (!call_ok(ncore_scatter(comm, send, recv, COUNT, dt, root, NULL), what, dt)) return;
        if (!verify(what, dt, recv, want, COUNT)) return;
        if (!(in_place && rank == root)) tb_free(recv);
        tb_free(send);
      }
      if (nranks == 1) break;
    }
  }
  free(in);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(large_allreduce_float32) {
  /* 3 MiB of float32 per rank: exercises chunked paths. */
  MR_COMM(comm);
  size_t n = (3u << 20) / 4 + 5;
  float *host = malloc(n * 4);
  for (size_t i = 0; i < n; i++) host[i] = (float)((rank + 1) * (int)(i % 1000));
  float *buf = tb_alloc(n * 4);
  CHECK(buf);
  tb_put(buf, host, n * 4);
  CHECK_OK(ncore_allreduce(comm, buf, buf, n, NCORE_FLOAT32, NCORE_SUM, NULL));
  tb_get(host, buf, n * 4);
  float factor = (float)nranks * (nranks + 1) / 2;
  for (size_t i = 0; i < n; i++)
    if (host[i] != factor * (float)(i % 1000)) {
      harness_fail(__FILE__, __LINE__, "element %zu is %g, expected %g", i, host[i],
                   factor * (float)(i % 1000));
      return;
    }
  free(host);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(collective_argument_errors) {
  MR_COMM(comm);
  int32_t *buf = tb_alloc((size_t)nranks * 64);
  CHECK(buf);
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 4, (ncore_dtype_t)12, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_allreduce: dtype");
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 4, NCORE_INT32, (ncore_redop_t)5, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("op");
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 4, NCORE_INT32, (ncore_redop_t)-1, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_allreduce(comm, NULL, buf, 4, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("sendbuf");
  CHECK_STATUS(ncore_allreduce(comm, buf, NULL, 4, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("recvbuf");
  CHECK_STATUS(ncore_broadcast(comm, buf, buf, 4, NCORE_INT32, nranks, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("root");
  CHECK_STATUS(ncore_reduce(comm, buf, buf, 4, NCORE_INT32, NCORE_SUM, -1, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("root");
  CHECK_STATUS(ncore_gather(comm, buf, buf, 4, NCORE_INT32, nranks + 1, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_scatter(comm, buf, buf, 4, NCORE_INT32, -2, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_allgather(comm, NULL, buf, 4, NCORE_INT32, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_reduce_scatter(comm, buf, NULL, 4, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_alltoall(comm, buf, buf, 4, (ncore_dtype_t)99, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  if (harness_is_host()) {
    CHECK_STATUS(ncore_allreduce(comm, buf, buf, 4, NCORE_INT32, NCORE_SUM,
                                 (ncore_stream_t)(uintptr_t)0x4242),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("stream");
  }
  /* Zero counts with NULL buffers are fine and collective. */
  CHECK_OK(ncore_allreduce(comm, NULL, NULL, 0, NCORE_INT32, NCORE_SUM, NULL));
  CHECK_OK(ncore_allgather(comm, NULL, NULL, 0, NCORE_FLOAT32, NULL));
  mr_barrier(comm);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
  int32_t x;
  CHECK_STATUS(ncore_allreduce(comm, &x, &x, 1, NCORE_INT32, NCORE_SUM, NULL), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_broadcast(comm, &x, &x, 1, NCORE_INT32, 0, NULL), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_alltoall(comm, &x, &x, 1, NCORE_INT32, NULL), NCORE_ERR_CLOSED);
}

MR_TEST_EX(ranks_disagreeing_on_count_is_invalid_usage, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("NCCL does not check that ranks call the same "
                       "collective with the same count (a mismatch is "
                       "undefined behaviour there)");
  MR_COMM(comm);
  int32_t *buf = tb_alloc(64);
  CHECK(buf);
  size_t count = rank == 0 ? 4 : 5;
  double t0 = mr_now_ms();
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, count, NCORE_INT32, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("count");
  CHECK(mr_now_ms() - t0 < MR_TIMEOUT_MS);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST_EX(ranks_disagreeing_on_collective_is_invalid_usage, MR_OWN_PROCESSES, 2) {
  REQUIRE_HOST_BACKEND("NCCL does not check that ranks call the same "
                       "collective with the same count (a mismatch is "
                       "undefined behaviour there)");
  MR_COMM(comm);
  int32_t *buf = tb_alloc(64);
  CHECK(buf);
  if (rank == 0)
    CHECK_STATUS(ncore_broadcast(comm, buf, buf, 4, NCORE_INT32, 0, NULL), NCORE_ERR_INVALID_USAGE);
  else
    CHECK_STATUS(ncore_allreduce(comm, buf, buf, 4, NCORE_INT32, NCORE_SUM, NULL),
                 NCORE_ERR_INVALID_USAGE);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* MAX and MIN of floating-point types drop a NaN against a number, on
 * whichever rank it is, and give NaN only where every rank's element is NaN:
 * what NCCL's kernels compute (fmaxf / fminf, __hmax / __hmin: IEEE 754
 * maxNum / minNum; ncore/types.h). Element j is NaN on rank j % (n + 1),
 * or on every rank when that is n; the other ranks hold rank + 1. 64
 * elements, so vectorised loops and the F16C path see them too. e340640
 * kept a NaN only from rank 0. On a GPU this is the check that
 * the host backend agrees with NCCL. */
static int nan_case(ncore_comm_t comm, int rank, int n, ncore_dtype_t dt,
                    ncore_redop_t op, int reduce_to_root) {
  enum { ELEMENTS = 64 };
  double in[ELEMENTS], want[ELEMENTS];
  for (int j = 0; j < ELEMENTS; j++) {
    int nan_rank = j % (n + 1);
    in[j] = nan_rank == n || nan_rank == rank ? NAN : rank + 1;
    if (nan_rank == n) want[j] = NAN;
    else if (op == NCORE_MAX) want[j] = nan_rank == n - 1 ? n - 1 : n;
    else want[j] = nan_rank == 0 ? 2 : 1;
  }
  void *send = upload(dt, in, ELEMENTS, NULL);
  void *recv = tb_alloc(ELEMENTS * td_size(dt));
  char what[64];
  snprintf(what, sizeof what, "%s %s with NaNs", reduce_to_root ? "reduce" : "allreduce",
           coll_op_name(op));
  int ok = send && recv &&
           call_ok(reduce_to_root
                       ? ncore_reduce(comm, send, recv, ELEMENTS, dt, op, 0, NULL)
                       : ncore_allreduce(comm, send, recv, ELEMENTS, dt, op, NULL),
                   what, dt);
  if (ok && (!reduce_to_root || rank == 0)) {
    unsigned char host[ELEMENTS * 8];
    tb_get(host, recv, ELEMENTS * td_size(dt));
    for (int j = 0; j < ELEMENTS && ok; j++) {
      double got = td_decode(dt, host + (size_t)j * td_size(dt));
      if (isnan(want[j]) ? !isnan(got) : got != want[j]) {
        const char *name = "?";
        ncore_dtype_name(dt, &name);
        harness_fail(__FILE__, __LINE__,
                     "%s %s: element %d (NaN on %s) is %g, expected %g", what,
                     name, j, j % (n + 1) == n ? "every rank" : "one rank", got,
                     want[j]);
        ok = 0;
      }
    }
  }
  tb_free(recv);
  tb_free(send);
  return ok;
}

MR_TEST(max_and_min_ignore_a_nan_on_any_rank) {
  static const ncore_dtype_t FLOATS[] = {NCORE_FLOAT16, NCORE_FLOAT32, NCORE_FLOAT64,
                                         NCORE_BFLOAT16, NCORE_FLOAT8E4M3,
                                         NCORE_FLOAT8E5M2};
  MR_COMM(comm);
  for (size_t d = 0; d < sizeof FLOATS / sizeof FLOATS[0]; d++)
    for (int to_root = 0; to_root < 2; to_root++) {
      if (!nan_case(comm, rank, nranks, FLOATS[d], NCORE_MAX, to_root)) return;
      if (!nan_case(comm, rank, nranks, FLOATS[d], NCORE_MIN, to_root)) return;
    }
  CHECK_OK(ncore_comm_destroy(comm));
}

HARNESS_MAIN
