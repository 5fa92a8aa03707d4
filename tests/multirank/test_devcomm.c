/* Multi-rank tests: device communicators (ncore/devcomm.h).
 * Usage: test_devcomm N. */
#include "multirank.h"
#include "testbuf.h"

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
  /* NCCL 2.32's custom stride: a known type, which needs its stride. */
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.gin_connection_type = NCORE_GIN_CONNECTION_CUSTOM_STRIDE;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("needs gin_custom_stride");
  req.gin_custom_stride = 2;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_NOT_SUPPORTED);
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

/* ---- team and resource requirements (ABI 1.2) ---- */

/* ncore_create_dev_comm with req answers `status` and a message with
 * `text` (every check here is local, so all ranks answer alike). */
#define CHECK_REFUSED(comm, req, status, text)                              \
  do {                                                                      \
    ncore_dev_comm_t refused_ = NCORE_NULL_HANDLE;                          \
    CHECK_STATUS(ncore_create_dev_comm(&refused_, (comm), (req)), (status)); \
    CHECK_MESSAGE_CONTAINS(text);                                           \
  } while (0)

static ncore_dev_resource_requirement_t lsa_barrier(ncore_team_t team, int n) {
  ncore_dev_resource_requirement_t q = NCORE_DEV_RESOURCE_REQUIREMENT_INIT;
  q.kind = NCORE_DEV_RESOURCE_LSA_BARRIER;
  q.team = team;
  q.n_barriers = n;
  return q;
}

static ncore_dev_resource_requirement_t ll_a2a(int blocks, int elements, int size) {
  ncore_dev_resource_requirement_t q = NCORE_DEV_RESOURCE_REQUIREMENT_INIT;
  q.kind = NCORE_DEV_RESOURCE_LL_A2A;
  q.n_blocks = blocks;
  q.max_elements = elements;
  q.max_element_size = size;
  return q;
}

MR_TEST(dev_comm_requirement_arrays_are_checked_naming_the_field) {
  MR_COMM(comm);
  ncore_team_t world, lsa;
  CHECK_OK(ncore_comm_team_world(comm, &world));
  CHECK_OK(ncore_comm_team_lsa(comm, &lsa));
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  ncore_team_requirement_t teams[2] = {NCORE_TEAM_REQUIREMENT_INIT,
                                       NCORE_TEAM_REQUIREMENT_INIT};
  teams[0].team = world;
  teams[1].team = lsa;
  req.teams = teams;
  req.team_count = -1;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "team_count: -1");
  req.team_count = 1025;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "team_count: 1025");
  req.teams = NULL;
  req.team_count = 1;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "teams is NULL");
  req.teams = teams;
  req.team_count = 2;
  teams[1].struct_size = 8;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "teams[1].struct_size");
  teams[1].struct_size = sizeof teams[1];
  teams[1].team.stride = 0;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "teams[1].team");
  /* One member more than the communicator has: not a team of it. */
  teams[1].team = world;
  teams[1].team.n_ranks = nranks + 1;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "not a team of this communicator");
  teams[1].team = lsa;
  teams[0].multimem = 2;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "teams[0].multimem: 2");
  teams[0].multimem = 0;

  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  ncore_dev_resource_requirement_t res[2] = {lsa_barrier(lsa, 1), ll_a2a(1, 8, 8)};
  req.resources = res;
  req.resource_count = -3;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "resource_count: -3");
  req.resource_count = 2;
  res[0].kind = 7;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "resources[0].kind: 7");
  res[0] = lsa_barrier(lsa, 0);
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "resources[0].n_barriers: 0");
  res[0] = lsa_barrier(lsa, -2);
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "resources[0].n_barriers: -2");
  res[0] = lsa_barrier(lsa, 1);
  res[0].team.rank = lsa.n_ranks;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "resources[0].team");
  res[0] = lsa_barrier(lsa, 1);
  res[0].n_blocks = 1;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "resources[0].n_blocks: 1 must be 0");
  res[0] = lsa_barrier(lsa, 1);
  res[1] = ll_a2a(1, 0, 8);
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "resources[1].max_elements: 0");
  res[1] = ll_a2a(1, 8, 8);
  res[1].team = lsa;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "resources[1].team");
  res[1] = ll_a2a(1, 8, 8);
  /* NCCL's raw lists (ABI 1.1) and ncore's arrays at once: refused. */
  int dummy = 0;
  req.team_requirements_list = &dummy;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "team_requirements_list");

  /* NCCL 2.32's fields are checked too. */
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.gin_custom_stride = 0;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "gin_custom_stride: 0");
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.gin_type = 1;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "gin_type: 1");
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.cft_caps = 4;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "cft_caps: 0x4");
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.cft_barrier_count = -1;
  CHECK_REFUSED(comm, &req, NCORE_ERR_INVALID_ARGUMENT, "cft_barrier_count: -1");
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(dev_comm_teams_without_multimem_give_no_handles) {
  MR_COMM(comm);
  ncore_team_t world, lsa;
  CHECK_OK(ncore_comm_team_world(comm, &world));
  CHECK_OK(ncore_comm_team_lsa(comm, &lsa));
  ncore_team_requirement_t teams[3] = {NCORE_TEAM_REQUIREMENT_INIT,
                                       NCORE_TEAM_REQUIREMENT_INIT,
                                       NCORE_TEAM_REQUIREMENT_INIT};
  teams[0].team = world;
  teams[1].team = lsa;
  teams[2].team = world; /* merged with teams[0] */
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.teams = teams;
  req.team_count = 3;
  DEV_COMM(dc, comm, &req);
  ncore_dev_resource_handle_t handle = NCORE_DEV_RESOURCE_HANDLE_INIT;
  CHECK_STATUS(ncore_dev_comm_resource_handle(dc, 0, &handle), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("index");
  ncore_multimem_handle_t mm = NCORE_MULTIMEM_HANDLE_INIT;
  CHECK_STATUS(ncore_dev_comm_multimem_handle(dc, &world, &mm), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("not requested with multimem");
  CHECK_STATUS(ncore_dev_comm_multimem_handle(dc, NULL, &mm), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("team");
  CHECK_STATUS(ncore_dev_comm_multimem_handle(dc, &world, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_dev_comm_resource_handle(dc, 0, NULL), NCORE_ERR_INVALID_ARGUMENT);
  handle.struct_size = 4;
  CHECK_STATUS(ncore_dev_comm_resource_handle(dc, 0, &handle), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
  CHECK_STATUS(ncore_dev_comm_resource_handle((ncore_dev_comm_t)comm, 0, &handle),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_dev_comm_close(dc));
  handle.struct_size = sizeof handle;
  CHECK_STATUS(ncore_dev_comm_resource_handle(dc, 0, &handle), NCORE_ERR_CLOSED);
  CHECK_STATUS(ncore_dev_comm_multimem_handle(dc, &world, &mm), NCORE_ERR_CLOSED);
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Host: no device resources, no multimem, no GIN, no CFT: NOT_SUPPORTED
 * naming what. NCCL: the handles NCCL returned, in the requirements'
 * order; NCCL 2.32's fields on an older NCCL name 2.32. */
MR_TEST(dev_comm_resource_handles_by_backend) {
  MR_COMM(comm);
  ncore_team_t world, lsa;
  CHECK_OK(ncore_comm_team_world(comm, &world));
  CHECK_OK(ncore_comm_team_lsa(comm, &lsa));
  ncore_dev_resource_requirement_t res[2] = {lsa_barrier(lsa, 3), ll_a2a(2, 16, 8)};
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.resources = res;
  req.resource_count = 2;
  if (harness_is_host()) {
    CHECK_REFUSED(comm, &req, NCORE_ERR_NOT_SUPPORTED, "no device resources");
    ncore_team_requirement_t team = NCORE_TEAM_REQUIREMENT_INIT;
    team.team = world;
    team.multimem = 1;
    req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
    req.teams = &team;
    req.team_count = 1;
    CHECK_REFUSED(comm, &req, NCORE_ERR_NOT_SUPPORTED, "multimem");
    req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
    req.gin_type = NCORE_GIN_TYPE_PROXY;
    CHECK_REFUSED(comm, &req, NCORE_ERR_NOT_SUPPORTED, "gin_type");
    req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
    req.cft_caps = 1;
    CHECK_REFUSED(comm, &req, NCORE_ERR_NOT_SUPPORTED, "cft_caps");
    mr_barrier(comm);
    CHECK_OK(ncore_comm_destroy(comm));
    return;
  }
  DEV_COMM(dc, comm, &req);
  ncore_dev_resource_handle_t h = NCORE_DEV_RESOURCE_HANDLE_INIT;
  CHECK_OK(ncore_dev_comm_resource_handle(dc, 0, &h));
  CHECK_EQ(h.kind, NCORE_DEV_RESOURCE_LSA_BARRIER);
  CHECK_EQ(h.n_barriers, 3);
  CHECK_EQ(h.n_slots, 0u);
  ncore_dev_resource_handle_t a2a = NCORE_DEV_RESOURCE_HANDLE_INIT;
  CHECK_OK(ncore_dev_comm_resource_handle(dc, 1, &a2a));
  CHECK_EQ(a2a.kind, NCORE_DEV_RESOURCE_LL_A2A);
  CHECK(a2a.n_slots > 0);
  CHECK(a2a.buf_handle != h.buf_handle); /* two buffers of one window */
  CHECK_STATUS(ncore_dev_comm_resource_handle(dc, 2, &h), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_dev_comm_close(dc));
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.cft_barrier_count = 1;
  CHECK_REFUSED(comm, &req, NCORE_ERR_NOT_SUPPORTED, "cft_barrier_count");
  CHECK_MESSAGE_CONTAINS("2.3");
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(window_multimem_device_pointer_through_a_handle) {
  MR_COMM(comm);
  const size_t size = 4096;
  char *mem = tb_alloc(size);
  CHECK(mem);
  ncore_window_t win = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_register_window(&win, comm, mem, size, NCORE_WINDOW_COLL_SYMMETRIC));
  ncore_multimem_handle_t none = NCORE_MULTIMEM_HANDLE_INIT;
  void *p = (void *)1;
  /* A handle without a multicast base has no address. */
  CHECK_OK(ncore_window_multimem_device_pointer(win, &none, 0, &p));
  CHECK(p == NULL);
  CHECK_STATUS(ncore_window_multimem_device_pointer(win, NULL, 0, &p),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("multimem");
  CHECK_STATUS(ncore_window_multimem_device_pointer(win, &none, 0, NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_window_multimem_device_pointer(win, &none, size + 1, &p),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("offset");
  ncore_multimem_handle_t small = none;
  small.struct_size = 4;
  CHECK_STATUS(ncore_window_multimem_device_pointer(win, &small, 0, &p),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
  if (harness_is_host()) {
    /* No multicast exists here, whatever a handle says: never faked. */
    ncore_multimem_handle_t made_up = NCORE_MULTIMEM_HANDLE_INIT;
    made_up.mc_base_pointer = mem;
    CHECK_OK(ncore_window_multimem_device_pointer(win, &made_up, 0, &p));
    CHECK(p == NULL);
  }
  CHECK_OK(ncore_window_close(win));
  CHECK_STATUS(ncore_window_multimem_device_pointer(win, &none, 0, &p), NCORE_ERR_CLOSED);
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
  tb_free(mem);
}

HARNESS_MAIN
