/* core/nccl — the layout of NCCL 2.28.9's struct ncclDevComm and struct
 * ncclDevCommRequirements as C sees them. the nccl_device headers are C++ only, so C
 * code cannot include it; kernels/ncore_kernels.cu includes both this file
 * and <nccl_device.h> and static_asserts every number here, so a different
 * NCCL header fails the kernel build instead of corrupting memory. */
#ifndef NCORE_CORE_NCCL_DEVCOMM_LAYOUT_H
#define NCORE_CORE_NCCL_DEVCOMM_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* Host storage reserved for one ncclDevComm (sizeof is 200 in 2.28.9; the
 * slack absorbs an NCCL that grows the struct at its end). */
#define NCORE_DEVCOMM_STORAGE 1024
#define NCORE_DEVCOMM_SIZE_2_28 200
#define NCORE_DEVCOMM_OFFSET_RANK 0
#define NCORE_DEVCOMM_OFFSET_NRANKS 4
#define NCORE_DEVCOMM_OFFSET_LSA_RANK 12
#define NCORE_DEVCOMM_OFFSET_LSA_SIZE 16
#define NCORE_DEVCOMM_OFFSET_LSA_MULTIMEM 112 /* ncclMultimemHandle {mcBasePtr} */
#define NCORE_DEVCOMM_OFFSET_GIN_CONTEXT_COUNT 136
#define NCORE_DEVCOMM_OFFSET_GIN_TYPES 137   /* uint8_t[4] */
#define NCORE_DEVCOMM_OFFSET_GIN_SIGNAL_COUNT 180
#define NCORE_DEVCOMM_OFFSET_GIN_COUNTER_COUNT 188

/* struct ncclDevCommRequirements of 2.28.9, field for field. */
typedef struct nccl_devcomm_requirements {
  void *resourceRequirementsList;
  void *teamRequirementsList;
  bool lsaMultimem;
  int barrierCount;
  int lsaBarrierCount;
  int railGinBarrierCount;
  int lsaLLA2ABlockCount, lsaLLA2ASlotCount;
  bool ginForceEnable;
  int ginContextCount;
  int ginSignalCount;
  int ginCounterCount;
} nccl_devcomm_requirements_t;

#endif
