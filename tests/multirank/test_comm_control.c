/* Multi-rank tests of communicator control (ncore/comm_control.h):
 * properties, revoke, suspend / resume, memory statistics, grow and its
 * unique id, scalable init; and the fields ABI 1.1 and 1.2 appended to the
 * config, the properties, the device-communicator requirements and the
 * window flags. On NCCL each
 * call either works or answers NOT_SUPPORTED naming the NCCL version it
 * needs (the same on every rank: it depends on the loaded library only).
 * Usage: test_comm_control NRANKS. */
#include <string.h>

#include "multirank.h"
#include "testbuf.h"

/* Sums v over comm with a one-element int64 allreduce. */
static int64_t sum_over(ncore_comm_t comm, int64_t v) {
  int64_t *buf = tb_alloc(sizeof v);
  int64_t out = -1;
  CHECK(buf);
  tb_put(buf, &v, sizeof v);
  CHECK_OK(ncore_allreduce(comm, buf, buf, 1, NCORE_INT64, NCORE_SUM, NULL));
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  tb_get(&out, buf, sizeof out);
  tb_free(buf);
  return out;
}

/* Broadcasts a unique id (and a status) from root over comm. */
static void share_id(ncore_comm_t comm, int root, ncore_unique_id_t *id,
                     int32_t *status) {
  size_t bytes = sizeof *id + sizeof *status;
  unsigned char *buf = tb_alloc(bytes);
  unsigned char host[sizeof *id + sizeof *status];
  CHECK(buf);
  memcpy(host, id, sizeof *id);
  memcpy(host + sizeof *id, status, sizeof *status);
  tb_put(buf, host, bytes);
  CHECK_OK(ncore_broadcast(comm, buf, buf, bytes, NCORE_UINT8, root, NULL));
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  tb_get(host, buf, bytes);
  memcpy(id, host, sizeof *id);
  memcpy(status, host + sizeof *id, sizeof *status);
  tb_free(buf);
}

/* On NCCL a call that needs a newer NCCL answers NOT_SUPPORTED naming the
 * version; returns 1 (the caller skips the rest) when that happened. */
static int not_supported_here(ncore_status_t status, const char *version) {
  if (status != NCORE_ERR_NOT_SUPPORTED) return 0;
  const char *message = ncore_last_error_message();
  if (harness_is_host() || strstr(message, version) == NULL)
    harness_fail(__FILE__, __LINE__,
                 "NOT_SUPPORTED (\"%s\") on %s, expected only on NCCL older "
                 "than %s", message, harness_is_host() ? "host" : "NCCL",
                 version);
  return 1;
}

MR_TEST(properties_describe_the_communicator) {
  MR_COMM(comm);
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  CHECK_OK(ncore_comm_properties(comm, &props));
  CHECK_EQ(props.struct_size, (uint32_t)sizeof props);
  CHECK_EQ(props.rank, rank);
  CHECK_EQ(props.nranks, nranks);
  int device = -2, lsa_size = 0;
  CHECK_OK(ncore_comm_device(comm, &device));
  CHECK_OK(ncore_comm_lsa_size(comm, &lsa_size));
  CHECK_EQ(props.cuda_device, device);
  CHECK_EQ(props.n_lsa_teams, nranks / lsa_size);
  ncore_gin_type_t gin = NCORE_GIN_TYPE_NONE;
  CHECK_OK(ncore_comm_gin_type(comm, &gin));
  CHECK_EQ(props.gin_type, (int32_t)gin);
  CHECK(props.device_api_support == 0 || props.device_api_support == 1);
  CHECK(props.host_rma_support == 0 || props.host_rma_support == 1);
  if (harness_is_host()) {
    CHECK_EQ(props.nvml_device, -1);
    CHECK_EQ(props.device_api_support, 1);
    CHECK_EQ(props.multimem_support, 0);
    CHECK_EQ(props.gin_type, NCORE_GIN_TYPE_NONE);
    CHECK_EQ(props.n_lsa_teams, 1);
    CHECK_EQ(props.host_rma_support, 1);
  }
  /* An older caller's shorter struct: only its fields are written. */
  struct {
    ncore_comm_properties_t props;
    unsigned char guard[8];
  } old;
  memset(&old, 0xAB, sizeof old);
  old.props.struct_size =
      (uint32_t)offsetof(ncore_comm_properties_t, cuda_device);
  CHECK_OK(ncore_comm_properties(comm, &old.props));
  CHECK_EQ(old.props.rank, rank);
  CHECK_EQ(old.props.nranks, nranks);
  CHECK_EQ(old.props.cuda_device, (int32_t)0xABABABAB);
  CHECK_STATUS(ncore_comm_properties(comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("out");
  props.struct_size = 2;
  CHECK_STATUS(ncore_comm_properties(comm, &props), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("struct_size");
  CHECK_OK(ncore_comm_destroy(comm));
  props.struct_size = (uint32_t)sizeof props;
  CHECK_STATUS(ncore_comm_properties(comm, &props), NCORE_ERR_CLOSED);
}

/* Rank 0's value of v, broadcast over comm. */
static uint64_t root_value(ncore_comm_t comm, uint64_t v) {
  uint64_t *buf = tb_alloc(sizeof v);
  CHECK(buf);
  tb_put(buf, &v, sizeof v);
  CHECK_OK(ncore_broadcast(comm, buf, buf, 1, NCORE_UINT64, 0, NULL));
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  tb_get(&v, buf, sizeof v);
  tb_free(buf);
  return v;
}

MR_TEST(properties_of_nccl_2_31_and_2_32) {
  MR_COMM(comm);
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  CHECK_OK(ncore_comm_properties(comm, &props));
  /* The hash names the communicator: one value on all its ranks, another
   * for a split of it. 0 only from an NCCL older than 2.31. */
  CHECK_EQ(root_value(comm, props.comm_hash), props.comm_hash);
  ncore_comm_t child = NCORE_NULL_HANDLE;
  CHECK_OK(harness_settle(ncore_comm_split(comm, 0, rank, &child, NULL)));
  ncore_comm_properties_t child_props = NCORE_COMM_PROPERTIES_INIT;
  CHECK_OK(ncore_comm_properties(child, &child_props));
  CHECK_EQ(root_value(child, child_props.comm_hash), child_props.comm_hash);
  if (props.comm_hash != 0) CHECK(child_props.comm_hash != props.comm_hash);
  CHECK_OK(ncore_comm_destroy(child));
  CHECK(props.cft_support >= -1 && props.cft_support <= 1);
  if (harness_is_host()) {
    CHECK(props.comm_hash != 0);
    /* No GIN, no CFT, no NCCL device communicator on one host. */
    CHECK_EQ(props.gin_connection_type, NCORE_GIN_CONNECTION_NONE);
    CHECK_EQ(props.gin_min_stride, 0);
    CHECK_EQ(props.available_gin_types, 0u);
    CHECK_EQ(props.dev_comm_runtime_version_size, 0u);
    CHECK_EQ(props.cft_support, 0);
    CHECK_EQ(props.cft_multicast_support, 0);
    CHECK_EQ(props.cft_counted_support, 0);
  } else {
    CHECK(props.dev_comm_runtime_version_size > 0);
  }
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(revoke_leaves_split_shrink_and_destroy) {
  MR_COMM(comm);
  CHECK_STATUS(ncore_comm_revoke(comm, 7u), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("flags");
  ncore_status_t s = ncore_comm_revoke(comm, NCORE_REVOKE_DEFAULT);
  if (not_supported_here(s, "2.28.7")) {
    CHECK_OK(ncore_comm_destroy(comm));
    return;
  }
  CHECK_EQ(s, NCORE_OK);
  int64_t *buf = tb_alloc(8);
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 1, NCORE_INT64, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("revoked");
  tb_free(buf);
  CHECK_STATUS(ncore_comm_revoke(comm, NCORE_REVOKE_DEFAULT),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("revoked");
  CHECK_STATUS(ncore_comm_finalize(comm), NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("revoked");
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  CHECK_OK(ncore_comm_properties(comm, &props)); /* queries remain */
  /* The survivors go on: a shrink excluding nobody copies the comm. */
  ncore_comm_t next = NCORE_NULL_HANDLE;
  CHECK_OK(harness_settle(
      ncore_comm_shrink(comm, NULL, 0, &next, NULL, NCORE_SHRINK_DEFAULT)));
  if (next != NCORE_NULL_HANDLE) {
    mr_track(next);
    CHECK_EQ(sum_over(next, rank + 1), (int64_t)nranks * (nranks + 1) / 2);
    CHECK_OK(ncore_comm_destroy(next));
  }
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_comm_revoke(comm, NCORE_REVOKE_DEFAULT), NCORE_ERR_CLOSED);
}

MR_TEST(suspend_refuses_calls_until_resume) {
  MR_COMM(comm);
  CHECK_STATUS(ncore_comm_suspend(comm, 4u), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("flags");
  CHECK_STATUS(ncore_comm_resume(comm), NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("not suspended");
  ncore_status_t s = ncore_comm_suspend(comm, NCORE_SUSPEND_MEM);
  if (not_supported_here(s, "2.29.7")) {
    CHECK_STATUS(ncore_comm_resume(comm), NCORE_ERR_INVALID_USAGE);
    CHECK_OK(ncore_comm_destroy(comm));
    return;
  }
  CHECK_EQ(s, NCORE_OK);
  int64_t *buf = tb_alloc(8);
  CHECK_STATUS(ncore_allreduce(comm, buf, buf, 1, NCORE_INT64, NCORE_SUM, NULL),
               NCORE_ERR_INVALID_USAGE);
  CHECK_MESSAGE_CONTAINS("suspended");
  tb_free(buf);
  CHECK_STATUS(ncore_comm_suspend(comm, NCORE_SUSPEND_MEM),
               NCORE_ERR_INVALID_USAGE);
  uint64_t value = 99;
  CHECK_OK(ncore_comm_mem_stat(comm, NCORE_COMM_MEM_STAT_GPU_MEM_SUSPENDED,
                               &value));
  if (harness_is_host()) CHECK_EQ(value, 0u);
  else CHECK_EQ(value, 1u);
  CHECK_OK(ncore_comm_resume(comm));
  CHECK_EQ(sum_over(comm, rank + 1), (int64_t)nranks * (nranks + 1) / 2);
  CHECK_OK(ncore_comm_destroy(comm));
}

MR_TEST(mem_stat_reports_and_checks) {
  MR_COMM(comm);
  uint64_t total = 0, persist = 0, suspendable = 7;
  ncore_status_t s =
      ncore_comm_mem_stat(comm, NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL, &total);
  if (!not_supported_here(s, "2.29.7")) {
    CHECK_EQ(s, NCORE_OK);
    CHECK(total > 0);
    CHECK_OK(ncore_comm_mem_stat(comm, NCORE_COMM_MEM_STAT_GPU_MEM_PERSIST,
                                 &persist));
    CHECK_OK(ncore_comm_mem_stat(comm, NCORE_COMM_MEM_STAT_GPU_MEM_SUSPEND,
                                 &suspendable));
    CHECK(persist <= total && suspendable <= total);
    if (harness_is_host()) {
      CHECK_EQ(persist, total);
      CHECK_EQ(suspendable, 0u);
    }
  }
  CHECK_STATUS(ncore_comm_mem_stat(comm, (ncore_comm_mem_stat_t)9, &total),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("stat");
  CHECK_STATUS(ncore_comm_mem_stat(comm, NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL,
                                   NULL),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("out");
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Ranks 0..n-2 form a communicator; rank n-1 joins it through a grow. */
MR_TEST(grow_adds_a_rank) {
  MR_COMM(world);
  int joiner = nranks - 1;
  ncore_comm_t old = NCORE_NULL_HANDLE;
  CHECK_OK(harness_settle(ncore_comm_split(
      world, rank == joiner ? NCORE_SPLIT_NOCOLOR : 0, rank, &old, NULL)));
  if (old != NCORE_NULL_HANDLE) mr_track(old);
  ncore_unique_id_t gid;
  memset(&gid, 0, sizeof gid);
  int32_t made = NCORE_OK;
  if (rank == 0) {
    CHECK_STATUS(ncore_comm_get_unique_id(old, NULL),
                 NCORE_ERR_INVALID_ARGUMENT);
    made = ncore_comm_get_unique_id(old, &gid);
    if (made == NCORE_OK) {
      ncore_unique_id_t second;
      CHECK_STATUS(ncore_comm_get_unique_id(old, &second),
                   NCORE_ERR_INVALID_USAGE);
      CHECK_MESSAGE_CONTAINS("not consumed");
    } else {
      CHECK(not_supported_here((ncore_status_t)made, "2.29.2"));
    }
  }
  share_id(world, 0, &gid, &made);
  if (made != NCORE_OK) {
    if (old != NCORE_NULL_HANDLE) CHECK_OK(ncore_comm_destroy(old));
    CHECK_OK(ncore_comm_destroy(world));
    return;
  }
  ncore_comm_config_t config = mr_config();
  ncore_comm_t grown = NCORE_NULL_HANDLE;
  if (rank == joiner) {
    CHECK_STATUS(ncore_comm_grow(NCORE_NULL_HANDLE, nranks, NULL, rank, &grown,
                                 &config),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("id");
    CHECK_STATUS(ncore_comm_grow(NCORE_NULL_HANDLE, nranks, &gid, nranks,
                                 &grown, &config),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("rank");
    CHECK_OK(harness_settle(ncore_comm_grow(NCORE_NULL_HANDLE, nranks, &gid,
                                            rank, &grown, &config)));
  } else {
    CHECK_STATUS(ncore_comm_grow(old, nranks, NULL, rank, &grown, NULL),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("rank");
    CHECK_STATUS(ncore_comm_grow(old, nranks - 1, NULL, -1, &grown, NULL),
                 NCORE_ERR_INVALID_ARGUMENT);
    CHECK_MESSAGE_CONTAINS("nranks");
    CHECK_OK(harness_settle(ncore_comm_grow(
        old, nranks, rank == 0 ? &gid : NULL, -1, &grown, NULL)));
  }
  CHECK(grown != NCORE_NULL_HANDLE);
  if (grown != NCORE_NULL_HANDLE) {
    mr_track(grown);
    int r = -1, n = -1;
    CHECK_OK(ncore_comm_rank(grown, &r));
    CHECK_OK(ncore_comm_size(grown, &n));
    CHECK_EQ(r, rank); /* existing ranks keep theirs; the joiner is last */
    CHECK_EQ(n, nranks);
    CHECK_EQ(sum_over(grown, rank + 1), (int64_t)nranks * (nranks + 1) / 2);
    CHECK_OK(ncore_comm_destroy(grown));
  }
  if (old != NCORE_NULL_HANDLE) CHECK_OK(ncore_comm_destroy(old));
  CHECK_OK(ncore_comm_destroy(world));
}

/* Every rank makes an id; all of them bootstrap one communicator. */
MR_TEST(init_rank_scalable_with_several_ids) {
  MR_COMM(world);
  ncore_comm_t c = NCORE_NULL_HANDLE;
  ncore_comm_config_t config = mr_config();
  CHECK_STATUS(ncore_comm_init_rank_scalable(&c, nranks, rank, 0, id, &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("id_count");
  CHECK_STATUS(ncore_comm_init_rank_scalable(&c, nranks, rank, 1, NULL,
                                             &config),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ids");
  ncore_unique_id_t ids[2];
  int32_t made = NCORE_OK;
  for (int root = 0; root < 2; root++) {
    if (rank == root)
      made = ncore_get_unique_id(&ids[root], harness_backend());
    share_id(world, root, &ids[root], &made);
    CHECK_EQ(made, NCORE_OK);
  }
  CHECK_OK(harness_settle(
      ncore_comm_init_rank_scalable(&c, nranks, rank, 2, ids, &config)));
  if (c != NCORE_NULL_HANDLE) {
    mr_track(c);
    CHECK_EQ(sum_over(c, rank + 1), (int64_t)nranks * (nranks + 1) / 2);
    CHECK_OK(ncore_comm_destroy(c));
  }
  CHECK_OK(ncore_comm_destroy(world));
}

/* Fields ABI 1.1 appended: accepted on the host backend and by an NCCL that
 * knows them; refused, naming field and version, by an older NCCL. */
/* Inits a communicator with config and, where that works, checks it
 * communicates and destroys it; returns init's status. */
static ncore_status_t init_and_use(const ncore_comm_config_t *config,
                                   int rank, int nranks,
                                   const ncore_unique_id_t *id) {
  ncore_comm_t c = NCORE_NULL_HANDLE;
  ncore_status_t s = harness_settle(
      ncore_comm_init_rank(&c, nranks, id, rank, config));
  if (s == NCORE_OK && c != NCORE_NULL_HANDLE) {
    mr_track(c);
    CHECK_EQ(sum_over(c, rank + 1), (int64_t)nranks * (nranks + 1) / 2);
    CHECK_OK(ncore_comm_destroy(c));
  }
  return s;
}

MR_TEST(newer_config_fields) {
  ncore_comm_config_t config = mr_config();
  CHECK_EQ(config.graph_usage_mode, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(config.max_p2p_peers, NCORE_CONFIG_UNDEF_INT);
  config.num_rma_ctx = 1;
  ncore_status_t s = init_and_use(&config, rank, nranks, id);
  if (not_supported_here(s, "2.29.0")) {
    CHECK_MESSAGE_CONTAINS("num_rma_ctx");
    return;
  }
  CHECK_EQ(s, NCORE_OK);
}

/* ABI 1.2's config fields (NCCL 2.31 / 2.32): on NCCL passed where the
 * loaded version has them, else refused naming the first one and 2.31.0;
 * the host backend accepts and ignores them. */
MR_TEST(config_fields_of_nccl_2_31_and_2_32) {
  ncore_comm_config_t config = mr_config();
  CHECK_EQ(config.launch_order_implicit, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(config.nvls_host_mode, NCORE_CONFIG_UNDEF_INT);
  config.launch_order_implicit = 1;
  config.num_rma_sig = 4;
  config.rma_eager_init = 0;
  config.host_cft_mode = NCORE_HOST_CFT_DISABLE;
  config.nvls_host_mode = NCORE_NVLS_HOST_MODE_DISABLE;
  ncore_status_t s = init_and_use(&config, rank, nranks, id);
  if (not_supported_here(s, "2.31.0")) {
    CHECK_MESSAGE_CONTAINS("launch_order_implicit");
    return;
  }
  if (not_supported_here(s, "2.32.0")) {
    CHECK_MESSAGE_CONTAINS("nvls_host_mode");
    return;
  }
  CHECK_EQ(s, NCORE_OK);
}

MR_TEST(newer_requirements_and_window_flag) {
  MR_COMM(comm);
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  CHECK_EQ(req.gin_context_count, NCORE_CONFIG_UNDEF_INT);
  CHECK_EQ(req.gin_queue_depth, NCORE_CONFIG_UNDEF_INT);
  ncore_dev_comm_t dc = NCORE_NULL_HANDLE;
  req.gin_strong_signals_required = 2;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("gin_strong_signals_required");
  req.gin_strong_signals_required = NCORE_CONFIG_UNDEF_INT;
  req.gin_queue_depth = -3;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("gin_queue_depth");
  req.gin_queue_depth = NCORE_CONFIG_UNDEF_INT;
  /* Over several LSA teams a device communicator needs GIN (NCCL ranks
   * oversubscribed on one GPU have none): then only the checks above. */
  ncore_status_t s = harness_settle(ncore_create_dev_comm(&dc, comm, NULL));
  int devcomm_works = s == NCORE_OK;
  if (devcomm_works) {
    CHECK_OK(ncore_dev_comm_close(dc));
  } else {
    CHECK_EQ(s, NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("GIN");
  }
  req.world_gin_barrier_count = 0;
  s = devcomm_works ? ncore_create_dev_comm(&dc, comm, &req) : NCORE_OK;
  if (devcomm_works && !not_supported_here(s, "2.30.0")) {
    CHECK_OK(harness_settle(s));
    if (dc != NCORE_NULL_HANDLE) CHECK_OK(ncore_dev_comm_close(dc));
  } else if (devcomm_works) {
    CHECK_MESSAGE_CONTAINS("world_gin_barrier_count");
  }
  size_t bytes = 1 << 16;
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, bytes, harness_backend()));
  ncore_window_t w = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_register_window(&w, comm, mem, bytes, 16u),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("flags");
  /* ABI 1.2's flags: NCCL 2.32+; the host backend takes GIN_ONLY (its
   * one-sided calls are its GIN) and has no CFT. */
  s = ncore_register_window(&w, comm, mem, bytes, NCORE_WINDOW_GIN_ONLY);
  if (!not_supported_here(s, "2.32.0")) {
    CHECK_OK(harness_settle(s));
    uint32_t flags = 0;
    CHECK_OK(ncore_window_flags(w, &flags));
    CHECK_EQ(flags, NCORE_WINDOW_GIN_ONLY);
    CHECK_OK(ncore_window_close(w));
  }
  s = ncore_register_window(&w, comm, mem, bytes, NCORE_WINDOW_CFT_COUNTED);
  if (harness_is_host()) {
    CHECK_STATUS(s, NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("NCORE_WINDOW_CFT_COUNTED");
    CHECK_EQ(w, NCORE_NULL_HANDLE);
  } else if (!not_supported_here(s, "2.32.0")) {
    /* CFT needs CUDA 13.3 logical endpoints: NCCL decides. */
    if (harness_settle(s) == NCORE_OK) CHECK_OK(ncore_window_close(w));
  }
  s = ncore_register_window(&w, comm, mem, bytes,
                            NCORE_WINDOW_STRICT_ORDERING);
  if (!not_supported_here(s, "2.29.7")) {
    CHECK_OK(harness_settle(s));
    uint32_t flags = 0;
    CHECK_OK(ncore_window_flags(w, &flags));
    CHECK_EQ(flags, NCORE_WINDOW_STRICT_ORDERING);
    CHECK_OK(ncore_window_close(w));
  }
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, harness_backend()));
}

HARNESS_MAIN
