// Holds core/nccl/nccl_layouts.h to the real NCCL headers on the include
// path: the row ncore uses for this header's version, and the mirror
// structs, must match NCCL's own definitions field for field. Compiled (not
// run) by check.sh against every header set it finds
// (tests/nccl-layouts/header-sets.sh); a mismatch fails the build.
#include <cstddef>
#include <nccl.h>
#include <nccl_device.h>

extern "C" {
#include "../../core/nccl/nccl_layouts.h"
}

#if NCCL_VERSION_CODE >= 23100
constexpr nccl_layout_t row = NCORE_NCCL_LAYOUT_2_31;
#elif NCCL_VERSION_CODE >= 23000
constexpr nccl_layout_t row = NCORE_NCCL_LAYOUT_2_30;
#elif NCCL_VERSION_CODE >= 22905
constexpr nccl_layout_t row = NCORE_NCCL_LAYOUT_2_29_5;
#elif NCCL_VERSION_CODE >= 22902
constexpr nccl_layout_t row = NCORE_NCCL_LAYOUT_2_29_2;
#else
constexpr nccl_layout_t row = NCORE_NCCL_LAYOUT_2_28;
#endif

#define SAME_OFFSET(nccl_t, ours_t, field) \
  static_assert(offsetof(nccl_t, field) == offsetof(ours_t, field), #nccl_t "." #field)

// ncclConfig_t: NCCL's is a prefix of ncore's 2.32.3 mirror.
static_assert(sizeof(ncclConfig_t) <= sizeof(nccl_config_t), "ncclConfig_t grew past the mirror");
SAME_OFFSET(ncclConfig_t, nccl_config_t, size);
SAME_OFFSET(ncclConfig_t, nccl_config_t, magic);
SAME_OFFSET(ncclConfig_t, nccl_config_t, version);
SAME_OFFSET(ncclConfig_t, nccl_config_t, blocking);
SAME_OFFSET(ncclConfig_t, nccl_config_t, netName);
SAME_OFFSET(ncclConfig_t, nccl_config_t, commName);
SAME_OFFSET(ncclConfig_t, nccl_config_t, CTAPolicy);
SAME_OFFSET(ncclConfig_t, nccl_config_t, nvlinkCentricSched);
#if NCCL_VERSION_CODE >= 22900
SAME_OFFSET(ncclConfig_t, nccl_config_t, graphUsageMode);
SAME_OFFSET(ncclConfig_t, nccl_config_t, numRmaCtx);
#endif
#if NCCL_VERSION_CODE >= 23000
SAME_OFFSET(ncclConfig_t, nccl_config_t, maxP2pPeers);
#endif
#if NCCL_VERSION_CODE >= 23005
SAME_OFFSET(ncclConfig_t, nccl_config_t, graphStreamOrdering);
#endif
#if NCCL_VERSION_CODE >= 23100
SAME_OFFSET(ncclConfig_t, nccl_config_t, launchOrderImplicit);
SAME_OFFSET(ncclConfig_t, nccl_config_t, numRmaSig);
SAME_OFFSET(ncclConfig_t, nccl_config_t, rmaEagerInit);
#endif
#if NCCL_VERSION_CODE >= 23101
SAME_OFFSET(ncclConfig_t, nccl_config_t, hostCftMode);
#endif
#if NCCL_VERSION_CODE >= 23200
SAME_OFFSET(ncclConfig_t, nccl_config_t, nvlsHostMode);
static_assert(sizeof(ncclConfig_t) == sizeof(nccl_config_t), "ncclConfig_t");
#endif

// ncclDevCommRequirements in this version's layout.
#if NCCL_VERSION_CODE > NCORE_NCCL_NEWEST_KNOWN
// ncore writes the prefix it knows (append-only struct), version capped.
static_assert(sizeof(ncclDevCommRequirements) >= row.requirements_size, "requirements size");
#elif NCCL_VERSION_CODE >= 22902
static_assert(sizeof(ncclDevCommRequirements) == row.requirements_size, "requirements size");
#endif
#if NCCL_VERSION_CODE >= 22902
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, magic);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, version);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, resourceRequirementsList);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, lsaMultimem);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginForceEnable);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginContextCount);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginCounterCount);
#else
static_assert(row.requirements_size == 0, "2.28: the header-less struct");
static_assert(sizeof(ncclDevCommRequirements) == sizeof(nccl_devcomm_requirements_v2_28_t), "requirements size");
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_v2_28_t, lsaMultimem);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_v2_28_t, ginForceEnable);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_v2_28_t, ginContextCount);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_v2_28_t, ginCounterCount);
#endif
#if NCCL_VERSION_CODE >= 22905
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginConnectionType);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginExclusiveContexts);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginQueueDepth);
#endif
#if NCCL_VERSION_CODE >= 23000
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginTrafficClass);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, worldGinBarrierCount);
#endif
#if NCCL_VERSION_CODE >= 23007
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginStrongSignalsRequired);
SAME_OFFSET(ncclDevCommRequirements, nccl_devcomm_requirements_t, ginVaSignalsRequired);
#endif

// ncclCommProperties (ncclCommQueryProperties).
#if NCCL_VERSION_CODE >= 22902
// The bytes ncore passes: this version's struct, or (past
// NCORE_NCCL_PROPERTIES_NEWEST_KNOWN) the prefix ncore knows.
#if NCCL_VERSION_CODE > NCORE_NCCL_PROPERTIES_NEWEST_KNOWN
static_assert(sizeof(ncclCommProperties) >= row.properties_size, "properties size");
#else
static_assert(sizeof(ncclCommProperties) == row.properties_size, "properties size");
#endif
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, rank);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, nRanks);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, cudaDev);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, nvmlDev);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, deviceApiSupport);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, multimemSupport);
#if NCCL_VERSION_CODE >= 22905
static_assert(!row.properties_gin_type_byte, "ginType is an int");
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, ginType);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, nLsaTeams);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, hostRmaSupport);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, railedGinType);
#if NCCL_VERSION_CODE >= 23100
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, commHash);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, ginMinStride);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, ginConnectionType);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, ginSupport);
SAME_OFFSET(ncclCommProperties, nccl_comm_properties_t, devCommRuntimeVersionSize);
#endif
#else
static_assert(row.properties_gin_type_byte && offsetof(ncclCommProperties, ginType) == 34 &&
              sizeof(((ncclCommProperties *)0)->ginType) == 1, "one-byte ginType at 34");
#endif
// ncclWaitSignalDesc_t, as core/nccl/nccl_lib.h declares it.
static_assert(sizeof(ncclWaitSignalDesc_t) == 4 * sizeof(int), "ncclWaitSignalDesc_t");
static_assert(offsetof(ncclWaitSignalDesc_t, opCnt) == 0 && offsetof(ncclWaitSignalDesc_t, peer) == 4 &&
              offsetof(ncclWaitSignalDesc_t, sigIdx) == 8 && offsetof(ncclWaitSignalDesc_t, ctx) == 12,
              "ncclWaitSignalDesc_t fields");
#else
static_assert(row.properties_size == 0, "2.28 has no ncclCommQueryProperties");
#endif

// struct ncclDevComm: the fields ncore reads. A newer NCCL than
// NCORE_NCCL_NEWEST_KNOWN fills it in that version's layout (ncore asks
// for it), and its own ncclDevComm is not append-only: nothing to compare.
#if NCCL_VERSION_CODE <= NCORE_NCCL_NEWEST_KNOWN
static_assert(sizeof(ncclDevComm) == row.devcomm_size, "devcomm size");
static_assert(sizeof(ncclDevComm) <= 1024, "NCORE_DEVCOMM_STORAGE");
static_assert(offsetof(ncclDevComm, rank) == row.devcomm_rank, "rank");
static_assert(offsetof(ncclDevComm, nRanks) == row.devcomm_nranks, "nRanks");
static_assert(offsetof(ncclDevComm, lsaRank) == row.devcomm_lsa_rank, "lsaRank");
static_assert(offsetof(ncclDevComm, lsaSize) == row.devcomm_lsa_size, "lsaSize");
static_assert(offsetof(ncclDevComm, lsaMultimem) == row.devcomm_lsa_multimem, "lsaMultimem");
#if NCCL_VERSION_CODE >= 22905
static_assert(offsetof(ncclDevComm, ginConnectionCount) == row.devcomm_gin_count, "ginConnectionCount");
static_assert(offsetof(ncclDevComm, ginNetDeviceTypes) == row.devcomm_gin_types, "ginNetDeviceTypes");
static_assert(offsetof(ncclDevComm, ginContextCount) == row.devcomm_gin_context_count, "ginContextCount");
#elif NCCL_VERSION_CODE >= 22902
static_assert(offsetof(ncclDevComm, ginContextCount) == row.devcomm_gin_count, "ginContextCount");
static_assert(offsetof(ncclDevComm, ginNetDeviceTypes) == row.devcomm_gin_types, "ginNetDeviceTypes");
static_assert(row.devcomm_gin_context_count == 0, "no separate context count");
#else
static_assert(offsetof(ncclDevComm, ginContextCount) == row.devcomm_gin_count, "ginContextCount");
static_assert(offsetof(ncclDevComm, ginTypes) == row.devcomm_gin_types, "ginTypes");
static_assert(row.devcomm_gin_context_count == 0, "no separate context count");
#endif
static_assert(offsetof(ncclDevComm, ginSignalCount) == row.devcomm_gin_signal_count, "ginSignalCount");
static_assert(offsetof(ncclDevComm, ginCounterCount) == row.devcomm_gin_counter_count, "ginCounterCount");
#endif

#if NCCL_VERSION_CODE >= 23003
static_assert(ncclTimeout == 8, "core/nccl/status.c maps 8 to NCORE_ERR_TIMEOUT");
#endif
