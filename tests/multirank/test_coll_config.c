/* Multi-rank tests: the collectives' _config twins (ncore/coll.h,
 * ncore_coll_config_t): a config changes how a call runs, never what it
 * computes; a bad config is refused naming its field; the host backend
 * takes the tuning fields as hints and refuses a CUDA event. Usage:
 * test_coll_config N. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "multirank.h"
#include "testbuf.h"

#define COUNT 19

/* 1 where the tuning fields reach the backend: the host backend (hints)
 * and NCCL 2.31+ (its ncclCollConfig_t); an older NCCL refuses them
 * (a_bad_config_is_refused_naming_its_field and the NCCL doubles' tests). */
static int tuning_served(void) {
  if (harness_is_host()) return 1;
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  CHECK_OK(ncore_library_info(&info));
  return info.nccl_version >= 23100;
}

/* A config that sets every field a backend may take as a hint (where the
 * backend serves them) and alg_selection. */
static ncore_coll_config_t tuned(const char *alg_selection) {
  ncore_coll_config_t config = NCORE_COLL_CONFIG_INIT;
  if (tuning_served()) {
    config.min_ctas = 1;
    config.max_ctas = 4;
    config.nvls_ctas = 2;
    config.cga_cluster_size = 0;
    config.cta_policy = 0;
    config.user_profiler_tag = 42;
  }
  config.alg_selection = alg_selection;
  config.force_alg_selection = 0;
  return config;
}

/* Allreduce (sum), allgather and broadcast of int32 through their twins
 * with config; each result checked exactly. Returns 1 when all match. */
static int three_collectives(ncore_comm_t comm, int rank, int nranks,
                             const ncore_coll_config_t *config) {
  int32_t mine[COUNT], got[COUNT * 8];
  size_t all = (size_t)nranks * COUNT;
  int32_t *send = tb_alloc(COUNT * sizeof(int32_t));
  int32_t *recv = tb_alloc(all * sizeof(int32_t));
  CHECK(send && recv);
  for (int i = 0; i < COUNT; i++) mine[i] = rank * 100 + i;
  tb_put(send, mine, sizeof mine);
  CHECK_OK(ncore_allreduce_config(comm, send, recv, COUNT, NCORE_INT32, NCORE_SUM,
                                  NULL, config));
  tb_get(got, recv, COUNT * sizeof(int32_t));
  for (int i = 0; i < COUNT; i++)
    CHECK_EQ(got[i], 100 * nranks * (nranks - 1) / 2 + nranks * i);
  CHECK_OK(ncore_allgather_config(comm, send, recv, COUNT, NCORE_INT32, NULL, config));
  tb_get(got, recv, all * sizeof(int32_t));
  for (int r = 0; r < nranks; r++)
    for (int i = 0; i < COUNT; i++) CHECK_EQ(got[r * COUNT + i], r * 100 + i);
  int root = nranks - 1;
  CHECK_OK(ncore_broadcast_config(comm, send, recv, COUNT, NCORE_INT32, root, NULL,
                                  config));
  tb_get(got, recv, COUNT * sizeof(int32_t));
  for (int i = 0; i < COUNT; i++) CHECK_EQ(got[i], root * 100 + i);
  tb_free(send);
  tb_free(recv);
  return !harness_failed();
}

MR_TEST(a_config_changes_no_result) {
  MR_COMM(comm);
  ncore_coll_config_t defaults = NCORE_COLL_CONFIG_INIT;
  const char *selections[] = {NULL, "", "auto", "NCCL", "oneshot", "twoshot", "ring",
                              "tree,ring", "^symk"};
  if (!three_collectives(comm, rank, nranks, NULL)) return;
  if (!three_collectives(comm, rank, nranks, &defaults)) return;
  for (size_t s = 0; s < sizeof selections / sizeof selections[0]; s++) {
    ncore_coll_config_t config = tuned(selections[s]);
    if (!harness_is_host() && selections[s] != NULL &&
        strcmp(selections[s], "") != 0)
      config.force_alg_selection = 0; /* NCCL before 2.31: automatic */
    if (!three_collectives(comm, rank, nranks, &config)) return;
  }
  mr_barrier(comm);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(every_twin_runs_its_collective) {
  MR_COMM(comm);
  ncore_coll_config_t config = NCORE_COLL_CONFIG_INIT;
  size_t all = (size_t)nranks * COUNT;
  float *send = tb_alloc(all * sizeof(float)), *recv = tb_alloc(all * sizeof(float));
  float host[COUNT * 8], got[COUNT * 8];
  CHECK(send && recv);
  for (size_t i = 0; i < all; i++) host[i] = (float)(rank * 1000 + (int)i);
  tb_put(send, host, all * sizeof(float));
  CHECK_OK(ncore_reduce_config(comm, send, recv, COUNT, NCORE_FLOAT32, NCORE_MAX, 0,
                               NULL, &config));
  if (rank == 0) {
    tb_get(got, recv, COUNT * sizeof(float));
    for (int i = 0; i < COUNT; i++) CHECK(got[i] == (float)((nranks - 1) * 1000 + i));
  }
  CHECK_OK(ncore_reduce_scatter_config(comm, send, recv, COUNT, NCORE_FLOAT32, NCORE_MIN,
                                       NULL, &config));
  tb_get(got, recv, COUNT * sizeof(float));
  for (int i = 0; i < COUNT; i++) CHECK(got[i] == (float)(rank * COUNT + i));
  CHECK_OK(ncore_alltoall_config(comm, send, recv, COUNT, NCORE_FLOAT32, NULL, &config));
  tb_get(got, recv, all * sizeof(float));
  for (int r = 0; r < nranks; r++)
    for (int i = 0; i < COUNT; i++)
      CHECK(got[r * COUNT + i] == (float)(r * 1000 + rank * COUNT + i));
  CHECK_OK(ncore_gather_config(comm, send, rank == 1 ? recv : NULL, COUNT, NCORE_FLOAT32,
                               1 % nranks, NULL, &config));
  CHECK_OK(ncore_scatter_config(comm, send, recv, COUNT, NCORE_FLOAT32, 0, NULL, &config));
  tb_get(got, recv, COUNT * sizeof(float));
  for (int i = 0; i < COUNT; i++) CHECK(got[i] == (float)(rank * COUNT + i));
  mr_barrier(comm);
  tb_free(send);
  tb_free(recv);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(a_bad_config_is_refused_naming_its_field) {
  MR_COMM(comm);
  int32_t *buf = tb_alloc(COUNT * sizeof(int32_t));
  CHECK(buf);
  ncore_coll_config_t config = NCORE_COLL_CONFIG_INIT;
  config.struct_size = 2;
  CHECK_STATUS(ncore_allreduce_config(comm, buf, buf, COUNT, NCORE_INT32, NCORE_SUM,
                                      NULL, &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_allreduce_config: config");
  config = (ncore_coll_config_t)NCORE_COLL_CONFIG_INIT;
  config.force_alg_selection = 2;
  CHECK_STATUS(ncore_broadcast_config(comm, buf, buf, COUNT, NCORE_INT32, 0, NULL,
                                      &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("config.force_alg_selection: 2 is not 0 or 1");
  config = (ncore_coll_config_t)NCORE_COLL_CONFIG_INIT;
  config.vendor_option_count = 1;
  CHECK_STATUS(ncore_allgather_config(comm, buf, buf, 0, NCORE_INT32, NULL, &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("config.vendor_options: NULL");
  ncore_vendor_option_t options[2] = {
      {7, 1, NCORE_VENDOR_OPTION_INT, 5, NULL, NULL},
      {7, 1, NCORE_VENDOR_OPTION_RAW, 0, NULL, &config},
  };
  config.vendor_options = options;
  config.vendor_option_count = 2;
  CHECK_STATUS(ncore_allreduce_config(comm, buf, buf, COUNT, NCORE_INT32, NCORE_SUM,
                                      NULL, &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("keys must be unique");
  options[1].option_id = 2;
  options[1].vendor_id = 1 << 24;
  CHECK_STATUS(ncore_allreduce_config(comm, buf, buf, COUNT, NCORE_INT32, NCORE_SUM,
                                      NULL, &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("config.vendor_options[1].vendor_id");
  options[1].vendor_id = 8;
  options[1].kind = NCORE_VENDOR_OPTION_STRING;
  CHECK_STATUS(ncore_allreduce_config(comm, buf, buf, COUNT, NCORE_INT32, NCORE_SUM,
                                      NULL, &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("config.vendor_options[1].str_value");
  options[1].kind = 9;
  CHECK_STATUS(ncore_allreduce_config(comm, buf, buf, COUNT, NCORE_INT32, NCORE_SUM,
                                      NULL, &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("config.vendor_options[1].kind");
  /* The plain call's own checks still come first for the twin. */
  config = (ncore_coll_config_t)NCORE_COLL_CONFIG_INIT;
  CHECK_STATUS(ncore_scatter_config(comm, buf, buf, COUNT, NCORE_INT32, nranks, NULL,
                                    &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_scatter_config: root");
  /* Nothing was issued: the ranks still agree on the next collective. */
  CHECK_OK(ncore_allreduce_config(comm, buf, buf, COUNT, NCORE_INT32, NCORE_SUM, NULL,
                                  &config));
  mr_barrier(comm);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(the_host_backend_refuses_a_launch_completion_event) {
  REQUIRE_HOST_BACKEND("a launch-completion event is a CUDA event; on NCCL it "
                       "is recorded (tests/unit/test_nccl_versions.c)");
  MR_COMM(comm);
  int32_t *buf = tb_alloc(COUNT * sizeof(int32_t));
  CHECK(buf);
  ncore_coll_config_t config = NCORE_COLL_CONFIG_INIT;
  config.launch_completion_event = &config; /* any non-NULL handle */
  CHECK_STATUS(ncore_allreduce_config(comm, buf, buf, COUNT, NCORE_INT32, NCORE_SUM,
                                      NULL, &config),
               NCORE_ERR_NOT_SUPPORTED);
  CHECK_MESSAGE_CONTAINS("config.launch_completion_event: a CUDA event");
  CHECK_MESSAGE_CONTAINS("host backend");
  config.launch_completion_event = NULL;
  CHECK_OK(ncore_allreduce_config(comm, buf, buf, COUNT, NCORE_INT32, NCORE_SUM, NULL,
                                  &config));
  mr_barrier(comm);
  tb_free(buf);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(a_config_is_read_for_the_call_only_inside_a_group) {
  MR_COMM(comm);
  int32_t *a = tb_alloc(COUNT * sizeof(int32_t)), *b = tb_alloc(COUNT * sizeof(int32_t));
  int32_t ones[COUNT], got[COUNT];
  CHECK(a && b);
  for (int i = 0; i < COUNT; i++) ones[i] = 1;
  tb_put(a, ones, sizeof ones);
  tb_put(b, ones, sizeof ones);
  CHECK_OK(ncore_group_start());
  {
    ncore_coll_config_t config = tuned("auto"); /* gone before the group ends */
    CHECK_OK(ncore_allreduce_config(comm, a, a, COUNT, NCORE_INT32, NCORE_SUM, NULL,
                                    &config));
    memset(&config, 0xff, sizeof config);
  }
  CHECK_OK(ncore_allreduce(comm, b, b, COUNT, NCORE_INT32, NCORE_SUM, NULL));
  CHECK_OK(ncore_group_end());
  CHECK_OK(ncore_stream_synchronize(NULL, harness_backend()));
  tb_get(got, a, sizeof got);
  for (int i = 0; i < COUNT; i++) CHECK_EQ(got[i], nranks);
  tb_get(got, b, sizeof got);
  for (int i = 0; i < COUNT; i++) CHECK_EQ(got[i], nranks);
  mr_barrier(comm);
  tb_free(a);
  tb_free(b);
  CHECK_OK(ncore_comm_destroy(comm));
}

HARNESS_MAIN
