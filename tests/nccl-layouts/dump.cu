// Prints the layout facts ncore depends on (core/nccl/nccl_layouts.c) for the
// NCCL headers on the include path: sizes and offsets of ncclConfig_t,
// ncclDevCommRequirements, ncclCommProperties and ncclDevComm. derive.sh
// runs it for each NCCL release tag; the numbers are committed, and
// check.cu holds them against real headers in every build.
#include <cstddef>
#include <cstdio>
#include <nccl.h>
#include <nccl_device.h>

#define OFF(T, F) std::printf("  %-28s %4zu\n", #T "." #F, offsetof(T, F))
#define SIZE(T) std::printf("  %-28s %4zu\n", "sizeof " #T, sizeof(T))

int main() {
  std::printf("NCCL %d\n", NCCL_VERSION_CODE);
  SIZE(ncclConfig_t);
  SIZE(ncclDevCommRequirements);
  OFF(ncclDevCommRequirements, lsaMultimem);
  OFF(ncclDevCommRequirements, ginCounterCount);
#if NCCL_VERSION_CODE >= 22902
  OFF(ncclDevCommRequirements, resourceRequirementsList);
  SIZE(ncclCommProperties);
  OFF(ncclCommProperties, rank);
  OFF(ncclCommProperties, ginType);
#endif
#if NCCL_VERSION_CODE >= 22905
  OFF(ncclDevCommRequirements, ginConnectionType);
  OFF(ncclDevCommRequirements, ginQueueDepth);
  OFF(ncclCommProperties, nLsaTeams);
  OFF(ncclCommProperties, hostRmaSupport);
  OFF(ncclCommProperties, railedGinType);
#endif
  SIZE(ncclDevComm);
  OFF(ncclDevComm, rank);
  OFF(ncclDevComm, nRanks);
  OFF(ncclDevComm, lsaRank);
  OFF(ncclDevComm, lsaSize);
  OFF(ncclDevComm, lsaMultimem);
#if NCCL_VERSION_CODE >= 22905
  OFF(ncclDevComm, ginConnectionCount);
  OFF(ncclDevComm, ginNetDeviceTypes);
#elif NCCL_VERSION_CODE >= 22902
  OFF(ncclDevComm, ginContextCount);
  OFF(ncclDevComm, ginNetDeviceTypes);
#else
  OFF(ncclDevComm, ginContextCount);
  OFF(ncclDevComm, ginTypes);
#endif
  OFF(ncclDevComm, ginSignalCount);
  OFF(ncclDevComm, ginCounterCount);
#if NCCL_VERSION_CODE >= 22905
  OFF(ncclDevComm, ginContextCount);
#endif
  return 0;
}
