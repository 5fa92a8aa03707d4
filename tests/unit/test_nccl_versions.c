/* The NCCL backend's version dispatch, against the test double of libnccl
 * (tests/fake_nccl) pretending to be NCCL FAKE_NCCL_VERSION (each header
 * set tests/nccl-layouts/header-sets.sh lists), compiled against that
 * version's real headers: what ncore
 * passes (struct size, magic, version, field values), what it reads back
 * (ncclDevComm fields, properties), which calls it makes, and what it
 * refuses with the version needed, and what the hot path costs in calls
 * (one NCCL call and no driver call per send, recv or collective).
 * tests/fake_nccl/run.sh runs it once per version; run any other way it
 * skips, saying why. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/launch_vars.h"
#include "fake_driver.h"
#include "unit_comm.h"

/* Expects NOT_SUPPORTED naming `needed` when the fake is older than
 * `since`, else `ok_status`; returns 1 when the call was supported. */
static int supported(ncore_status_t status, int since, const char *needed) {
  if (version < since) {
    if (status != NCORE_ERR_NOT_SUPPORTED ||
        strstr(ncore_last_error_message(), needed) == NULL)
      harness_fail(__FILE__, __LINE__,
                   "NCCL %d: expected NOT_SUPPORTED naming %s, got %s (%s)",
                   version, needed, ncore_status_string(status),
                   ncore_last_error_message());
    return 0;
  }
  if (status != NCORE_OK)
    harness_fail(__FILE__, __LINE__, "NCCL %d: expected OK, got %s (%s)",
                 version, ncore_status_string(status),
                 ncore_last_error_message());
  return 1;
}

TEST(config_goes_in_the_loaded_versions_layout) {
  REQUIRE_FAKE();
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.cta_policy = 1;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(unit_comm1(&comm, &config));
  CHECK_EQ(record("config.magic"), 0xcafebeefLL);
  CHECK_EQ(record("config.version"), (long long)version);
  CHECK_EQ(record("config.size"), 120LL); /* ncclConfig_t of 2.32.3 */
  CHECK_EQ(record("config.CTAPolicy"), 1LL);
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(newer_config_fields_only_where_known) {
  REQUIRE_FAKE();
  const struct {
    size_t offset;
    const char *key, *needed;
    int since, value;
  } fields[] = {
      {offsetof(ncore_comm_config_t, num_rma_ctx), "config.numRmaCtx",
       "2.29.0", 22900, 3},
      {offsetof(ncore_comm_config_t, graph_usage_mode),
       "config.graphUsageMode", "2.29.0", 22900, 1},
      {offsetof(ncore_comm_config_t, max_p2p_peers), "config.maxP2pPeers",
       "2.30.0", 23000, 5},
      {offsetof(ncore_comm_config_t, graph_stream_ordering),
       "config.graphStreamOrdering", "2.30.5", 23005, 1},
      {offsetof(ncore_comm_config_t, launch_order_implicit),
       "config.launchOrderImplicit", "2.31.0", 23100, 1},
      {offsetof(ncore_comm_config_t, num_rma_sig), "config.numRmaSig",
       "2.31.0", 23100, 6},
      {offsetof(ncore_comm_config_t, rma_eager_init), "config.rmaEagerInit",
       "2.31.0", 23100, 1},
      {offsetof(ncore_comm_config_t, host_cft_mode), "config.hostCftMode",
       "2.31.1", 23101, NCORE_HOST_CFT_DISABLE},
      {offsetof(ncore_comm_config_t, nvls_host_mode), "config.nvlsHostMode",
       "2.32.0", 23200, NCORE_NVLS_HOST_MODE_DISABLE_TRANSPORT},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
    memcpy((char *)&config + fields[i].offset, &fields[i].value,
           sizeof(int32_t));
    ncore_comm_t comm = NCORE_NULL_HANDLE;
    if (supported(unit_comm1(&comm, &config), fields[i].since,
                  fields[i].needed)) {
      CHECK_EQ(record(fields[i].key), (long long)fields[i].value);
      CHECK_OK(ncore_comm_destroy(comm));
    } else {
      CHECK_EQ(comm, NCORE_NULL_HANDLE);
    }
  }
}

TEST(dev_comm_requirements_and_info_per_version) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.gin_signal_count = 7;
  ncore_dev_comm_t dc = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_create_dev_comm(&dc, comm, &req));
  CHECK_EQ(record("reqs.ginContextCount"), 4LL); /* UNDEF: NCCL's default */
  CHECK_EQ(record("reqs.ginSignalCount"), 7LL);
  if (version >= 22902) {
    CHECK_EQ(record("reqs.magic"), 0xcafebeefLL);
    CHECK_EQ(record("reqs.version"), (long long)version);
    CHECK_EQ(record("reqs.size"), version >= 23000 ? 96LL
                                  : version >= 22905 ? 88LL : 72LL);
  }
  ncore_dev_comm_info_t info = NCORE_DEV_COMM_INFO_INIT;
  CHECK_OK(ncore_dev_comm_info(dc, &info));
  CHECK_EQ(info.rank, 0);
  CHECK_EQ(info.nranks, 1);
  CHECK_EQ(info.lsa_rank, 0);
  CHECK_EQ(info.lsa_size, 1);
  CHECK_EQ(info.gin_signal_count, 107); /* the fake wrote requested + 100 */
  CHECK_EQ(info.gin_counter_count, 13);
  CHECK_EQ(info.gin_context_count, version >= 22905 ? 204 : 0);
  CHECK_OK(ncore_dev_comm_close(dc));
  /* Fields of newer NCCLs: passed where known, refused by name otherwise. */
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.gin_queue_depth = 2;
  if (supported(ncore_create_dev_comm(&dc, comm, &req), 22905, "2.29.5")) {
    CHECK_EQ(record("reqs.ginQueueDepth"), 2LL);
    CHECK_OK(ncore_dev_comm_close(dc));
  } else {
    CHECK_MESSAGE_CONTAINS("gin_queue_depth");
  }
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.world_gin_barrier_count = 3;
  if (supported(ncore_create_dev_comm(&dc, comm, &req), 23000, "2.30.0")) {
    CHECK_EQ(record("reqs.worldGinBarrierCount"), 3LL);
    CHECK_OK(ncore_dev_comm_close(dc));
  }
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.gin_strong_signals_required = 0;
  if (supported(ncore_create_dev_comm(&dc, comm, &req), 23007, "2.30.7")) {
    CHECK_EQ(record("reqs.ginStrongSignalsRequired"), 0LL);
    CHECK_OK(ncore_dev_comm_close(dc));
  }
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(properties_from_ncclCommQueryProperties) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  CHECK_OK(ncore_comm_properties(comm, &props));
  CHECK_EQ(props.rank, 0);
  CHECK_EQ(props.nranks, 1);
  CHECK_EQ(props.cuda_device, 0);
  CHECK_EQ(props.nvml_device, version >= 22902 ? 5 : -1);
  CHECK_EQ(props.device_api_support, 1);
  CHECK_EQ(props.host_rma_support, version >= 22902 ? 1 : 0);
  if (version >= 22902) {
    CHECK_EQ(record("props.magic"), 0xcafebeefLL);
    CHECK_EQ(record("props.size"), version >= 23100   ? 144LL
                                   : version >= 22905 ? 56LL
                                                      : 40LL);
    CHECK_EQ(record("props.version"),
             (long long)(version < 23102 ? version : 23102));
  } else {
    CHECK_EQ(record("calls.ncclCommQueryProperties"), -1LL);
  }
  /* The fields of 2.31 (the double answers rank + 1000 for the hash, stride
   * 2, FULL, GIN types 0 and 2, a 4096-byte device communicator), older:
   * zero but the device communicator's size, the loaded layout's; CFT is
   * unknown from 2.32 on (a layout ncore does not read yet). */
  if (version >= 23100) {
    CHECK_EQ(props.comm_hash, 1000u);
    CHECK_EQ(props.gin_min_stride, 2);
    CHECK_EQ(props.gin_connection_type, NCORE_GIN_CONNECTION_FULL);
    CHECK_EQ(props.available_gin_types, 0x5u);
    CHECK_EQ(props.dev_comm_runtime_version_size, 4096u);
  } else {
    CHECK_EQ(props.comm_hash, 0u);
    CHECK_EQ(props.gin_min_stride, 0);
    CHECK_EQ(props.gin_connection_type, NCORE_GIN_CONNECTION_NONE);
    CHECK_EQ(props.available_gin_types, 0u);
    CHECK_EQ(props.dev_comm_runtime_version_size,
             version >= 23000 ? 240u : version >= 22905 ? 224u : 200u);
  }
  int cft = version >= 23200 ? -1 : 0;
  CHECK_EQ(props.cft_support, cft);
  CHECK_EQ(props.cft_multicast_support, cft);
  CHECK_EQ(props.cft_counted_support, cft);
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(communicator_control_per_version) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  ncore_unique_id_t id;
  if (supported(ncore_comm_get_unique_id(comm, &id), 22902, "2.29.2")) {
    CHECK_EQ((unsigned char)id.internal[0], 0x5a);
    CHECK_STATUS(ncore_comm_get_unique_id(comm, &id), NCORE_ERR_INVALID_USAGE);
  }
  if (supported(ncore_comm_suspend(comm, NCORE_SUSPEND_MEM), 22907,
                "2.29.7")) {
    CHECK_EQ(record("suspend.flags"), 1LL);
    uint64_t v = 0;
    CHECK_OK(ncore_comm_mem_stat(comm, NCORE_COMM_MEM_STAT_GPU_MEM_SUSPENDED,
                                 &v));
    CHECK_EQ(v, 1u);
    CHECK_OK(ncore_comm_resume(comm));
    CHECK_OK(ncore_comm_mem_stat(comm, NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL, &v));
    CHECK_EQ(v, 12345u);
  } else {
    uint64_t v = 0;
    supported(ncore_comm_mem_stat(comm, NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL, &v),
              22907, "2.29.7");
  }
  /* Every version ncore runs on has ncclCommRevoke (2.28.7+). */
  CHECK_OK(ncore_comm_revoke(comm, NCORE_REVOKE_DEFAULT));
  CHECK_EQ(record("calls.ncclCommRevoke"), 1LL);
  CHECK_STATUS(ncore_comm_revoke(comm, NCORE_REVOKE_DEFAULT),
               NCORE_ERR_INVALID_USAGE);
  CHECK_EQ(record("calls.ncclCommRevoke"), 1LL);
  CHECK_OK(ncore_comm_destroy(comm));
}

/* ncore_library_info names the loaded double, its version, and the CUDA
 * version its banner says it was built with ("+cuda12.9"). */
TEST(library_info_reads_the_cuda_version_of_the_loaded_libnccl) {
  REQUIRE_FAKE();
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  CHECK_OK(ncore_library_info(&info));
  CHECK_EQ(info.nccl_version, version);
  CHECK_EQ(info.nccl_cuda_version, 12090);
  CHECK(info.nccl_headers_version >= 23007);
}

/* Parameters (ncore/params.h): NCCL's own on 2.30+, set or not; the
 * environment's NCCL_* / NCORE_* variables before. */
TEST(params_from_nccl_2_30_or_the_environment) {
  REQUIRE_FAKE();
  setenv("NCCL_ONLY_IN_ENV", "x", 1);
  char value[64] = {0}, keys[4096] = {0};
  size_t n = 0;
  ncore_status_t fake_param = ncore_param_get("NCCL_FAKE_PARAM", value, sizeof value, &n);
  ncore_status_t only_env = ncore_param_get("NCCL_ONLY_IN_ENV", value, sizeof value, &n);
  char why[256];
  snprintf(why, sizeof why, "%s", ncore_last_error_message());
  CHECK_OK(ncore_param_keys(keys, sizeof keys, &n));
  if (version >= 23000) {
    CHECK_OK(fake_param);
    CHECK_STATUS(only_env, NCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(why, "no parameter NCCL_ONLY_IN_ENV") != NULL);
    CHECK_OK(ncore_param_get("NCCL_FAKE_PARAM", value, sizeof value, &n));
    CHECK(strcmp(value, "42") == 0 && n == 2);
    CHECK(strcmp(keys, "NCCL_DEBUG\nNCCL_FAKE_PARAM\n") == 0);
    CHECK(record("calls.ncclParamGetParameter") >= 2);
  } else {
    CHECK_STATUS(fake_param, NCORE_ERR_INVALID_ARGUMENT);
    CHECK_OK(only_env);
    CHECK_OK(ncore_param_get("NCCL_ONLY_IN_ENV", value, sizeof value, &n));
    CHECK(strcmp(value, "x") == 0);
    CHECK(strstr(keys, "NCCL_ONLY_IN_ENV\n") != NULL);
  }
  unsetenv("NCCL_ONLY_IN_ENV");
}

/* Team and resource requirements (ABI 1.2): ncore calls NCCL's helpers
 * with the caller's values, chains the nodes itself (teams merged by
 * value), and reads back the handles NCCL wrote through the nodes. */
TEST(dev_comm_team_and_resource_requirements_reach_nccl) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  ncore_team_t world;
  CHECK_OK(ncore_comm_team_world(comm, &world));
  ncore_dev_resource_requirement_t res[3] = {
      NCORE_DEV_RESOURCE_REQUIREMENT_INIT, NCORE_DEV_RESOURCE_REQUIREMENT_INIT,
      NCORE_DEV_RESOURCE_REQUIREMENT_INIT};
  res[0].kind = NCORE_DEV_RESOURCE_LSA_BARRIER;
  res[0].team = world;
  res[0].n_barriers = 3;
  res[1].kind = NCORE_DEV_RESOURCE_GIN_BARRIER;
  res[1].team = world;
  res[1].n_barriers = 2;
  res[2].kind = NCORE_DEV_RESOURCE_LL_A2A;
  res[2].n_blocks = 4;
  res[2].max_elements = 16;
  res[2].max_element_size = 12;
  ncore_team_requirement_t teams[2] = {NCORE_TEAM_REQUIREMENT_INIT,
                                       NCORE_TEAM_REQUIREMENT_INIT};
  teams[0].team = world;
  teams[1].team = world; /* the same team: one node, multimem if any asks */
  teams[1].multimem = 1;
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.resources = res;
  req.resource_count = 3;
  req.teams = teams;
  req.team_count = 2;
  ncore_dev_comm_t dc = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_create_dev_comm(&dc, comm, &req));
  CHECK_EQ(record("lsa_barrier.team"), 10001LL); /* {1, 0, 1} */
  CHECK_EQ(record("lsa_barrier.nBarriers"), 3LL);
  CHECK_EQ(record("gin_barrier.team"), 10001LL);
  CHECK_EQ(record("gin_barrier.nBarriers"), 2LL);
  CHECK_EQ(record("ll_a2a.maxElts"), 16LL);
  CHECK_EQ(record("ll_a2a.maxEltSize"), 12LL);
  CHECK_EQ(record("ll_a2a.nBlocks"), 4LL);
  CHECK_EQ(record("ll_a2a.nSlots"), 32LL); /* the fake's ncclLLA2ACalcSlots */
  CHECK_EQ(record("reqs.resources"), 3LL);
  CHECK_EQ(record("reqs.resource.0.bufferSize"), 12LL);
  CHECK_EQ(record("reqs.resource.1.ginSignalCount"), 2LL);
  CHECK_EQ(record("reqs.resource.2.bufferSize"), 4LL * 32 * 16);
  CHECK_EQ(record("reqs.teams"), 1LL);
  CHECK_EQ(record("reqs.team.0.nRanks"), 1LL);
  CHECK_EQ(record("reqs.team.0.stride"), 1LL);
  CHECK_EQ(record("reqs.team.0.multimem"), 1LL);
  ncore_dev_resource_handle_t h = NCORE_DEV_RESOURCE_HANDLE_INIT;
  CHECK_OK(ncore_dev_comm_resource_handle(dc, 0, &h));
  CHECK_EQ(h.kind, NCORE_DEV_RESOURCE_LSA_BARRIER);
  CHECK_EQ(h.buf_handle, 0x1000u);
  CHECK_EQ(h.n_barriers, 3);
  CHECK_OK(ncore_dev_comm_resource_handle(dc, 1, &h));
  CHECK_EQ(h.kind, NCORE_DEV_RESOURCE_GIN_BARRIER);
  CHECK_EQ(h.signal0, 501u);
  CHECK_EQ(h.buf_handle, 0u);
  CHECK_OK(ncore_dev_comm_resource_handle(dc, 2, &h));
  CHECK_EQ(h.kind, NCORE_DEV_RESOURCE_LL_A2A);
  CHECK_EQ(h.buf_handle, 0x3000u);
  CHECK_EQ(h.n_slots, 32u);
  /* An older caller's smaller struct: only its struct_size bytes written. */
  ncore_dev_resource_handle_t older;
  memset(&older, 0xa5, sizeof older);
  older.struct_size = offsetof(ncore_dev_resource_handle_t, n_slots);
  CHECK_OK(ncore_dev_comm_resource_handle(dc, 2, &older));
  CHECK_EQ(older.buf_handle, 0x3000u);
  CHECK_EQ(older.n_slots, 0xa5a5a5a5u);
  ncore_multimem_handle_t mm = NCORE_MULTIMEM_HANDLE_INIT;
  CHECK_OK(ncore_dev_comm_multimem_handle(dc, &world, &mm));
  CHECK_PTR_EQ(mm.mc_base_pointer, (void *)0x70000);
  /* The window's multicast address through the handle: NCCL's host getter
   * (2.29.2+); before it only a kernel knows, so ncore says which NCCL. */
  size_t bytes = 1 << 16;
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, bytes, NCORE_BACKEND_NCCL));
  ncore_window_t w = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_register_window(&w, comm, mem, bytes, NCORE_WINDOW_DEFAULT));
  void *p = NULL;
  if (supported(ncore_window_multimem_device_pointer(w, &mm, 64, &p), 22902,
                "2.29.2")) {
    CHECK_PTR_EQ(p, (void *)(0x70000 + 64));
    CHECK_EQ(record("calls.ncclGetMultimemDevicePointer"), 1LL);
  }
  CHECK_OK(ncore_window_close(w));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_dev_comm_close(dc));
  /* NCCL 2.32's fields: this layout ends before them, so refused. */
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.gin_custom_stride = 2;
  CHECK_STATUS(ncore_create_dev_comm(&dc, comm, &req), NCORE_ERR_NOT_SUPPORTED);
  CHECK_MESSAGE_CONTAINS("gin_custom_stride");
  CHECK_MESSAGE_CONTAINS("2.32");
  /* ABI 1.1's raw lists still pass through unchanged (a caller-built
   * struct ncclTeamRequirements). */
  struct {
    void *next;
    int n_ranks, rank, stride;
    _Bool multimem;
    void *out_multimem_handle;
  } raw_team = {NULL, 1, 0, 5, 0, NULL};
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.team_requirements_list = &raw_team;
  CHECK_OK(ncore_create_dev_comm(&dc, comm, &req));
  CHECK_EQ(record("reqs.resources"), 0LL);
  CHECK_EQ(record("reqs.teams"), 1LL);
  CHECK_EQ(record("reqs.team.0.stride"), 5LL);
  CHECK_OK(ncore_dev_comm_close(dc));
  CHECK_OK(ncore_comm_destroy(comm));
}

/* Multimem asked where NCCL reports no multicast (NCCL_NVLS_ENABLE=0): NCCL
 * itself answers ncclInvalidArgument; ncore says NOT_SUPPORTED naming the
 * field, before the call where NCCL's properties tell (2.29.2+), from
 * NCCL's answer on 2.28. */
TEST(multimem_without_nccl_multicast_is_not_supported) {
  REQUIRE_FAKE();
  setenv("FAKE_NCCL_NO_MULTIMEM", "1", 1);
  UNIT_COMM(comm);
  long long creates = record("calls.ncclDevCommCreate");
  if (creates < 0) creates = 0;
  ncore_team_t world;
  CHECK_OK(ncore_comm_team_world(comm, &world));
  ncore_team_requirement_t team = NCORE_TEAM_REQUIREMENT_INIT;
  team.team = world;
  team.multimem = 1;
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.teams = &team;
  req.team_count = 1;
  ncore_dev_comm_t dc = NCORE_NULL_HANDLE;
  ncore_status_t status = ncore_create_dev_comm(&dc, comm, &req);
  req = (ncore_dev_comm_requirements_t)NCORE_DEV_COMM_REQUIREMENTS_INIT;
  req.lsa_multimem = 1;
  ncore_dev_comm_t lsa = NCORE_NULL_HANDLE;
  ncore_status_t lsa_status = ncore_create_dev_comm(&lsa, comm, &req);
  unsetenv("FAKE_NCCL_NO_MULTIMEM");
  CHECK_EQ(status, NCORE_ERR_NOT_SUPPORTED);
  CHECK_EQ(lsa_status, NCORE_ERR_NOT_SUPPORTED);
  CHECK_MESSAGE_CONTAINS("lsa_multimem: NVLink multicast");
  long long made = record("calls.ncclDevCommCreate");
  CHECK_EQ((made < 0 ? 0 : made) - creates, version >= 22902 ? 0LL : 2LL);
  CHECK_OK(ncore_comm_destroy(comm));
}

TEST(windows_flags_and_host_pointer_getters) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  size_t bytes = 1 << 16;
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, bytes, NCORE_BACKEND_NCCL));
  ncore_window_t w = NCORE_NULL_HANDLE;
  if (supported(ncore_register_window(&w, comm, mem, bytes,
                                      NCORE_WINDOW_STRICT_ORDERING),
                22907, "2.29.7")) {
    CHECK_EQ(record("window.flags"), 2LL);
    CHECK_OK(ncore_window_close(w));
  }
  const uint32_t flags_of_2_32[] = {NCORE_WINDOW_GIN_ONLY,
                                    NCORE_WINDOW_CFT_COUNTED};
  for (size_t i = 0; i < 2; i++)
    if (supported(ncore_register_window(&w, comm, mem, bytes, flags_of_2_32[i]),
                  23200, "2.32.0")) {
      CHECK_EQ(record("window.flags"), (long long)flags_of_2_32[i]);
      CHECK_OK(ncore_window_close(w));
    } else {
      CHECK_MESSAGE_CONTAINS(i == 0 ? "NCORE_WINDOW_GIN_ONLY"
                                    : "NCORE_WINDOW_CFT_COUNTED");
    }
  if (version >= 22902) { /* 2.28: kernels, no host getters */
    CHECK_OK(ncore_register_window(&w, comm, mem, bytes, NCORE_WINDOW_DEFAULT));
    void *p = NULL;
    CHECK_OK(ncore_window_peer_device_pointer(w, 0, 64, &p));
    CHECK_PTR_EQ(p, (char *)mem + 64);
    CHECK(record("calls.ncclGetPeerDevicePointer") >= 1);
    /* A peer inside the LSA team (here: itself) takes ncore's own signal
     * path, not ncclSignal (NCORE_NCCL_SIGNAL_MODE=write, NCORE_NCCL_WAIT=stream: no kernel). */
    CHECK_OK(ncore_signal(comm, 0, 0, 0, 0, NULL));
    ncore_wait_signal_desc_t d = NCORE_WAIT_SIGNAL_DESC_INIT;
    d.peer = 0;
    CHECK_OK(ncore_wait_signal(comm, &d, 1, NULL));
    CHECK_EQ(record("calls.ncclSignal"), -1LL);
    CHECK_EQ(record("calls.ncclWaitSignal"), -1LL);
    CHECK_OK(ncore_window_close(w));
  }
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* CFT (ncore/cft.h): NCCL 2.31+'s host calls, with what ncore passes
 * (mode, offset, peer, team) and NCCL's answers given back unchanged (the
 * double's own values: tests/fake_nccl/fake_nccl.cu); older NCCL refuses
 * every call naming 2.31.0. */
TEST(cft_teams_and_logical_endpoints_from_nccl_2_31) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  size_t bytes = 1 << 16;
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, bytes, NCORE_BACKEND_NCCL));
  ncore_team_t team = {0, 0, 0};
  if (supported(ncore_comm_team_cft(comm, NCORE_CFT_TEAM_HIER_LSA, &team), 23100,
                "2.31.0")) {
    CHECK_EQ(record("cft.team_mode"), (long long)NCORE_CFT_TEAM_HIER_LSA);
    CHECK(team.n_ranks == 12 && team.rank == 1 && team.stride == 3);
  }
  if (supported(ncore_comm_team_cft_multimem(comm, &team), 23100, "2.31.0"))
    CHECK(team.n_ranks == 20 && team.rank == 2 && team.stride == 5);
  ncore_window_t w = NCORE_NULL_HANDLE;
  if (version >= 22902) { /* a window over the one rank */
    CHECK_OK(ncore_register_window(&w, comm, mem, bytes, NCORE_WINDOW_DEFAULT));
    ncore_cft_le_info_t le = {0, 0};
    if (supported(ncore_window_multimem_le_info(w, 64, &le), 23100, "2.31.0")) {
      CHECK_EQ(record("cft.offset"), 64LL);
      CHECK(le.le_id == 99 && le.le_offset == 1064);
    }
    ncore_team_t cft = {4, 1, 2};
    if (supported(ncore_window_cft_le_info(w, 128, 3, &cft, &le), 23100, "2.31.0")) {
      CHECK_EQ(record("cft.peer"), 3LL);
      CHECK_EQ(record("cft.team_n_ranks"), 4LL);
      CHECK_EQ(record("cft.team_rank"), 1LL);
      CHECK_EQ(record("cft.team_stride"), 2LL);
      CHECK(le.le_id == 103 && le.le_offset == 1128);
    }
    if (supported(ncore_window_peer_le_info(w, 8, 0, &le), 23100, "2.31.0")) {
      CHECK_EQ(record("cft.peer"), 0LL);
      CHECK(le.le_id == 100 && le.le_offset == 1008);
    } else {
      CHECK_MESSAGE_CONTAINS("ncclGetPeerDeviceLeInfo");
    }
    CHECK_OK(ncore_window_close(w));
  }
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* NCCL 2.28 without cuMem (NCCL_CUMEM_ENABLE=0) answers a window
 * registration with its buffer registration in the window's place; ncore's
 * pointer kernels read it as a window and poisoned the context (an illegal
 * address during init, session 18 on 4 x H100). On 2.28 ncore registers no
 * window there: the communicator works, its signals and windows answer
 * NOT_SUPPORTED naming cuMem. (2.29.2+ answers a NULL window itself.) */
TEST(no_window_without_cumem_on_2_28) {
  REQUIRE_FAKE();
  setenv("NCCL_CUMEM_ENABLE", "0", 1);
  long long before = record("calls.ncclCommWindowRegister");
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(unit_comm1(&comm, NULL));
  if (comm == NCORE_NULL_HANDLE) {
    unsetenv("NCCL_CUMEM_ENABLE");
    return;
  }
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 1 << 16, NCORE_BACKEND_NCCL));
  ncore_window_t w = NCORE_NULL_HANDLE;
  ncore_status_t s = ncore_register_window(&w, comm, mem, 1 << 16, NCORE_WINDOW_DEFAULT);
  if (version < 22902) {
    CHECK_EQ(s, NCORE_ERR_NOT_SUPPORTED);
    CHECK_MESSAGE_CONTAINS("cuMem");
    CHECK_EQ(record("calls.ncclCommWindowRegister"), before);
    CHECK_STATUS(ncore_signal(comm, 0, 0, 0, 0, NULL), NCORE_ERR_NOT_SUPPORTED);
  } else if (s == NCORE_OK) {
    CHECK_OK(ncore_window_close(w));
  }
  unsetenv("NCCL_CUMEM_ENABLE");
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* Closing a window removes this rank's mappings of its peers'
 * parts at once, so a put still queued through them (the first launch of a
 * kernel can take milliseconds) wrote nowhere and its peer waited for ever
 * (conformance put_signal_at_offset on 2 GPUs). Closing now waits for the
 * streams that carry ncore's own puts and signals first. */
TEST(window_close_waits_for_puts_still_queued) {
  REQUIRE_FAKE();
  if (version < 22902) return; /* 2.28's window getters are kernels */
  /* The copy engine, not a kernel: the stand-in driver runs none. */
  setenv("NCORE_NCCL_PUT_KERNEL_MAX", "0", 1);
  setenv("NCORE_NCCL_PUT_SM_MAX", "0", 1);
  UNIT_COMM(comm);
  unsetenv("NCORE_NCCL_PUT_KERNEL_MAX");
  unsetenv("NCORE_NCCL_PUT_SM_MAX");
  size_t bytes = 1 << 12;
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, bytes, NCORE_BACKEND_NCCL));
  ncore_window_t w = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_register_window(&w, comm, mem, bytes, NCORE_WINDOW_DEFAULT));
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, NCORE_BACKEND_NCCL));
  static const unsigned char source[64] = {1, 2, 3};
  CHECK_OK(ncore_put_signal(comm, source, sizeof source, NCORE_UINT8, 0, w, 0,
                            0, 0, 0, stream));
  long long queries = driver_count("cuEventQuery");
  CHECK_OK(ncore_window_close(w));
  CHECK_EQ(driver_count("cuEventRecord.stream"), (long long)(uintptr_t)stream);
  CHECK(driver_count("cuEventQuery") > queries);
  /* Waited for once: the next close has nothing left to wait for. */
  queries = driver_count("cuEventQuery");
  CHECK_OK(ncore_register_window(&w, comm, mem, bytes, NCORE_WINDOW_DEFAULT));
  CHECK_OK(ncore_window_close(w));
  CHECK_EQ(driver_count("cuEventQuery"), queries);
  CHECK_OK(ncore_stream_destroy(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

TEST(result_codes_of_newer_versions_map) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  setenv("FAKE_NCCL_FINALIZE_RESULT", "8", 1); /* ncclTimeout, 2.30.3+ */
  CHECK_STATUS(ncore_comm_finalize(comm), NCORE_ERR_TIMEOUT);
  unsetenv("FAKE_NCCL_FINALIZE_RESULT");
  CHECK_OK(ncore_comm_abort(comm));
}

/* A stream that completes after NCCL failed the communicator
 * did not necessarily do its work (NCCL's kernels leave early once a
 * communicator is aborted): synchronize reports the failure instead of
 * NCORE_OK (an allreduce with a killed peer answered OK on 4 GPUs), and the
 * communicator stays failed. */
TEST(synchronize_reports_a_failure_that_ended_the_stream) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 64, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_allreduce(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, NULL));
  setenv("FAKE_NCCL_ASYNC_ERROR", "6", 1); /* ncclRemoteError */
  CHECK_STATUS(ncore_comm_synchronize(comm, NULL), NCORE_ERR_REMOTE);
  unsetenv("FAKE_NCCL_ASYNC_ERROR");
  CHECK_STATUS(ncore_allreduce(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM,
                               NULL), NCORE_ERR_REMOTE);
  CHECK_OK(ncore_comm_abort(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* This process's newest "ncore-liveness" memfd (the highest fd naming one),
 * mapped read-only; NULL if there is none. */
static const uint64_t *map_newest_liveness_page(void) {
  int newest = -1;
  for (int fd = -1; (fd = harness_next_fd_named(fd, "memfd:ncore-liveness")) >= 0;)
    newest = fd;
  if (newest < 0) return NULL;
  void *p = mmap(NULL, sizeof(uint64_t), PROT_READ, MAP_SHARED, newest, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* Each rank keeps its liveness state in a page of host memory
 * its LSA peers map (core/nccl/liveness.c), so that a synchronisation can
 * see cheaply whether a peer aborted after its stream completed (a peer's
 * abort may complete this rank's work with what its kernels held). The
 * page says live, then "LEFT" after a polite destroy, or the abort's 0x7f
 * bytes after an abort, written before NCCL is told to abort. */
TEST(liveness_page_says_live_left_or_aborted) {
  REQUIRE_FAKE();
  for (int aborting = 0; aborting < 2; aborting++) {
    UNIT_COMM(comm);
    const uint64_t *page = map_newest_liveness_page();
    CHECK(page != NULL);
    if (page == NULL) return;
    CHECK_EQ(*page, 0ull);
    if (aborting) CHECK_OK(ncore_comm_abort(comm));
    else CHECK_OK(ncore_comm_destroy(comm));
    CHECK_EQ(*page, aborting ? 0x7f7f7f7f7f7f7f7full : 0x5446454cull);
    munmap((void *)page, sizeof(uint64_t));
  }
}

/* Rank `rank` of a world of `nranks` threads of the NCCL double. */
typedef struct {
  int rank, nranks;
  ncore_unique_id_t id;
  ncore_comm_t comm;
  ncore_status_t status;
} lsa_rank_t;

static void *init_lsa_rank(void *arg) {
  lsa_rank_t *r = arg;
  r->comm = NCORE_NULL_HANDLE;
  r->status = ncore_comm_init_rank(&r->comm, r->nranks, &r->id, r->rank, NULL);
  return NULL;
}

/* The n (at most 3) ranks of a world of threads of the NCCL double forming
 * one LSA team (FAKE_NCCL_LSA_WORLD), whose streams complete at once; made
 * with NCORE_ALGO=algo (read when a communicator is set up) unless algo is
 * NULL. 0, or -1 (checked) when a rank's init failed. */
static int make_lsa_world(lsa_rank_t ranks[], int n, const char *algo) {
  char count[8];
  snprintf(count, sizeof count, "%d", n);
  setenv("FAKE_NCCL_WORLD_RANKS", count, 1);
  setenv("FAKE_NCCL_LSA_WORLD", "1", 1);
  const char *before = getenv("NCORE_ALGO");
  char *kept = before ? strdup(before) : NULL;
  if (algo != NULL) setenv("NCORE_ALGO", algo, 1);
  pthread_t threads[3];
  for (int r = 0; r < n; r++) {
    ranks[r] = (lsa_rank_t){.rank = r, .nranks = n};
    if (r == 0) CHECK_OK(ncore_get_unique_id(&ranks[0].id, NCORE_BACKEND_AUTO));
    else ranks[r].id = ranks[0].id;
  }
  for (int r = 0; r < n; r++)
    CHECK_EQ(pthread_create(&threads[r], NULL, init_lsa_rank, &ranks[r]), 0);
  for (int r = 0; r < n; r++) pthread_join(threads[r], NULL);
  unsetenv("FAKE_NCCL_LSA_WORLD");
  unsetenv("FAKE_NCCL_WORLD_RANKS");
  if (kept) setenv("NCORE_ALGO", kept, 1); else unsetenv("NCORE_ALGO");
  free(kept);
  int made = 1;
  for (int r = 0; r < n; r++) {
    CHECK_OK(ranks[r].status);
    made &= ranks[r].status == NCORE_OK;
  }
  return made ? 0 : -1;
}

/* A peer's abort ends its NCCL kernels early, and they may
 * complete this rank's collective with what they held (conformance
 * dead_peer_allreduce answered NCORE_OK on 3 GPUs): a synchronisation whose
 * stream completed answers NCORE_ERR_REMOTE when an LSA peer aborted, and
 * learns it from the peer's liveness page in host memory, without a copy
 * from any GPU. Two ranks as two threads forming one LSA team of the NCCL
 * double (FAKE_NCCL_LSA_WORLD), whose streams complete at once. */
TEST(synchronize_after_a_peer_aborted_answers_remote) {
  REQUIRE_FAKE();
  if (version < 22902) return; /* 2.28's window getters are kernels */
  lsa_rank_t ranks[2];
  if (make_lsa_world(ranks, 2, NULL) != 0) return;
  int lsa_size = 0;
  CHECK_OK(ncore_comm_lsa_size(ranks[1].comm, &lsa_size));
  CHECK_EQ(lsa_size, 2);
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 64, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_allreduce(ranks[1].comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, NULL));
  CHECK_OK(ncore_comm_synchronize(ranks[1].comm, NULL));
  CHECK_OK(ncore_allreduce(ranks[1].comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, NULL));
  CHECK_OK(ncore_comm_abort(ranks[0].comm));
  long long copies = driver_count("cuMemcpyDtoHAsync");
  CHECK_STATUS(ncore_comm_synchronize(ranks[1].comm, NULL), NCORE_ERR_REMOTE);
  CHECK_MESSAGE_CONTAINS("rank 0 aborted");
  CHECK_EQ(driver_count("cuMemcpyDtoHAsync"), copies);
  CHECK_OK(ncore_comm_abort(ranks[1].comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* How many allreduces went to each of one-shot (either form), two-shot
 * and NCCL. */
static void allreduce_paths(long long counts[3]) {
  long long nccl = record("calls.ncclAllReduce");
  counts[0] = driver_count("launch:ncore_allreduce_oneshot") +
              driver_count("launch:ncore_allreduce_oneshot_ll");
  counts[1] = driver_count("launch:ncore_allreduce_twoshot");
  counts[2] = nccl < 0 ? 0 : nccl;
}

/* The path the one allreduce since allreduce_paths gave `before` took: 0
 * one-shot, 1 two-shot, 2 NCCL (-1: none or several). */
static int path_since(const long long before[3]) {
  long long after[3];
  allreduce_paths(after);
  int path = -1;
  for (int p = 0; p < 3; p++)
    if (after[p] != before[p]) path = path < 0 && after[p] == before[p] + 1 ? p : -2;
  return path < 0 ? -1 : path;
}

/* One allreduce of count elements on comm, and the path it took: 0
 * one-shot, 1 two-shot, 2 NCCL (-1: none or several). */
static int path_of(ncore_comm_t comm, void *mem, size_t count,
                   ncore_dtype_t dtype, ncore_redop_t op, int grouped) {
  long long before[3];
  allreduce_paths(before);
  if (grouped) CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_allreduce(comm, mem, mem, count, dtype, op, NULL));
  if (grouped) CHECK_OK(ncore_group_end());
  return path_since(before);
}

/* Ncore's small-message allreduce takes a call when every rank
 * is in one LSA team, by size (auto, 3 ranks: one-shot up to what its
 * area holds, 4 MiB / 3; two-shot only where asked; NCCL above), type and
 * operator; NCCL takes the
 * rest: NCORE_AVG and 8-bit types, calls inside a group, and every call of
 * a communicator made with NCORE_ALGO=nccl (forced oneshot / twoshot: at
 * every size their area holds). The stand-in driver counts the kernels'
 * launches. */
TEST(small_allreduce_chooses_its_kernels_or_nccl) {
  REQUIRE_FAKE();
  if (version < 22902) return; /* 2.28's window getters are kernels */
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 4 << 20, NCORE_BACKEND_NCCL));
  const char *algos[] = {"auto", "nccl", "oneshot", "twoshot"};
  /* Per algorithm: 16 B, 256 KiB, 2 MiB of float sums; 16 B of NCORE_AVG,
   * of uint8, of bfloat16 max; 16 B inside a group. */
  const int want[4][7] = {{0, 0, 2, 2, 2, 0, 2},
                          {2, 2, 2, 2, 2, 2, 2},
                          {0, 0, 2, 2, 2, 0, 2},
                          {1, 1, 2, 2, 2, 1, 2}};
  for (int a = 0; a < 4 && !harness_failed(); a++) {
    lsa_rank_t ranks[3];
    if (make_lsa_world(ranks, 3, algos[a]) != 0) break;
    ncore_comm_t comm = ranks[1].comm;
    int got[7] = {
        path_of(comm, mem, 4, NCORE_FLOAT32, NCORE_SUM, 0),
        path_of(comm, mem, 64 << 10, NCORE_FLOAT32, NCORE_SUM, 0),
        path_of(comm, mem, 512 << 10, NCORE_FLOAT32, NCORE_SUM, 0),
        path_of(comm, mem, 4, NCORE_FLOAT32, NCORE_AVG, 0),
        path_of(comm, mem, 16, NCORE_UINT8, NCORE_SUM, 0),
        path_of(comm, mem, 8, NCORE_BFLOAT16, NCORE_MAX, 0),
        path_of(comm, mem, 4, NCORE_FLOAT32, NCORE_SUM, 1),
    };
    for (int k = 0; k < 7; k++) {
      if (got[k] == want[a][k]) continue;
      CHECK_EQ(got[k], want[a][k]);
      fprintf(stderr, "  NCORE_ALGO=%s, call %d\n", algos[a], k);
    }
    /* One-shot's 16 B go in LL form (kernels/small_coll.h), its 640 KiB
     * (past what the LL slots hold) by flags. */
    if (want[a][0] == 0) {
      long long ll = driver_count("launch:ncore_allreduce_oneshot_ll");
      long long flags = driver_count("launch:ncore_allreduce_oneshot");
      CHECK_EQ(path_of(comm, mem, 4, NCORE_FLOAT32, NCORE_SUM, 0), 0);
      CHECK_EQ(driver_count("launch:ncore_allreduce_oneshot_ll"), ll + 1);
      CHECK_EQ(path_of(comm, mem, 160 << 10, NCORE_FLOAT32, NCORE_SUM, 0), 0);
      CHECK_EQ(driver_count("launch:ncore_allreduce_oneshot"), flags + 1);
    }
    for (int r = 0; r < 3; r++) CHECK_OK(ncore_comm_destroy(ranks[r].comm));
  }
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* Allgather and reduce-scatter take ncore's LL kernels up to the LL limit
 * (1 MiB / ranks^2: 113 KiB a block on 3 ranks), NCCL above it, inside a
 * group, for 8-bit reduce-scatters and under NCORE_ALGO=nccl; the
 * allgather's kernel counts bytes. Broadcast and reduce stay NCCL's (their
 * root would run ahead of the LL slots' reuse). */
static int took(const char *kernel, long long before) {
  return driver_count(kernel) == before + 1;
}

TEST(allgather_and_reduce_scatter_take_the_ll_kernels_where_they_fit) {
  REQUIRE_FAKE();
  if (version < 22902) return;
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 4 << 20, NCORE_BACKEND_NCCL));
  char *in = mem, *out = (char *)mem + (2 << 20);
  const char *algos[] = {"auto", "nccl"};
  for (int a = 0; a < 2 && !harness_failed(); a++) {
    lsa_rank_t ranks[3];
    if (make_lsa_world(ranks, 3, algos[a]) != 0) break;
    ncore_comm_t comm = ranks[1].comm;
    int ours = a == 0;
    const char *ag = "launch:ncore_allgather_ll", *rs = "launch:ncore_reduce_scatter_ll";
    long long before = driver_count(ag), nccl = record("calls.ncclAllGather");
    CHECK_OK(ncore_allgather(comm, in, out, 6, NCORE_FLOAT32, NULL));
    CHECK_EQ(took(ag, before), ours);
    if (ours) CHECK_EQ(driver_count("launch.count"), 24LL); /* bytes */
    CHECK_EQ(record("calls.ncclAllGather"), nccl + !ours);
    before = driver_count(ag);
    CHECK_OK(ncore_allgather(comm, in, out, 40 << 10, NCORE_FLOAT32, NULL)); /* 160 KiB */
    CHECK_EQ(driver_count(ag), before);
    before = driver_count(rs);
    CHECK_OK(ncore_reduce_scatter(comm, in, out, 1000, NCORE_BFLOAT16, NCORE_MAX, NULL));
    CHECK_EQ(took(rs, before), ours);
    if (ours) CHECK_EQ(driver_count("launch.count"), 1000LL); /* elements */
    before = driver_count(rs);
    CHECK_OK(ncore_reduce_scatter(comm, in, out, 16, NCORE_UINT8, NCORE_SUM, NULL));
    CHECK_OK(ncore_group_start());
    CHECK_OK(ncore_reduce_scatter(comm, in, out, 4, NCORE_FLOAT32, NCORE_SUM, NULL));
    CHECK_OK(ncore_group_end());
    CHECK_EQ(driver_count(rs), before);
    for (int r = 0; r < 3; r++) CHECK_OK(ncore_comm_destroy(ranks[r].comm));
  }
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* The small-message path orders a call on another stream after the last
 * one (an event). When the last call's stream is destroyed through ncore
 * first, the event is recorded as it goes, and the next call on another
 * stream waits for it, never naming the destroyed handle. */
TEST(small_allreduce_after_its_last_stream_was_destroyed) {
  REQUIRE_FAKE();
  if (version < 22902) return;
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 4096, NCORE_BACKEND_NCCL));
  lsa_rank_t ranks[3];
  if (make_lsa_world(ranks, 3, "auto") != 0) return;
  ncore_comm_t comm = ranks[1].comm;
  ncore_stream_t a = NULL, b = NULL;
  CHECK_OK(ncore_stream_create(&a, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_stream_create(&b, NCORE_BACKEND_NCCL));
  long long launches = driver_count("launch:ncore_allreduce_oneshot_ll");
  CHECK_OK(ncore_allreduce(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, a));
  long long uses = driver_count("destroyed stream");
  long long waits = driver_count("cuStreamWaitEvent");
  CHECK_OK(ncore_stream_destroy(a, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_allreduce(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, b));
  CHECK_EQ(driver_count("launch:ncore_allreduce_oneshot_ll"), launches + 2);
  CHECK_EQ(driver_count("destroyed stream"), uses);
  CHECK_EQ(driver_count("cuStreamWaitEvent"), waits + 1);
  CHECK_EQ(driver_count("cuStreamWaitEvent.stream"), (long long)(uintptr_t)b);
  for (int r = 0; r < 3; r++) CHECK_OK(ncore_comm_destroy(ranks[r].comm));
  CHECK_OK(ncore_stream_destroy(b, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* NCCL connects to a peer inside the first send or recv that needs it
 * and returns only once the peer made its matching call: a rank whose
 * peer never comes waits inside ncclRecv, where no loop of ncore's writes
 * its note. The watcher thread (core/wait_watch.h) writes the WARN line
 * instead, naming the entry point, NCCL's call and the peer; with
 * NCORE_WAIT_WARN_S=0 it writes none. */
static void recv_inside_nccl(const char *warn_s, char *seen, size_t cap) {
  setenv("NCORE_WAIT_WARN_S", warn_s, 1);
  setenv("FAKE_NCCL_P2P_BLOCK_MS", "700", 1);
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  void *mem = NULL;
  CHECK_OK(unit_comm1(&comm, NULL));
  CHECK_OK(ncore_mem_alloc(&mem, 64, NCORE_BACKEND_NCCL));
  char path[] = "/tmp/ncore-watch.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  close(fd);
  CHECK_OK(ncore_recv(comm, mem, 4, NCORE_INT32, 0, NULL));
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(seen, 1, cap - 1, f) : 0;
  seen[n] = '\0';
  if (f) fclose(f);
  unlink(path);
  unsetenv("FAKE_NCCL_P2P_BLOCK_MS");
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_comm_destroy(comm));
}

/* A call's config (ncore_coll_config_t) reaches NCCL 2.31+ through its
 * nccl*Config twin, in that version's ncclCollConfig_t (64 bytes on 2.31,
 * with the launch-completion event on 2.32); an older NCCL refuses the
 * fields only it could serve, naming 2.31, and drops an NCCL selection
 * expression that force_alg_selection 0 lets go. */
TEST(a_calls_config_reaches_nccl_or_names_2_31) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 64, NCORE_BACKEND_NCCL));
  ncore_vendor_option_t option = {7, 1, NCORE_VENDOR_OPTION_INT, 3, NULL, NULL};
  ncore_coll_config_t config = NCORE_COLL_CONFIG_INIT;
  config.min_ctas = 2;
  config.cta_policy = 1;
  config.user_profiler_tag = 9;
  config.alg_selection = "ring";
  config.vendor_options = &option;
  config.vendor_option_count = 1;
  long long twins = record("calls.ncclAllReduceConfig");
  if (supported(ncore_allreduce_config(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM,
                                       NULL, &config),
                23100, "NCCL 2.31")) {
    CHECK_EQ(record("calls.ncclAllReduceConfig"), (twins < 0 ? 0 : twins) + 1);
    CHECK_EQ(record("collconfig.magic"), 0xcafebeefLL);
    CHECK_EQ(record("collconfig.version"), (long long)version);
    CHECK_EQ(record("collconfig.size"), version >= 23200 ? 72LL : 64LL);
    CHECK_EQ(record("collconfig.minCTAs"), 2LL);
    CHECK_EQ(record("collconfig.maxCTAs"), (long long)NCORE_CONFIG_UNDEF_INT);
    CHECK_EQ(record("collconfig.CTAPolicy"), 1LL);
    CHECK_EQ(record("collconfig.userProfilerTag"), 9LL);
    CHECK_EQ(record("collconfig.algSelection"), (long long)'r');
    CHECK_EQ(record("collconfig.forceAlgSelection"), 1LL);
    CHECK_EQ(record("collconfig.ext"), 1LL);
    /* ncore's own names are ncore's: NCCL picks among its kernels. */
    config.alg_selection = "nccl";
    CHECK_OK(ncore_broadcast_config(comm, mem, mem, 4, NCORE_FLOAT32, 0, NULL, &config));
    CHECK_EQ(record("collconfig.algSelection"), 0LL);
  } else {
    CHECK_MESSAGE_CONTAINS("config.min_ctas of ncore_allreduce_config");
    /* An NCCL selection expression with force 0: automatic, as NCCL does. */
    ncore_coll_config_t loose = NCORE_COLL_CONFIG_INIT;
    loose.alg_selection = "ring";
    loose.force_alg_selection = 0;
    long long plain = record("calls.ncclAllReduce");
    CHECK_OK(ncore_allreduce_config(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, NULL,
                                    &loose));
    CHECK_EQ(record("calls.ncclAllReduce"), (plain < 0 ? 0 : plain) + 1);
    loose.force_alg_selection = 1;
    supported(ncore_allreduce_config(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, NULL,
                                     &loose),
              23100, "NCCL 2.31");
    CHECK_MESSAGE_CONTAINS("config.alg_selection");
  }
  CHECK_OK(ncore_comm_synchronize(comm, NULL));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_comm_destroy(comm));
}

/* The launch-completion event: NCCL 2.32 records it (passed in the config);
 * before, ncore records it on the call's stream right after the call, and
 * refuses it inside a group, where the launch comes at the group's end. */
TEST(a_launch_completion_event_is_recorded_on_every_version) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 64, NCORE_BACKEND_NCCL));
  void *event_storage = NULL; /* the stand-in driver's event: one pointer */
  ncore_coll_config_t config = NCORE_COLL_CONFIG_INIT;
  config.launch_completion_event = &event_storage;
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, NCORE_BACKEND_NCCL));
  long long records = driver_count("cuEventRecord");
  CHECK_OK(ncore_allreduce_config(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, stream,
                                  &config));
  if (version >= 23200) {
    CHECK_EQ(record("collconfig.launchCompletionEvent"), (long long)(uintptr_t)&event_storage);
    CHECK_EQ(driver_count("cuEventRecord"), records);
  } else {
    CHECK_EQ(driver_count("cuEventRecord"), records + 1);
    CHECK_EQ(driver_count("cuEventRecord.stream"), (long long)(uintptr_t)stream);
  }
  CHECK_OK(ncore_group_start());
  if (!supported(ncore_allreduce_config(comm, mem, mem, 4, NCORE_FLOAT32, NCORE_SUM, stream,
                                        &config),
                 23200, "NCCL 2.32"))
    CHECK_MESSAGE_CONTAINS("config.launch_completion_event of ncore_allreduce_config "
                           "inside a group");
  CHECK_OK(ncore_group_end());
  CHECK_OK(ncore_stream_synchronize(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_stream_destroy(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_comm_destroy(comm));
}

/* alg_selection's ncore names choose per call what NCORE_ALGO chooses per
 * communicator (here made with NCORE_ALGO=nccl by run.sh): "oneshot" and
 * "twoshot" take ncore's kernels, "auto" the size's choice, "nccl" and an
 * NCCL expression NCCL's; a forced ncore kernel that cannot serve the call
 * (NCORE_AVG) is refused, and with force_alg_selection 0 NCCL takes it. */
static int path_with(ncore_comm_t comm, void *mem, size_t count, ncore_redop_t op,
                     const char *selection, int force, ncore_status_t *status) {
  ncore_coll_config_t config = NCORE_COLL_CONFIG_INIT;
  config.alg_selection = selection;
  config.force_alg_selection = force;
  long long before[3];
  allreduce_paths(before);
  *status = ncore_allreduce_config(comm, mem, mem, count, NCORE_FLOAT32, op, NULL, &config);
  return path_since(before);
}

TEST(alg_selection_chooses_ncores_kernels_per_call) {
  REQUIRE_FAKE();
  if (version < 22902) return; /* 2.28's window getters are kernels */
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 1 << 20, NCORE_BACKEND_NCCL));
  lsa_rank_t ranks[3];
  if (make_lsa_world(ranks, 3, "nccl") == 0) {
    ncore_comm_t comm = ranks[1].comm;
    ncore_status_t st = NCORE_OK;
    CHECK_EQ(path_of(comm, mem, 4, NCORE_FLOAT32, NCORE_SUM, 0), 2);
    CHECK_EQ(path_with(comm, mem, 4, NCORE_SUM, "oneshot", 1, &st), 0);
    CHECK_OK(st);
    CHECK_EQ(path_with(comm, mem, 4, NCORE_SUM, "TwoShot", 1, &st), 1);
    CHECK_OK(st);
    CHECK_EQ(path_with(comm, mem, 4, NCORE_SUM, "auto", 1, &st), 0);
    CHECK_EQ(path_with(comm, mem, 4, NCORE_SUM, "nccl", 1, &st), 2);
    CHECK_EQ(path_with(comm, mem, 4, NCORE_SUM, "ring", 0, &st), 2);
    CHECK_OK(st);
    CHECK_EQ(path_with(comm, mem, 4, NCORE_AVG, "oneshot", 1, &st), -1);
    CHECK_EQ(st, NCORE_ERR_INVALID_USAGE);
    CHECK_MESSAGE_CONTAINS("config.alg_selection: \"oneshot\" forces ncore's kernel");
    CHECK_EQ(path_with(comm, mem, 4, NCORE_AVG, "oneshot", 0, &st), 2);
    CHECK_OK(st);
    for (int r = 0; r < 3; r++) CHECK_OK(ncore_comm_destroy(ranks[r].comm));
  }
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

TEST(a_recv_waiting_inside_nccl_says_so) {
  REQUIRE_FAKE();
  char seen[4096];
  recv_inside_nccl("0.2", seen, sizeof seen);
  if (strstr(seen, "NCORE WARN ncore_recv has waited") == NULL ||
      strstr(seen, "NCCL's ncclRecv to return, rank 0 of 1, with peer 0") == NULL)
    harness_fail(__FILE__, __LINE__, "no WARN naming ncore_recv, ncclRecv and "
                 "peer 0; stderr had: \"%s\"", seen);
}

TEST(a_recv_waiting_inside_nccl_is_quiet_with_warnings_off) {
  REQUIRE_FAKE();
  char seen[4096];
  recv_inside_nccl("0", seen, sizeof seen);
  if (strstr(seen, "has waited") != NULL)
    harness_fail(__FILE__, __LINE__, "NCORE_WAIT_WARN_S=0 still wrote: \"%s\"", seen);
}

/* A world of two ranks, each its own LSA team (as ranks on one GPU): NCCL
 * makes no window over several teams without GIN, so ncore registers its
 * signal window over the rank's team, on a communicator split off for it.
 * Where that split fails (a peer died meanwhile: ncclRemoteError), init
 * answers the split's error and frees what it made once — the window it had
 * started was freed a second time, a double free that aborted a rank on NCCL
 * 2.30.7 (bench/results/gpu-results.md, session 6). */
TEST(signal_window_over_the_lsa_team_and_its_failed_split) {
  REQUIRE_FAKE();
  setenv("FAKE_NCCL_WORLD_RANKS", "2", 1);
  ncore_unique_id_t id;
  CHECK_OK(ncore_get_unique_id(&id, NCORE_BACKEND_AUTO));
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_comm_init_rank(&comm, 2, &id, 1, NULL));
  CHECK_EQ(record("calls.ncclCommSplit"), 1LL);
  int v = 0;
  CHECK_OK(ncore_comm_size(comm, &v));
  CHECK_EQ(v, 2);
  CHECK_OK(ncore_comm_lsa_size(comm, &v));
  CHECK_EQ(v, 1);
  CHECK_OK(ncore_comm_destroy(comm));

  setenv("FAKE_NCCL_SPLIT_RESULT", "6", 1); /* ncclRemoteError */
  comm = NCORE_NULL_HANDLE;
  CHECK_STATUS(ncore_comm_init_rank(&comm, 2, &id, 1, NULL), NCORE_ERR_REMOTE);
  CHECK_MESSAGE_CONTAINS("ncclCommSplit(LSA team)");
  CHECK_EQ(comm, NCORE_NULL_HANDLE);
  CHECK_EQ(record("calls.ncclCommSplit"), 2LL);
  unsetenv("FAKE_NCCL_SPLIT_RESULT");
  unsetenv("FAKE_NCCL_WORLD_RANKS");
}

/* The device rule. A launched rank (ncore_comm_init_from_env)
 * that names no device runs on NCORE_LOCAL_RANK % visible devices; one that
 * names a device gets it; ncore_comm_init_rank with device -1 runs on the
 * calling thread's current device, as NCCL does. The stand-in driver shows
 * FAKE_CUDA_DEVICES devices and the fake NCCL reports the device that was
 * current when the communicator was made (ncclCommCuDevice). */
static int device_of_launched_rank(const char *local_rank, int config_device) {
  ncore_unique_id_t id;
  char hex[CORE_LAUNCH_ID_HEX_CHARS + 1];
  if (ncore_get_unique_id(&id, NCORE_BACKEND_AUTO) != NCORE_OK) return -100;
  core_launch_id_encode(&id, hex);
  setenv("NCORE_RANK", "0", 1);
  setenv("NCORE_NRANKS", "1", 1);
  setenv("NCORE_UNIQUE_ID", hex, 1);
  setenv("NCORE_LOCAL_RANK", local_rank, 1);
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.device = config_device;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  int device = -1, current = -2;
  ncore_status_t st = ncore_comm_init_from_env(&comm, &config);
  if (st == NCORE_OK) st = ncore_comm_device(comm, &device);
  if (st == NCORE_OK) st = ncore_device_get(NCORE_BACKEND_NCCL, &current);
  if (comm != NCORE_NULL_HANDLE) (void)ncore_comm_destroy(comm);
  if (st != NCORE_OK) return -10 - (int)st;
  return device == current ? device : -3; /* current on the caller too */
}

TEST(launched_ranks_get_local_rank_modulo_devices) {
  REQUIRE_FAKE();
  setenv("FAKE_CUDA_DEVICES", "4", 1);
  CHECK_OK(ncore_device_set(NCORE_BACKEND_NCCL, 0));
  CHECK_EQ(device_of_launched_rank("3", -1), 3);
  CHECK_EQ(device_of_launched_rank("6", -1), 2);  /* 6 % 4 */
  CHECK_EQ(device_of_launched_rank("1", -1), 1);
  CHECK_EQ(device_of_launched_rank("3", 0), 0);   /* a named device wins */
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  setenv("NCORE_LOCAL_RANK", "x1", 1);
  CHECK_STATUS(ncore_comm_init_from_env(&comm, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("NCORE_LOCAL_RANK");
  /* init_rank: the calling thread's current device. */
  CHECK_OK(ncore_device_set(NCORE_BACKEND_NCCL, 2));
  ncore_unique_id_t id;
  CHECK_OK(ncore_get_unique_id(&id, NCORE_BACKEND_AUTO));
  CHECK_OK(ncore_comm_init_rank(&comm, 1, &id, 0, NULL));
  int device = -1;
  CHECK_OK(ncore_comm_device(comm, &device));
  CHECK_EQ(device, 2);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_device_set(NCORE_BACKEND_NCCL, 0));
  unsetenv("NCORE_RANK");
  unsetenv("NCORE_NRANKS");
  unsetenv("NCORE_UNIQUE_ID");
  unsetenv("NCORE_LOCAL_RANK");
  unsetenv("FAKE_CUDA_DEVICES");
}

/* On a non-blocking communicator NCCL may answer ncclInProgress
 * from an enqueue (a collective that needs new connections) and then
 * refuses every other call until its state leaves ncclInProgress. ncore
 * answers NCORE_IN_PROGRESS with a message saying what to do, and its next
 * call waits instead of failing ("Attempt to use communicator before the
 * previous operation returned ncclSuccess"); finalize and destroy work, and
 * the handles are dead afterwards. */
TEST(calls_after_an_in_progress_enqueue_wait_for_it) {
  REQUIRE_FAKE();
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.blocking = 0;
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  ncore_status_t st = unit_comm1(&comm, &config);
  CHECK(st == NCORE_OK || st == NCORE_IN_PROGRESS);
  ncore_status_t state = NCORE_IN_PROGRESS;
  for (int i = 0; i < 1000 && state == NCORE_IN_PROGRESS; i++)
    CHECK_OK(ncore_comm_async_error(comm, &state));
  CHECK_EQ(state, NCORE_OK);
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 256, NCORE_BACKEND_NCCL));
  float scale = 0.5f;
  ncore_custom_redop_t op = NCORE_NULL_HANDLE;
  CHECK_OK(ncore_create_pre_mul_sum(&op, comm, &scale, NCORE_FLOAT32,
                                    NCORE_SCALAR_HOST_IMMEDIATE));
  ncore_redop_t scaled_sum;
  CHECK_OK(ncore_custom_redop_value(op, &scaled_sum));
  setenv("FAKE_NCCL_IN_PROGRESS", "5", 1);
  st = ncore_reduce_scatter(comm, mem, (char *)mem + 128, 4, NCORE_FLOAT32,
                            scaled_sum, NULL);
  CHECK_EQ(st, NCORE_IN_PROGRESS);
  CHECK_MESSAGE_CONTAINS("ncclReduceScatter: enqueued");
  unsetenv("FAKE_NCCL_IN_PROGRESS");
  /* No poll in between: the calls wait for NCCL instead of failing. */
  CHECK_OK(ncore_gather(comm, mem, (char *)mem + 128, 4, NCORE_FLOAT32, 0,
                        NULL));
  setenv("FAKE_NCCL_IN_PROGRESS", "5", 1);
  CHECK_EQ(ncore_broadcast(comm, mem, mem, 4, NCORE_FLOAT32, 0, NULL),
           NCORE_IN_PROGRESS);
  unsetenv("FAKE_NCCL_IN_PROGRESS");
  ncore_comm_t child = NCORE_NULL_HANDLE;
  /* The parent is in progress while NCCL makes the child, and NCCL writes
   * the child's handle only when that ends (after the split returned): the
   * child is still there (it was NULL). */
  setenv("FAKE_NCCL_IN_PROGRESS", "5", 1);
  st = ncore_comm_split(comm, 0, 0, &child, NULL);
  unsetenv("FAKE_NCCL_IN_PROGRESS");
  CHECK_OK(st);
  CHECK_EQ(ncore_comm_is_valid(child), 1);
  CHECK_OK(ncore_comm_destroy(child));
  setenv("FAKE_NCCL_IN_PROGRESS", "5", 1);
  st = ncore_comm_shrink(comm, NULL, 0, &child, NULL, NCORE_SHRINK_DEFAULT);
  unsetenv("FAKE_NCCL_IN_PROGRESS");
  CHECK_OK(st);
  CHECK_EQ(ncore_comm_is_valid(child), 1);
  CHECK_OK(ncore_comm_destroy(child));
  CHECK_OK(ncore_comm_finalize(comm));
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_EQ(ncore_comm_is_valid(comm), 0);
  CHECK_EQ(ncore_custom_redop_is_valid(op), 0);
  CHECK_OK(ncore_custom_redop_close(op)); /* idempotent */
  CHECK_OK(ncore_comm_destroy(comm)); /* idempotent */
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* NCCL before 2.29.7 refuses its copy-engine collectives (CTA
 * policy ZERO) on the legacy default stream. On such a communicator a
 * collective on the default stream runs on the per-thread stream, and the
 * legacy stream then waits for it (at once, or at the end of a group);
 * newer NCCL, other policies and other streams get the caller's stream. */
TEST(copy_engine_collectives_on_the_default_stream_before_2_29_7) {
  REQUIRE_FAKE();
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  config.cta_policy = 0x02; /* NCCL_CTA_POLICY_ZERO */
  ncore_comm_t comm = NCORE_NULL_HANDLE;
  CHECK_OK(unit_comm1(&comm, &config));
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 64, NCORE_BACKEND_NCCL));
  long long waits = driver_count("cuStreamWaitEvent");
  int detour = version < 22907;
  CHECK_OK(ncore_allgather(comm, mem, (char *)mem + 32, 2, NCORE_FLOAT32, NULL));
  CHECK_EQ(record("stream.ncclAllGather"), detour ? 2LL : 0LL); /* per-thread */
  CHECK_EQ(driver_count("cuStreamWaitEvent"), waits + detour);
  if (detour) {
    CHECK_EQ(driver_count("cuStreamWaitEvent.stream"), 1LL); /* legacy */
    CHECK_EQ(driver_count("cuEventRecord.stream"), 2LL);     /* per-thread */
  }
  CHECK_OK(ncore_group_start());
  CHECK_OK(ncore_allgather(comm, mem, (char *)mem + 32, 2, NCORE_FLOAT32, NULL));
  CHECK_OK(ncore_allreduce(comm, mem, mem, 2, NCORE_FLOAT32, NCORE_SUM, NULL));
  CHECK_EQ(driver_count("cuStreamWaitEvent"), waits + detour); /* not yet */
  CHECK_OK(ncore_group_end());
  CHECK_EQ(driver_count("cuStreamWaitEvent"), waits + 2 * detour); /* once */
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_allgather(comm, mem, (char *)mem + 32, 2, NCORE_FLOAT32, stream));
  CHECK_EQ(record("stream.ncclAllGather"), (long long)(uintptr_t)stream);
  CHECK_OK(ncore_stream_destroy(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_comm_destroy(comm));
  /* The default CTA policy keeps the default stream. */
  CHECK_OK(unit_comm1(&comm, NULL));
  CHECK_OK(ncore_allgather(comm, mem, (char *)mem + 32, 2, NCORE_FLOAT32, NULL));
  CHECK_EQ(record("stream.ncclAllGather"), 0LL);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

/* Once a stream has been checked, a send, recv or collective is
 * one NCCL call and no context, stream or pointer query; a pointer that is
 * not a stream is still refused, naming the argument, before NCCL sees it. */
TEST(hot_path_is_one_nccl_call_and_no_driver_lookup) {
  REQUIRE_FAKE();
  UNIT_COMM(comm);
  void *mem = NULL;
  CHECK_OK(ncore_mem_alloc(&mem, 64, NCORE_BACKEND_NCCL));
  ncore_stream_t stream = NULL;
  CHECK_OK(ncore_stream_create(&stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_allreduce(comm, mem, mem, 2, NCORE_FLOAT32, NCORE_SUM,
                           stream)); /* checks the stream once */
  long long lookups = driver_lookups();
  CHECK(lookups >= 0);
  long long allreduces = record("calls.ncclAllReduce");
  long long sends = record("calls.ncclSend");
  long long recvs = record("calls.ncclRecv");
  for (int i = 0; i < 10; i++) {
    CHECK_OK(ncore_allreduce(comm, mem, mem, 2, NCORE_FLOAT32, NCORE_SUM,
                             stream));
    CHECK_OK(ncore_broadcast(comm, mem, mem, 2, NCORE_FLOAT32, 0, stream));
    CHECK_OK(ncore_group_start());
    CHECK_OK(ncore_send(comm, mem, 2, NCORE_FLOAT32, 0, stream));
    CHECK_OK(ncore_recv(comm, (char *)mem + 32, 2, NCORE_FLOAT32, 0, stream));
    CHECK_OK(ncore_group_end());
  }
  CHECK_EQ(driver_lookups(), lookups);
  CHECK_EQ(record("calls.ncclAllReduce"), allreduces + 10);
  CHECK_EQ(record("calls.ncclSend"), (sends < 0 ? 0 : sends) + 10);
  CHECK_EQ(record("calls.ncclRecv"), (recvs < 0 ? 0 : recvs) + 10);
  /* The default stream needs no lookup either. */
  CHECK_OK(ncore_allreduce(comm, mem, mem, 2, NCORE_FLOAT32, NCORE_SUM, NULL));
  CHECK_EQ(driver_lookups(), lookups);
  unsigned long long not_a_stream[2] = {0, 0};
  CHECK_STATUS(ncore_allreduce(comm, mem, mem, 2, NCORE_FLOAT32, NCORE_SUM,
                               (ncore_stream_t)not_a_stream),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("stream: ");
  CHECK_STATUS(ncore_send(comm, mem, 2, NCORE_FLOAT32, 0,
                          (ncore_stream_t)not_a_stream),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("is not a CUDA stream");
  CHECK_EQ(record("calls.ncclAllReduce"), allreduces + 11);
  /* A stream destroyed through ncore is forgotten: its address is checked
   * again if it comes back. */
  CHECK_OK(ncore_stream_destroy(stream, NCORE_BACKEND_NCCL));
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_OK(ncore_mem_free(mem, NCORE_BACKEND_NCCL));
}

HARNESS_MAIN
