/* Multi-rank tests: device communicators (ncore/devcomm.h).
 * Usage: test_devcomm N. */
#include "multirank.h"

/* Creates a device communicator. Where the ranks span several LSA teams a
 * device communicator needs GIN, and without a GIN-capable network NCCL
 * refuses: then this checks the refusal is exactly NOT_SUPPORTED naming GIN
 * and returns 0 (the test ends there); 1 when created. */
static int create_or_gin_refusal(ncore_dev_comm_t *dc, ncore_comm_t comm,
                                 const ncore_dev_comm_requirements_t *req) {
  int lsa_size = 0, nranks = 0;
  ncore_comm_lsa_size(comm, &lsa_size);
  ncore_comm_size(comm, &nranks);
  ncore_status_t st = ncore_create_dev_comm(dc, comm, req);
  if (st == NCORE_OK) return 1;
  if (lsa_size < nranks && st == NCORE_ERR_NOT_SUPPORTED &&
      strstr(ncore_last_error_message(), "GIN") != NULL)
    return 0;
  harness_fail(__FILE__, __LINE__, "ncore_create_dev_comm (LSA team %d of %d ranks): %s (\"%s\")",
               lsa_size, nranks, ncore_status_string(st), ncore_last_error_message());
  return 0;
}

/* Declares device communicator `dc` made with req; ends the test (after
 * destroying comm) when GIN is needed and missing. */
#define DEV_COMM(dc, comm, req)                              \
  ncore_dev_comm_t dc = NCORE_NULL_HANDLE;                   \
  if (!create_or_gin_refusal(&dc, (comm), (req))) {          \
    if (!harness_failed()) CHECK_OK(ncore_comm_destroy(comm)); \
    return;                                                  \
  }

MR_TEST(dev_comm_with_null_requirements_describes_team) {
  MR_COMM(comm);
  DEV_COMM(dc, comm, NULL);
  CHECK(dc != NCORE_NULL_HANDLE);
  CHECK_EQ(ncore_dev_comm_is_valid(dc), 1);
  void *p = NULL;
  CHECK_OK(ncore_dev_comm_pointer(dc, &p));
  CHECK(p != NULL);
  ncore_dev_comm_info_t info = NCORE_DEV_COMM_INFO_INIT;
  CHECK_OK(ncore_dev_comm_info(dc, &info));
  CHECK_EQ(info.rank, rank);
  CHECK_EQ(info.nranks, nranks);
  int lsa_rank, lsa_size;
  CHECK_OK(ncore_comm_lsa_rank(comm, &lsa_rank));
  CHECK_OK(ncore_comm_lsa_size(comm, &lsa_size));
  CHECK_EQ(info.lsa_rank, lsa_rank);
  CHECK_EQ(info.lsa_size, lsa_size);
  if (harness_is_host()) {
    CHECK_EQ(info.lsa_size, nranks);
    CHECK_EQ(info.gin_type, NCORE_GIN_TYPE_NONE);
    CHECK_EQ(info.railed_gin_type, NCORE_GIN_TYPE_NONE);
    CHECK_EQ(info.gin_context_count, 0);
    CHECK_EQ(info.lsa_multimem, 0);
  }
  CHECK_STATUS(ncore_dev_comm_pointer(dc, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_dev_comm_info(dc, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_dev_comm_close(dc));
  CHECK_OK(ncore_dev_comm_close(dc));
  CHECK_EQ(ncore_dev_comm_is_valid(dc), 0);
  CHECK_STATUS(ncore_dev_comm_pointer(dc, &p), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_dev_comm_info(dc, &info), NCORE_ERR_CLOSED);
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(dev_comm_with_requirements) {
  MR_COMM(comm);
  ncore_dev_comm_requirements_t req;
  CHECK_OK(ncore_dev_comm_requirements_init(&req, sizeof req));
  /* LSA resources only: NCCL 2.30 counts barrier_count (the hybrid LSA +
   * rail-GIN barrier) as a GIN resource and refuses it without a GIN
   * connection type, where 2.28 made it within one node. */
  req.lsa_barrier_count = 2;
  req.lsa_ll_a2a_block_count = 1;
  req.lsa_ll_a2a_slot_count = 64;
  DEV_COMM(dc, comm, &req);
  ncore_dev_comm_info_t info = NCORE_DEV_COMM_INFO_INIT;
  CHECK_OK(ncore_dev_comm_info(dc, &info));
  CHECK_EQ(info.nranks, nranks);
  CHECK_OK(ncore_dev_comm_close(dc));
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(dev_comm_argument_errors) {
  MR_COMM(comm);
  ncore_dev_comm_t dc;
  CHECK_STATUS(ncore_create_dev_comm(NULL, comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_create_dev_comm: out");
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.struct_size = 0;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.barrier_count = -1;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("barrier_count");
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.gin_connection_type = 9;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("gin_connection_type");
  if (harness_is_host()) {
    int dummy;
    req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
    req.resource_requirements_list = &dummy;
    CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("resource_requirements_list");
    /* The host backend has no GIN and no multimem: asking for them is
     * NOT_SUPPORTED with a message saying which. */
    req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
    req.gin_connection_type = NCORE_GIN_CONNECTION_FULL;
    CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("GIN");
    req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
    req.lsa_multimem = 1;
    CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("multimem");
  }
  ncore_dev_comm_info_t info = NCORE_DEV_COMM_INFO_INIT;
  CHECK_STATUS(ncore_dev_comm_info((ncore_dev_comm_t)comm, &info), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_dev_comm_close((ncore_dev_comm_t)comm), NCORE_ERR_INVALID_ARGUMENT);
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, NULL), NCORE_ERR_CLOSED);
  ncore_gin_type_t gin;
  CHECK_STATUS(ncore_comm_gin_type(comm, &gin), NCORE_ERR_CLOSED);
}

MR_TEST(dev_comm_closed_with_comm) {
  MR_COMM(comm);
  DEV_COMM(a, comm, NULL);
  DEV_COMM(b, comm, NULL);
  CHECK(a != b);
  CHECK_OK(ncore_dev_comm_close(a));
  CHECK_EQ(ncore_dev_comm_is_valid(b), 1);
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_EQ(ncore_dev_comm_is_valid(b), 0);
  void *p;
  CHECK_STATUS(ncore_dev_comm_pointer(b, &p), NCORE_ERR_CLOSED);
  CHECK_OK(ncore_dev_comm_close(b));
}

HARNESS_MAIN
