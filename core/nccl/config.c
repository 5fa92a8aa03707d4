/* core/nccl — communicator configs (config.h). */
#include "config.h"

#include <stddef.h>
#include <string.h>

/* The config fields newer than NCCL 2.28, with the version that added
 * each: set on an older NCCL, they are refused rather than dropped. */
static const struct {
  size_t offset;
  const char *what;
  int since;
} newer_config_fields[] = {
    {offsetof(ncore_comm_config_t, graph_usage_mode),
     "config: graph_usage_mode", NCORE_NCCL_VERSION(2, 29, 0)},
    {offsetof(ncore_comm_config_t, num_rma_ctx), "config: num_rma_ctx",
     NCORE_NCCL_VERSION(2, 29, 0)},
    {offsetof(ncore_comm_config_t, max_p2p_peers), "config: max_p2p_peers",
     NCORE_NCCL_VERSION(2, 30, 0)},
    {offsetof(ncore_comm_config_t, graph_stream_ordering),
     "config: graph_stream_ordering", NCORE_NCCL_VERSION(2, 30, 5)},
    {offsetof(ncore_comm_config_t, launch_order_implicit),
     "config: launch_order_implicit", NCORE_NCCL_VERSION(2, 31, 0)},
    {offsetof(ncore_comm_config_t, num_rma_sig), "config: num_rma_sig",
     NCORE_NCCL_VERSION(2, 31, 0)},
    {offsetof(ncore_comm_config_t, rma_eager_init), "config: rma_eager_init",
     NCORE_NCCL_VERSION(2, 31, 0)},
    {offsetof(ncore_comm_config_t, host_cft_mode), "config: host_cft_mode",
     NCORE_NCCL_VERSION(2, 31, 1)},
    {offsetof(ncore_comm_config_t, nvls_host_mode), "config: nvls_host_mode",
     NCORE_NCCL_VERSION(2, 32, 0)},
};

ncore_status_t nccl_config_map(const core_config_t *config,
                               nccl_config_t *out) {
  nccl_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.size = sizeof cfg;
  cfg.magic = NCORE_NCCL_API_MAGIC;
  cfg.version =
      (unsigned)nccl_struct_version_upto(NCORE_NCCL_CONFIG_NEWEST_KNOWN);
  int *ints[] = {&cfg.blocking, &cfg.cgaClusterSize, &cfg.minCTAs,
                 &cfg.maxCTAs, &cfg.splitShare, &cfg.trafficClass,
                 &cfg.collnetEnable, &cfg.CTAPolicy, &cfg.shrinkShare,
                 &cfg.nvlsCTAs, &cfg.nChannelsPerNetPeer,
                 &cfg.nvlinkCentricSched, &cfg.graphUsageMode,
                 &cfg.numRmaCtx, &cfg.maxP2pPeers, &cfg.graphStreamOrdering,
                 &cfg.launchOrderImplicit, &cfg.numRmaSig, &cfg.rmaEagerInit,
                 &cfg.hostCftMode, &cfg.nvlsHostMode};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    *ints[i] = NCORE_NCCL_UNDEF_INT;
  if (config != NULL) {
    const ncore_comm_config_t *u = &config->user;
    for (size_t i = 0;
         i < sizeof newer_config_fields / sizeof newer_config_fields[0]; i++) {
      int32_t value;
      memcpy(&value, (const char *)u + newer_config_fields[i].offset,
             sizeof value);
      if (value == NCORE_CONFIG_UNDEF_INT) continue;
      ncore_status_t status = nccl_require_version(
          newer_config_fields[i].since, newer_config_fields[i].what);
      if (status != NCORE_OK) return status;
    }
#define COPY_INT(dst, src) \
  if (u->src != NCORE_CONFIG_UNDEF_INT) cfg.dst = u->src
    COPY_INT(blocking, blocking);
    COPY_INT(cgaClusterSize, cga_cluster_size);
    COPY_INT(minCTAs, min_ctas);
    COPY_INT(maxCTAs, max_ctas);
    COPY_INT(splitShare, split_share);
    COPY_INT(trafficClass, traffic_class);
    COPY_INT(collnetEnable, collnet_enable);
    COPY_INT(CTAPolicy, cta_policy);
    COPY_INT(shrinkShare, shrink_share);
    COPY_INT(nvlsCTAs, nvls_ctas);
    COPY_INT(nChannelsPerNetPeer, n_channels_per_net_peer);
    COPY_INT(nvlinkCentricSched, nvlink_centric_sched);
    COPY_INT(graphUsageMode, graph_usage_mode);
    COPY_INT(numRmaCtx, num_rma_ctx);
    COPY_INT(maxP2pPeers, max_p2p_peers);
    COPY_INT(graphStreamOrdering, graph_stream_ordering);
    COPY_INT(launchOrderImplicit, launch_order_implicit);
    COPY_INT(numRmaSig, num_rma_sig);
    COPY_INT(rmaEagerInit, rma_eager_init);
    COPY_INT(hostCftMode, host_cft_mode);
    COPY_INT(nvlsHostMode, nvls_host_mode);
#undef COPY_INT
    cfg.netName = u->net_name;
    cfg.commName = u->comm_name;
  }
  *out = cfg;
  return NCORE_OK;
}

int nccl_config_nonblocking(const core_config_t *config) {
  return config->user.blocking != NCORE_CONFIG_UNDEF_INT &&
         config->user.blocking == 0;
}
