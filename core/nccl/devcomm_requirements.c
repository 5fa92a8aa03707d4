/* core/nccl — a device communicator's team and resource requirements
 * (devcomm_requirements.h). */
#include "devcomm_requirements.h"

#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "status.h"

static struct nccl_team nccl_team_of(const ncore_team_t *t) {
  struct nccl_team team = {t->n_ranks, t->rank, t->stride};
  return team;
}

/* Makes resource i's node with NCCL's helper for its kind. */
static ncore_status_t make_resource(nccl_comm_t *c,
                                    const ncore_dev_resource_requirement_t *q,
                                    nccl_resource_handle_t *handle,
                                    nccl_dev_resource_requirements_t *node) {
  const int since = NCORE_NCCL_VERSION(2, 28, 0);
  ncore_status_t status;
  switch (q->kind) {
    case NCORE_DEV_RESOURCE_LSA_BARRIER:
      status = nccl_require(nccl_fn.ncclLsaBarrierCreateRequirement, since,
                            "requirements: resources: an LSA barrier "
                            "(ncclLsaBarrierCreateRequirement)");
      if (status != NCORE_OK) return status;
      return nccl_check(nccl_fn.ncclLsaBarrierCreateRequirement(
                            nccl_team_of(&q->team), q->n_barriers, handle, node),
                        "ncclLsaBarrierCreateRequirement", c->nccl);
    case NCORE_DEV_RESOURCE_GIN_BARRIER:
      status = nccl_require(nccl_fn.ncclGinBarrierCreateRequirement, since,
                            "requirements: resources: a GIN barrier "
                            "(ncclGinBarrierCreateRequirement)");
      if (status != NCORE_OK) return status;
      return nccl_check(nccl_fn.ncclGinBarrierCreateRequirement(
                            c->nccl, nccl_team_of(&q->team), q->n_barriers,
                            handle, node),
                        "ncclGinBarrierCreateRequirement", c->nccl);
    default: /* NCORE_DEV_RESOURCE_LL_A2A; the core checked the kind */
      status = nccl_require(nccl_fn.ncclLLA2ACalcSlots, since,
                            "requirements: resources: an LL A2A "
                            "(ncclLLA2ACalcSlots)");
      if (status == NCORE_OK)
        status = nccl_require(nccl_fn.ncclLLA2ACreateRequirement, since,
                              "requirements: resources: an LL A2A "
                              "(ncclLLA2ACreateRequirement)");
      if (status != NCORE_OK) return status;
      return nccl_check(
          nccl_fn.ncclLLA2ACreateRequirement(
              q->n_blocks,
              nccl_fn.ncclLLA2ACalcSlots(q->max_elements, q->max_element_size),
              handle, node),
          "ncclLLA2ACreateRequirement", c->nccl);
  }
}

ncore_status_t nccl_dev_comm_lists_build(nccl_comm_t *c,
                                         const core_dev_comm_asks_t *asks,
                                         nccl_dev_comm_lists_t *lists) {
  memset(lists, 0, sizeof *lists);
  const size_t nr = (size_t)asks->resource_count, nt = (size_t)asks->team_count;
  if (nr > 0) {
    lists->resources = calloc(nr, sizeof *lists->resources);
    lists->resource_handles = calloc(nr, sizeof *lists->resource_handles);
  }
  if (nt > 0) {
    lists->teams = calloc(nt, sizeof *lists->teams);
    lists->multimem = calloc(nt, sizeof *lists->multimem);
  }
  if ((nr > 0 && (lists->resources == NULL || lists->resource_handles == NULL)) ||
      (nt > 0 && (lists->teams == NULL || lists->multimem == NULL)))
    return core_error(NCORE_ERR_SYSTEM, "out of memory for NCCL's requirement lists");
  for (size_t i = 0; i < nr; i++) {
    ncore_status_t status = make_resource(c, &asks->resources[i],
                                          &lists->resource_handles[i],
                                          &lists->resources[i]);
    if (status != NCORE_OK) return status;
    /* The helper fills one node; ncore chains them, in the caller's order. */
    lists->resources[i].next = i + 1 < nr ? &lists->resources[i + 1] : NULL;
  }
  for (size_t i = 0; i < nt; i++) {
    nccl_team_requirements_t *node = &lists->teams[i];
    node->next = i + 1 < nt ? &lists->teams[i + 1] : NULL;
    node->team = nccl_team_of(&asks->teams[i].team);
    node->multimem = asks->teams[i].multimem != 0;
    node->outMultimemHandle = node->multimem ? &lists->multimem[i] : NULL;
  }
  return NCORE_OK;
}

void nccl_dev_comm_lists_read_back(const nccl_dev_comm_lists_t *lists,
                                   core_dev_comm_asks_t *asks) {
  for (int i = 0; i < asks->resource_count; i++) {
    const nccl_resource_handle_t *raw = &lists->resource_handles[i];
    ncore_dev_resource_handle_t *out = &asks->resource_handles[i];
    switch (asks->resources[i].kind) {
      case NCORE_DEV_RESOURCE_LSA_BARRIER: /* {bufHandle, nBarriers} */
        out->buf_handle = raw->word0;
        out->n_barriers = (int32_t)raw->word1;
        break;
      case NCORE_DEV_RESOURCE_GIN_BARRIER: /* {signal0, bufHandle / unused} */
        out->signal0 = raw->word0;
        break;
      default: /* LL A2A: {bufHandle, nSlots} */
        out->buf_handle = raw->word0;
        out->n_slots = raw->word1;
        break;
    }
  }
  for (int i = 0; i < asks->team_count; i++)
    if (asks->teams[i].multimem)
      asks->multimem[i].mc_base_pointer = lists->multimem[i].mcBasePtr;
}

void nccl_dev_comm_lists_free(nccl_dev_comm_lists_t *lists) {
  free(lists->resources);
  free(lists->resource_handles);
  free(lists->teams);
  free(lists->multimem);
  memset(lists, 0, sizeof *lists);
}
