/* core/nccl — a device communicator's team and resource requirements
 * (ABI 1.2): NCCL's requirement nodes made by its own helpers
 * (ncclLsaBarrierCreateRequirement, ncclGinBarrierCreateRequirement,
 * ncclLLA2ACalcSlots + ncclLLA2ACreateRequirement) and ncore's team nodes,
 * chained for ncclDevCommCreate; afterwards the handles NCCL wrote are
 * copied into the core's asks. The structs below are NCCL's (nccl_device/
 * core.h and impl/ *__types.h), the same from 2.28.9 to 2.32. */
#ifndef NCORE_CORE_NCCL_DEVCOMM_REQUIREMENTS_H
#define NCORE_CORE_NCCL_DEVCOMM_REQUIREMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../devcomm_requirements.h"
#include "comm.h"

/* struct ncclDevResourceRequirements. */
typedef struct nccl_dev_resource_requirements {
  struct nccl_dev_resource_requirements *next;
  size_t bufferSize, bufferAlign;
  uint32_t *outBufferHandle;
  int ginSignalCount;
  int ginCounterCount;
  uint32_t *outGinSignalStart;
  uint32_t *outGinCounterStart;
} nccl_dev_resource_requirements_t;

/* struct ncclTeamRequirements. */
typedef struct nccl_team_requirements {
  struct nccl_team_requirements *next;
  struct nccl_team team;
  bool multimem;
  nccl_multimem_handle_t *outMultimemHandle;
} nccl_team_requirements_t;

/* The handle NCCL's helper fills for one resource (ncclLsaBarrierHandle
 * {bufHandle, nBarriers}, ncclGinBarrierHandle {signal0, bufHandle (2.28) /
 * unused (2.29+)}, ncclLLA2AHandle {bufHandle, nSlots}): two 32-bit words
 * whose meaning the kind gives. */
typedef struct nccl_resource_handle {
  uint32_t word0, word1;
} nccl_resource_handle_t;

/* NCCL's lists for one ncclDevCommCreate and the storage NCCL writes the
 * handles into; lives until the create returned. */
typedef struct nccl_dev_comm_lists {
  nccl_dev_resource_requirements_t *resources; /* asks->resource_count */
  nccl_resource_handle_t *resource_handles;
  nccl_team_requirements_t *teams;             /* asks->team_count */
  nccl_multimem_handle_t *multimem;
} nccl_dev_comm_lists_t;

/* Builds *lists from asks with NCCL's helpers (comm for the GIN barrier's).
 * Returns NCORE_OK; NOT_SUPPORTED (the loaded NCCL lacks a helper: the
 * message names it and its version), an NCCL error, or SYSTEM. */
ncore_status_t nccl_dev_comm_lists_build(nccl_comm_t *c,
                                         const core_dev_comm_asks_t *asks,
                                         nccl_dev_comm_lists_t *lists);

/* After a successful ncclDevCommCreate: copies the handles NCCL wrote into
 * asks->resource_handles and asks->multimem. */
void nccl_dev_comm_lists_read_back(const nccl_dev_comm_lists_t *lists,
                                   core_dev_comm_asks_t *asks);

/* Frees the lists (NULL members fine). */
void nccl_dev_comm_lists_free(nccl_dev_comm_lists_t *lists);

#endif
