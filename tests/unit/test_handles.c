/* Unit tests: handle semantics on a one-rank communicator — closed handles
 * answer CLOSED, close is idempotent, wrong type / NULL are invalid
 * arguments, resources die with their communicator, is_valid. */
#include "harness.h"
#include "testbuf.h"
#include "unit_comm.h"

TEST(null_handle_is_invalid_argument) {
  int out;
  CHECK_STATUS(ncore_comm_rank(NCORE_NULL_HANDLE, &out), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_rank: comm");
  CHECK_STATUS(ncore_comm_destroy(NCORE_NULL_HANDLE), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_abort(NCORE_NULL_HANDLE), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_registered_buffer_close(NCORE_NULL_HANDLE), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_close(NCORE_NULL_HANDLE), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_custom_redop_close(NCORE_NULL_HANDLE), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_dev_comm_close(NCORE_NULL_HANDLE), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_symmetric_free(NCORE_NULL_HANDLE), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_EQ(ncore_comm_is_valid(NCORE_NULL_HANDLE), 0);
  CHECK_EQ(ncore_window_is_valid(NCORE_NULL_HANDLE), 0);
  CHECK_EQ(ncore_symmetric_is_valid(NCORE_NULL_HANDLE), 0);
}

TEST(bogus_handle_value_is_invalid_argument) {
  int out;
  /* A type tag that no handle type has. */
  CHECK_STATUS(ncore_comm_rank((ncore_comm_t)0xEE00000000000001ULL, &out),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_EQ(ncore_comm_is_valid((ncore_comm_t)0xEE00000000000001ULL), 0);
}

TEST(comm_lifecycle_and_queries) {
  UNIT_COMM(comm);
  CHECK(comm != NCORE_NULL_HANDLE);
  CHECK_EQ(ncore_comm_is_valid(comm), 1);
  int v = -5;
  CHECK_OK(ncore_comm_rank(comm, &v));
  CHECK_EQ(v, 0);
  CHECK_OK(ncore_comm_size(comm, &v));
  CHECK_EQ(v, 1);
  ncore_backend_t b;
  CHECK_OK(ncore_comm_backend(comm, &b));
  CHECK_EQ(b, harness_backend());
  CHECK_STATUS(ncore_comm_rank(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("out");
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_EQ(ncore_comm_is_valid(comm), 0);
  CHECK_STATUS(ncore_comm_rank(comm, &v), NCORE_ERR_CLOSED);
  CHECK_MESSAGE_CONTAINS("comm");
  CHECK_OK(ncore_comm_destroy(comm)); /* idempotent */
  CHECK_OK(ncore_comm_abort(comm));
}

TEST(wrong_handle_type_is_invalid_argument) {
  UNIT_COMM(comm);
  char *mem = tb_alloc(64);
  CHECK(mem);
  ncore_registered_buffer_t rb;
  CHECK_OK(ncore_register_buffer(&rb, comm, mem, 64));
  size_t size;
  /* A registered buffer passed as a communicator, and vice versa. */
  int v;
  CHECK_STATUS(ncore_comm_rank((ncore_comm_t)rb, &v), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("comm");
  CHECK_STATUS(ncore_registered_buffer_size((ncore_registered_buffer_t)comm, &size),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_destroy((ncore_comm_t)rb), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_close((ncore_window_t)rb), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_registered_buffer_close((ncore_registered_buffer_t)comm),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_EQ(ncore_comm_is_valid((ncore_comm_t)rb), 0);
  CHECK_EQ(ncore_registered_buffer_is_valid(rb), 1);
  CHECK_OK(ncore_registered_buffer_close(rb));
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(mem);
}

TEST(resources_closed_with_their_comm) {
  UNIT_COMM(comm);
  char *mem = tb_alloc(8192);
  CHECK(mem);
  ncore_registered_buffer_t rb;
  ncore_window_t win;
  ncore_custom_redop_t op;
  ncore_dev_comm_t dc;
  ncore_symmetric_t sym;
  float scalar = 2.0f;
  CHECK_OK(ncore_register_buffer(&rb, comm, mem, 4096));
  CHECK_OK(ncore_register_window(&win, comm, mem + 4096, 4096, NCORE_WINDOW_DEFAULT));
  CHECK_OK(ncore_create_pre_mul_sum(&op, comm, &scalar, NCORE_FLOAT32,
                                    NCORE_SCALAR_HOST_IMMEDIATE));
  CHECK_OK(ncore_create_dev_comm(&dc, comm, NULL));
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 256));
  CHECK(ncore_registered_buffer_is_valid(rb) && ncore_window_is_valid(win) &&
        ncore_custom_redop_is_valid(op) && ncore_dev_comm_is_valid(dc) &&
        ncore_symmetric_is_valid(sym));
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_EQ(ncore_registered_buffer_is_valid(rb), 0);
  CHECK_EQ(ncore_window_is_valid(win), 0);
  CHECK_EQ(ncore_custom_redop_is_valid(op), 0);
  CHECK_EQ(ncore_dev_comm_is_valid(dc), 0);
  CHECK_EQ(ncore_symmetric_is_valid(sym), 0);
  size_t size;
  void *p;
  ncore_redop_t value;
  ncore_dev_comm_info_t info = NCORE_DEV_COMM_INFO_INIT;
  CHECK_STATUS(ncore_registered_buffer_size(rb, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_window_size(win, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_custom_redop_value(op, &value), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_dev_comm_info(dc, &info), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_symmetric_local_pointer(sym, &p), NCORE_ERR_CLOSED);
  /* Closing after the comm went is still OK (finalizers in any order). */
  CHECK_OK(ncore_registered_buffer_close(rb));
  CHECK_OK(ncore_window_close(win));
  CHECK_OK(ncore_custom_redop_close(op));
  CHECK_OK(ncore_dev_comm_close(dc));
  CHECK_OK(ncore_symmetric_free(sym));
  tb_free(mem);
}

TEST(resources_closed_by_abort) {
  UNIT_COMM(comm);
  ncore_symmetric_t sym;
  ncore_dev_comm_t dc;
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 64));
  CHECK_OK(ncore_create_dev_comm(&dc, comm, NULL));
  CHECK_OK(ncore_comm_abort(comm));
  CHECK_EQ(ncore_comm_is_valid(comm), 0);
  size_t size;
  CHECK_STATUS(ncore_symmetric_size(sym, &size), NCORE_ERR_CLOSED);
  void *p;
  CHECK_STATUS(ncore_dev_comm_pointer(dc, &p), NCORE_ERR_CLOSED);
  int v;
  CHECK_STATUS(ncore_comm_size(comm, &v), NCORE_ERR_CLOSED);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_comm_abort(comm));
}

TEST(double_close_of_every_resource_is_ok) {
  UNIT_COMM(comm);
  char *mem = tb_alloc(4096);
  CHECK(mem);
  ncore_registered_buffer_t rb;
  ncore_window_t win;
  ncore_custom_redop_t op;
  ncore_dev_comm_t dc;
  ncore_symmetric_t sym;
  double scalar = 0.5;
  CHECK_OK(ncore_register_buffer(&rb, comm, mem, 100));
  CHECK_OK(ncore_register_window(&win, comm, mem, 4096, NCORE_WINDOW_DEFAULT));
  CHECK_OK(ncore_create_pre_mul_sum(&op, comm, &scalar, NCORE_FLOAT64,
                                    NCORE_SCALAR_HOST_IMMEDIATE));
  CHECK_OK(ncore_create_dev_comm(&dc, comm, NULL));
  CHECK_OK(ncore_symmetric_alloc(&sym, comm, 128));
  CHECK_OK(ncore_registered_buffer_close(rb));
  CHECK_OK(ncore_registered_buffer_close(rb));
  CHECK_OK(ncore_window_close(win));
  CHECK_OK(ncore_window_close(win));
  CHECK_OK(ncore_custom_redop_close(op));
  CHECK_OK(ncore_custom_redop_close(op));
  CHECK_OK(ncore_dev_comm_close(dc));
  CHECK_OK(ncore_dev_comm_close(dc));
  CHECK_OK(ncore_symmetric_free(sym));
  CHECK_OK(ncore_symmetric_free(sym));
  size_t size;
  CHECK_STATUS(ncore_registered_buffer_size(rb, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_window_size(win, &size), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_symmetric_size(sym, &size), NCORE_ERR_CLOSED);
  /* The comm is still alive after its resources closed. */
  CHECK_EQ(ncore_comm_is_valid(comm), 1);
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(mem);
}

TEST(stale_handle_never_matches_new_object) {
  UNIT_COMM(first);
  CHECK_OK(ncore_comm_destroy(first));
  /* New comms may reuse the slot; the old handle must stay closed. */
  ncore_comm_t again[4];
  for (int i = 0; i < 4; i++) CHECK_OK(unit_comm1(&again[i], NULL));
  int v;
  CHECK_STATUS(ncore_comm_size(first, &v), NCORE_ERR_CLOSED);
  for (int i = 0; i < 4; i++) {
    CHECK(again[i] != first);
    CHECK_OK(ncore_comm_destroy(again[i]));
  }
}

/* The bounded real run of a slot's generation aliasing (test_handle_table.c has the
 * arithmetic): one slot reused many times through public calls. Every new
 * operator's handle differs from the first, and closing the first (stale)
 * handle, which e340640 took for a new operator once its generation
 * wrapped, leaves the live one alone. */
/* A PreMulSum operator of comm (the audit's object of choice). */
static ncore_status_t pre_mul_sum(ncore_comm_t comm, ncore_custom_redop_t *op) {
  static const float scalar = 2.0f;
  return ncore_create_pre_mul_sum(op, comm, &scalar, NCORE_FLOAT32,
                                  NCORE_SCALAR_HOST_IMMEDIATE);
}

TEST(stale_handles_stay_closed_over_many_reuses) {
  UNIT_COMM(comm);
  ncore_custom_redop_t first, op;
  CHECK_OK(pre_mul_sum(comm, &first));
  CHECK_OK(ncore_custom_redop_close(first));
  for (int i = 0; i < 100000; i++) {
    CHECK_OK(pre_mul_sum(comm, &op));
    CHECK(op != first);
    CHECK_OK(ncore_custom_redop_close(first)); /* idempotent, and stale */
    CHECK_EQ(ncore_custom_redop_is_valid(op), 1);
    CHECK_OK(ncore_custom_redop_close(op));
  }
  CHECK_OK(ncore_comm_destroy(comm));
}

/* A handle's type tag is a claim the library checks against the object:
 * an operator's handle retagged as a communicator (or a window) is refused
 * (e340640 used the operator as a communicator: a heap-buffer-overflow
 * under ASan, a segfault without). The layout (type tag in bits 56..63) is
 * core/handles.h's; the audit forged the handle the same way. */
TEST(handle_with_a_changed_type_tag_is_refused) {
  UNIT_COMM(comm);
  ncore_custom_redop_t op;
  CHECK_OK(pre_mul_sum(comm, &op));
  uint64_t tag_mask = UINT64_C(0xff) << 56;
  uint64_t comm_tag = (uint64_t)comm & tag_mask;
  ncore_comm_t as_comm = (op & ~tag_mask) | comm_tag;
  int v;
  CHECK_STATUS(ncore_comm_rank(as_comm, &v), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("comm");
  CHECK_MESSAGE_CONTAINS("not a communicator handle");
  CHECK_STATUS(ncore_comm_destroy(as_comm), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_abort(as_comm), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_EQ(ncore_comm_is_valid(as_comm), 0);
  /* The communicator's handle retagged as an operator, the other way. */
  uint64_t op_tag = op & tag_mask;
  ncore_custom_redop_t as_op = (comm & ~tag_mask) | op_tag;
  ncore_redop_t value;
  CHECK_STATUS(ncore_custom_redop_value(as_op, &value), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_custom_redop_close(as_op), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_EQ(ncore_custom_redop_is_valid(as_op), 0);
  /* Nothing was closed or leaked by the refusals. */
  CHECK_EQ(ncore_custom_redop_is_valid(op), 1);
  CHECK_EQ(ncore_comm_is_valid(comm), 1);
  CHECK_OK(ncore_custom_redop_close(op));
  CHECK_OK(ncore_comm_destroy(comm));
}

HARNESS_MAIN
