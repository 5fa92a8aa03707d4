/* Unit tests: the versioned-struct rules for every versioned struct —
 * struct_size 0 rejected, a smaller one accepted with defaults, a larger one
 * accepted with a zero tail and rejected with a non-zero tail, and
 * *_INIT == *_init(). */
#include <stddef.h>

#include "harness.h"
#include "testbuf.h"
#include "unit_comm.h"

/* ---- ncore_comm_config_t ---- */

TEST(config_init_matches_macro) {
  ncore_comm_config_t a = NCORE_COMM_CONFIG_INIT, b;
  memset(&b, 0x5a, sizeof b);
  CHECK_OK(ncore_comm_config_init(&b, sizeof b));
  CHECK_EQ(a.struct_size, sizeof(ncore_comm_config_t));
  CHECK_EQ(b.struct_size, a.struct_size);
  CHECK_EQ(b.backend, NCORE_BACKEND_AUTO);
  CHECK_EQ(b.timeout_ms, 0);
  CHECK_EQ(b.device, -1);
  CHECK_EQ(b.blocking, a.blocking);
  CHECK_EQ(b.blocking, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(b.cga_cluster_size, a.cga_cluster_size);
  CHECK_EQ(b.min_ctas, a.min_ctas);
  CHECK_EQ(b.max_ctas, a.max_ctas);
  CHECK(b.net_name == NULL);
  CHECK_EQ(b.split_share, a.split_share);
  CHECK_EQ(b.traffic_class, a.traffic_class);
  CHECK(b.comm_name == NULL);
  CHECK_EQ(b.collnet_enable, a.collnet_enable);
  CHECK_EQ(b.cta_policy, a.cta_policy);
  CHECK_EQ(b.shrink_share, a.shrink_share);
  CHECK_EQ(b.nvls_ctas, a.nvls_ctas);
  CHECK_EQ(b.n_channels_per_net_peer, a.n_channels_per_net_peer);
  CHECK_EQ(b.nvlink_centric_sched, a.nvlink_centric_sched);
}

TEST(config_struct_size_zero_rejected) {
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.struct_size = 0;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_STATUS(unit_comm1(&comm, &config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_init_rank: config: struct_size 0");
  CHECK_EQ(comm, NCORE_NULL_HANDLE);
}

TEST(config_smaller_struct_size_takes_defaults) {
  /* An old caller that knew only backend, timeout_ms and device; the bytes
   * after struct_size are garbage and must not be read. */
  ncore_comm_config_t config;
  memset(&config, 0x7f, sizeof config);
  config.struct_size = (uint32_t)offsetof(ncore_comm_config_t, blocking);
  config.backend = NCORE_BACKEND_AUTO;
  /* Room for NCCL's init under compute-sanitizer (over 10 s there). */
  config.timeout_ms = 120000;
  config.device = -1;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(unit_comm1(&comm, &config));
  CHECK(ncore_comm_is_valid(comm));
  CHECK_OK(ncore_comm_destroy(comm));
}

typedef struct bigger_config {
  ncore_comm_config_t config;
  uint64_t future_field;
} bigger_config_t;

TEST(config_larger_with_zero_tail_accepted) {
  bigger_config_t big;
  memset(&big, 0, sizeof big);
  /* A newer caller's init: the library zeroes the fields it does not know. */
  memset(&big, 0x7f, sizeof big);
  CHECK_OK(ncore_comm_config_init(&big.config, sizeof big));
  CHECK_EQ(big.config.struct_size, sizeof big);
  CHECK_EQ(big.future_field, 0);
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(unit_comm1(&comm, &big.config));
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(config_larger_with_nonzero_tail_rejected) {
  bigger_config_t big;
  memset(&big, 0, sizeof big);
  CHECK_OK(ncore_comm_config_init(&big.config, sizeof big));
  big.future_field = 1;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_STATUS(unit_comm1(&comm, &big.config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("config: struct_size");
  CHECK_MESSAGE_CONTAINS("not zero");
}

TEST(config_unknown_backend_rejected) {
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.backend = 7;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_STATUS(unit_comm1(&comm, &config), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("backend");
}

TEST(config_host_device_must_be_minus_one) {
  /* Names the host backend explicitly: runs whatever AUTO resolves to. */
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.backend = NCORE_BACKEND_HOST;
  config.device = 0;
  ncore_unique_id_t id;
  CHECK_OK(ncore_get_unique_id(&id, NCORE_BACKEND_HOST));
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_comm_init_rank(&comm, 1, &id, 0, &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("device");
}

/* ---- ncore_wait_signal_desc_t (self-signals on a one-rank comm) ---- */

TEST(wait_desc_init_matches_macro) {
  ncore_wait_signal_desc_t a = NCORE_WAIT_SIGNAL_DESC_INIT, b;
  memset(&b, 0x5a, sizeof b);
  CHECK_OK(ncore_wait_signal_desc_init(&b, sizeof b));
  CHECK_EQ(b.struct_size, sizeof b);
  CHECK_EQ(a.struct_size, sizeof a);
  CHECK_EQ(b.peer, a.peer);
  CHECK_EQ(b.op_count, 1);
  CHECK_EQ(a.op_count, 1);
  CHECK_EQ(b.signal_index, 0);
  CHECK_EQ(b.context, 0);
  CHECK_STATUS(ncore_wait_signal_desc_init(NULL, sizeof b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_wait_signal_desc_init: desc: must not be NULL");
}

TEST(wait_desc_struct_size_rules) {
  UNIT_COMM(comm);
  ncore_wait_signal_desc_t desc = NCORE_WAIT_SIGNAL_DESC_INIT;
  desc.struct_size = 0;
  CHECK_STATUS(ncore_wait_signal(comm, &desc, 1, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");

  /* Smaller: only peer known; op_count defaults to 1. */
  ncore_wait_signal_desc_t small;
  memset(&small, 0x7f, sizeof small);
  small.struct_size = (uint32_t)offsetof(ncore_wait_signal_desc_t, op_count);
  small.peer = 0;
  CHECK_OK(ncore_signal(comm, 0, 0, 0, 0, NULL));
  CHECK_OK(ncore_wait_signal(comm, &small, 1, NULL));

  /* Larger with zero tails, two elements: the stride is struct_size. */
  struct { ncore_wait_signal_desc_t d; uint32_t extra; } big[2];
  memset(big, 0, sizeof big);
  for (int i = 0; i < 2; i++) {
    big[i].d = (ncore_wait_signal_desc_t)NCORE_WAIT_SIGNAL_DESC_INIT;
    big[i].d.struct_size = sizeof big[0];
  }
  CHECK_OK(ncore_signal(comm, 0, 0, 0, 0, NULL));
  CHECK_OK(ncore_signal(comm, 0, 0, 0, 0, NULL));
  CHECK_OK(ncore_wait_signal(comm, &big[0].d, 2, NULL));

  big[1].extra = 3;
  CHECK_STATUS(ncore_wait_signal(comm, &big[0].d, 2, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
  CHECK_OK(ncore_comm_destroy(comm));
}

/* ---- ncore_dev_comm_requirements_t / ncore_dev_comm_info_t ---- */

TEST(dev_comm_requirements_init_matches_macro) {
  ncore_dev_comm_requirements_t a = NCORE_DEV_COMM_REQUIREMENTS_INIT, b;
  memset(&b, 0x5a, sizeof b);
  CHECK_OK(ncore_dev_comm_requirements_init(&b, sizeof b));
  CHECK_EQ(b.struct_size, sizeof b);
  CHECK_EQ(a.struct_size, sizeof a);
  CHECK(b.resource_requirements_list == NULL && b.team_requirements_list == NULL);
  CHECK_EQ(b.lsa_multimem, 0);
  CHECK_EQ(b.barrier_count, 0);
  CHECK_EQ(b.lsa_barrier_count, 0);
  CHECK_EQ(b.rail_gin_barrier_count, 0);
  CHECK_EQ(b.lsa_ll_a2a_block_count, 0);
  CHECK_EQ(b.lsa_ll_a2a_slot_count, 0);
  CHECK_EQ(b.gin_force_enable, 0);
  CHECK_EQ(b.gin_context_count, NCORE_CONFIG_UNDEF_INT); /* NCCL's default */
  CHECK_EQ(b.gin_signal_count, 0);
  CHECK_EQ(b.gin_counter_count, 0);
  CHECK_EQ(b.gin_connection_type, NCORE_GIN_CONNECTION_NONE);
  CHECK_EQ(b.gin_exclusive_contexts, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(b.gin_queue_depth, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(b.gin_traffic_class, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(b.world_gin_barrier_count, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(b.gin_strong_signals_required, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(b.gin_va_signals_required, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(a.gin_connection_type, b.gin_connection_type);
  CHECK_STATUS(ncore_dev_comm_requirements_init(NULL, sizeof b), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_dev_comm_requirements_init: requirements: must not be NULL");
}

TEST(dev_comm_requirements_struct_size_rules) {
  UNIT_COMM(comm);
  ncore_dev_comm_t dc = NCORE_NULL_HANDLE;
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.struct_size = 0;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("requirements: struct_size 0");

  ncore_dev_comm_requirements_t small;
  memset(&small, 0x7f, sizeof small);
  small.struct_size = (uint32_t)offsetof(ncore_dev_comm_requirements_t, lsa_multimem);
  small.resource_requirements_list = NULL;
  small.team_requirements_list = NULL;
  CHECK_OK(ncore_create_dev_comm(&dc, comm, &small));
  CHECK_OK(ncore_dev_comm_close(dc));

  struct { ncore_dev_comm_requirements_t r; uint64_t extra; } big;
  memset(&big, 0, sizeof big);
  CHECK_OK(ncore_dev_comm_requirements_init(&big.r, sizeof big));
  CHECK_OK(ncore_create_dev_comm(&dc, comm, &big.r));
  CHECK_OK(ncore_dev_comm_close(dc));
  big.extra = 1;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &big.r), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("requirements: struct_size");
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(dev_comm_info_struct_size_rules) {
  UNIT_COMM(comm);
  ncore_dev_comm_t dc = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_create_dev_comm(&dc, comm, NULL));
  ncore_dev_comm_info_t info = NCORE_DEV_COMM_INFO_INIT;
  info.struct_size = 0;
  CHECK_STATUS(ncore_dev_comm_info(dc, &info), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");

  /* Smaller: the library writes only up to struct_size. */
  ncore_dev_comm_info_t small;
  memset(&small, 0x7f, sizeof small);
  small.struct_size = (uint32_t)offsetof(ncore_dev_comm_info_t, lsa_rank);
  CHECK_OK(ncore_dev_comm_info(dc, &small));
  CHECK_EQ(small.struct_size, offsetof(ncore_dev_comm_info_t, lsa_rank));
  CHECK_EQ(small.rank, 0);
  CHECK_EQ(small.nranks, 1);
  CHECK_EQ(small.lsa_rank, 0x7f7f7f7f);

  /* Larger: the tail is zeroed, struct_size kept. */
  struct { ncore_dev_comm_info_t i; uint32_t extra[3]; } big;
  memset(&big, 0x7f, sizeof big);
  big.i.struct_size = sizeof big;
  CHECK_OK(ncore_dev_comm_info(dc, &big.i));
  CHECK_EQ(big.i.struct_size, sizeof big);
  CHECK_EQ(big.i.nranks, 1);
  CHECK_EQ(big.extra[0], 0);
  CHECK_EQ(big.extra[2], 0);
  ncore_dev_comm_info_t init = NCORE_DEV_COMM_INFO_INIT;
  CHECK_EQ(init.struct_size, sizeof init);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* ---- ncore_buffer_desc_t ---- */

TEST(buffer_desc_init_values) {
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  CHECK_EQ(d.struct_size, sizeof d);
  CHECK(d.ptr == NULL);
  CHECK_EQ(d.count, 0);
  CHECK_EQ(d.device_type, NCORE_DEVICE_CPU);
  CHECK_EQ(d.device_id, -1);
}

TEST(buffer_desc_struct_size_rules) {
  int64_t shape[1] = {10};
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  d.struct_size = 0;
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, 0x1000, 1, shape, NULL, "<f4", -1),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");

  ncore_buffer_desc_t small;
  memset(&small, 0x7f, sizeof small);
  small.struct_size = (uint32_t)offsetof(ncore_buffer_desc_t, count);
  CHECK_OK(ncore_buffer_resolve_array_interface(&small, 0x1000, 1, shape, NULL, "<f4", -1));
  CHECK_PTR_EQ(small.ptr, (void *)0x1000);
  CHECK_EQ(small.struct_size, offsetof(ncore_buffer_desc_t, count));
  CHECK_EQ(small.count, 0x7f7f7f7f7f7f7f7fLL);

  struct { ncore_buffer_desc_t d; uint32_t extra[2]; } big;
  memset(&big, 0x7f, sizeof big);
  big.d.struct_size = sizeof big;
  CHECK_OK(ncore_buffer_resolve_array_interface(&big.d, 0x1000, 1, shape, NULL, "<f4", -1));
  CHECK_EQ(big.d.count, 10);
  CHECK_EQ(big.d.dtype, NCORE_FLOAT32);
  CHECK_EQ(big.extra[0], 0);
  CHECK_EQ(big.extra[1], 0);
  CHECK_EQ(big.d.struct_size, sizeof big);
}

TEST(check_buffer_struct_size_rules) {
  UNIT_COMM(comm);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  d.ptr = (void *)0x1000;
  d.count = 1;
  d.dtype = NCORE_FLOAT32;
  if (!harness_is_host()) {
    d.device_type = NCORE_DEVICE_CUDA;
    CHECK_OK(ncore_comm_device(comm, &d.device_id));
  }
  CHECK_OK(ncore_comm_check_buffer(comm, &d, "sendbuf"));
  d.struct_size = 0;
  CHECK_STATUS(ncore_comm_check_buffer(comm, &d, "sendbuf"), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
  struct { ncore_buffer_desc_t d; uint32_t extra; } big;
  memset(&big, 0, sizeof big);
  big.d = d;
  big.d.struct_size = sizeof big;
  CHECK_OK(ncore_comm_check_buffer(comm, &big.d, "sendbuf"));
  big.extra = 9;
  CHECK_STATUS(ncore_comm_check_buffer(comm, &big.d, "sendbuf"), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* A struct_size beyond a page is garbage, not a newer caller: rejected
 * without reading the bytes it claims (4 GiB were scanned). The
 * caller's memory here is all zeros, so only the bound can reject it. */
TEST(struct_size_above_a_page_rejected) {
  static unsigned char zeros[8192];
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  memcpy(zeros, &config, sizeof config);
  uint32_t size = sizeof zeros;
  memcpy(zeros, &size, sizeof size);
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_STATUS(unit_comm1(&comm, (const ncore_comm_config_t *)zeros),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("config: struct_size 8192 is invalid");
  /* A page exactly is still a (much) newer caller's struct. */
  size = 4096;
  memcpy(zeros, &size, sizeof size);
  CHECK_OK(unit_comm1(&comm, (const ncore_comm_config_t *)zeros));
  CHECK_OK(ncore_comm_destroy(comm));
}

HARNESS_MAIN
