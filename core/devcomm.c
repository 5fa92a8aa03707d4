/* core — device communicators (ncore/devcomm.h, ncclDevCommCreate). */
#include <stdlib.h>

#include "devcomm_requirements.h"
#include "resource_entry.h"
#include "validate.h"
#include "versioned.h"

/* Checks the fields the core understands: counts not negative (UNDEF, for
 * NCCL's default, where allowed), flags 0/1, a known gin_connection_type,
 * and no NCCL requirement lists on the host backend. */
static ncore_status_t check_requirements(const core_comm_object_t *c,
                                         const ncore_dev_comm_requirements_t *r) {
  const struct {
    const char *name;
    int32_t value;
    int undef_ok; /* NCORE_CONFIG_UNDEF_INT means NCCL's default */
    int flag;     /* 0 or 1 */
  } fields[] = {
      {"barrier_count", r->barrier_count, 0, 0},
      {"lsa_barrier_count", r->lsa_barrier_count, 0, 0},
      {"rail_gin_barrier_count", r->rail_gin_barrier_count, 0, 0},
      {"lsa_ll_a2a_block_count", r->lsa_ll_a2a_block_count, 0, 0},
      {"lsa_ll_a2a_slot_count", r->lsa_ll_a2a_slot_count, 0, 0},
      {"gin_context_count", r->gin_context_count, 1, 0},
      {"gin_signal_count", r->gin_signal_count, 0, 0},
      {"gin_counter_count", r->gin_counter_count, 0, 0},
      {"gin_exclusive_contexts", r->gin_exclusive_contexts, 1, 1},
      {"gin_queue_depth", r->gin_queue_depth, 1, 0},
      {"gin_traffic_class", r->gin_traffic_class, 1, 0},
      {"world_gin_barrier_count", r->world_gin_barrier_count, 1, 0},
      {"gin_strong_signals_required", r->gin_strong_signals_required, 1, 1},
      {"gin_va_signals_required", r->gin_va_signals_required, 1, 1},
      {"cft_barrier_count", r->cft_barrier_count, 1, 0},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    int32_t v = fields[i].value;
    if (fields[i].undef_ok && v == NCORE_CONFIG_UNDEF_INT) continue;
    if (v < 0)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "requirements: %s: %d is negative", fields[i].name,
                        (int)v);
    if (fields[i].flag && v > 1)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "requirements: %s: %d is not 0 or 1", fields[i].name,
                        (int)v);
  }
  if (r->gin_connection_type != NCORE_GIN_CONNECTION_NONE &&
      r->gin_connection_type != NCORE_GIN_CONNECTION_FULL &&
      r->gin_connection_type != NCORE_GIN_CONNECTION_RAIL &&
      r->gin_connection_type != NCORE_GIN_CONNECTION_CUSTOM_STRIDE)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: gin_connection_type: %d is not a "
                      "connection type (NONE 0, FULL 1, RAIL 2, "
                      "CUSTOM_STRIDE 3)",
                      (int)r->gin_connection_type);
  if (r->gin_connection_type == NCORE_GIN_CONNECTION_CUSTOM_STRIDE &&
      r->gin_custom_stride == NCORE_CONFIG_UNDEF_INT)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: gin_connection_type: CUSTOM_STRIDE "
                      "needs gin_custom_stride (the stride between the "
                      "ranks GIN connects)");
  if (r->gin_custom_stride != NCORE_CONFIG_UNDEF_INT && r->gin_custom_stride < 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: gin_custom_stride: %d must be at least 1",
                      (int)r->gin_custom_stride);
  if (r->gin_type != NCORE_CONFIG_UNDEF_INT &&
      r->gin_type != NCORE_GIN_TYPE_NONE && r->gin_type != NCORE_GIN_TYPE_PROXY &&
      r->gin_type != NCORE_GIN_TYPE_GDAKI && r->gin_type != NCORE_GIN_TYPE_GPI &&
      r->gin_type != NCORE_GIN_TYPE_EFA_GDA)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: gin_type: %d is not a GIN type (NONE 0, "
                      "PROXY 2, GDAKI 3, GPI 4, EFA_GDA 5)",
                      (int)r->gin_type);
  if (r->cft_caps != NCORE_CONFIG_UNDEF_INT && (r->cft_caps & ~3) != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: cft_caps: 0x%x has bits other than CFT 0x1 "
                      "and CFT_MULTIMEM 0x2",
                      (unsigned)r->cft_caps);
  if (!c->ops->caps.dev_comm_requirement_lists &&
      (r->resource_requirements_list != NULL ||
       r->team_requirements_list != NULL))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: resource_requirements_list and "
                      "team_requirements_list must be NULL on the %s backend",
                      c->ops->name);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_create_dev_comm(
    ncore_dev_comm_t *out, ncore_comm_t comm,
    const ncore_dev_comm_requirements_t *requirements) {
  CORE_ENTER("ncore_create_dev_comm");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_resource_create_begin(out, comm, &c);
  if (status != NCORE_OK) return status;
  ncore_dev_comm_requirements_t req = NCORE_DEV_COMM_REQUIREMENTS_INIT;
  if (requirements != NULL)
    status = core_versioned_read(
        &req, sizeof req, requirements,
        CORE_MIN_SIZE_DEV_COMM_REQUIREMENTS, "requirements");
  if (status == NCORE_OK) status = check_requirements(c, &req);
  core_resource_t fields = {0};
  core_dev_comm_asks_t *asks = NULL;
  if (status == NCORE_OK) {
    asks = calloc(1, sizeof *asks);
    status = asks != NULL ? core_dev_comm_asks_read(c, &req, asks)
                          : core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  if (status == NCORE_OK)
    status = c->ops->dev_comm_create(c->impl, &req, asks, &fields.impl.dev_comm);
  if (status == NCORE_OK) {
    fields.dev_comm_asks = asks; /* the resource owns it from here */
  } else {
    core_dev_comm_asks_free(asks);
    free(asks);
  }
  return core_resource_create_end(c, status, CORE_HANDLE_DEV_COMM, &fields,
                                  out);
}

CORE_RESOURCE_QUERY(ncore_dev_comm_pointer, ncore_dev_comm_t, dev_comm,
                    CORE_HANDLE_DEV_COMM, void *,
                    res->comm->ops->dev_comm_pointer(res->impl.dev_comm))

NCORE_API ncore_status_t ncore_dev_comm_info(ncore_dev_comm_t dev_comm,
                                             ncore_dev_comm_info_t *out) {
  CORE_ENTER("ncore_dev_comm_info");
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  uint32_t their_size = 0;
  status = core_versioned_check_out(out, CORE_MIN_SIZE_DEV_COMM_INFO,
                                    sizeof(ncore_dev_comm_info_t), "out",
                                    &their_size);
  if (status != NCORE_OK) return status;
  core_resource_t *res = NULL;
  status = core_resource_acquire(dev_comm, CORE_HANDLE_DEV_COMM, "dev_comm",
                                 &res);
  if (status != NCORE_OK) return status;
  ncore_dev_comm_info_t info = NCORE_DEV_COMM_INFO_INIT;
  res->comm->ops->dev_comm_info(res->impl.dev_comm, &info);
  info.struct_size = (uint32_t)sizeof info;
  info.resource_count = res->dev_comm_asks->resource_count;
  core_versioned_write(out, their_size, &info, sizeof info);
  core_resource_release(res);
  return NCORE_OK;
}

/* Checks out's struct_size (>= min_size) and acquires dev_comm. */
static ncore_status_t begin_handle_query(ncore_dev_comm_t dev_comm,
                                         const void *out, size_t min_size,
                                         size_t ours_size, uint32_t *their_size,
                                         core_resource_t **res) {
  ncore_status_t status = core_check_not_null(out, "out");
  if (status == NCORE_OK)
    status = core_versioned_check_out(out, min_size, ours_size, "out", their_size);
  if (status == NCORE_OK)
    status = core_resource_acquire(dev_comm, CORE_HANDLE_DEV_COMM, "dev_comm", res);
  return status;
}

NCORE_API ncore_status_t ncore_dev_comm_resource_handle(
    ncore_dev_comm_t dev_comm, int index, ncore_dev_resource_handle_t *out) {
  CORE_ENTER("ncore_dev_comm_resource_handle");
  uint32_t their_size = 0;
  core_resource_t *res = NULL;
  ncore_status_t status = begin_handle_query(
      dev_comm, out, CORE_VERSIONED_MIN_SIZE(ncore_dev_resource_handle_t, kind),
      sizeof(ncore_dev_resource_handle_t), &their_size, &res);
  if (status != NCORE_OK) return status;
  const core_dev_comm_asks_t *asks = res->dev_comm_asks;
  status = core_check_range(index, asks->resource_count, "index");
  if (status == NCORE_OK)
    core_versioned_write(out, their_size, &asks->resource_handles[index],
                         sizeof asks->resource_handles[index]);
  core_resource_release(res);
  return status;
}

NCORE_API ncore_status_t ncore_dev_comm_multimem_handle(
    ncore_dev_comm_t dev_comm, const ncore_team_t *team,
    ncore_multimem_handle_t *out) {
  CORE_ENTER("ncore_dev_comm_multimem_handle");
  ncore_status_t status = core_check_not_null(team, "team");
  if (status != NCORE_OK) return status;
  uint32_t their_size = 0;
  core_resource_t *res = NULL;
  status = begin_handle_query(
      dev_comm, out, CORE_VERSIONED_MIN_SIZE(ncore_multimem_handle_t, mc_base_pointer),
      sizeof(ncore_multimem_handle_t), &their_size, &res);
  if (status != NCORE_OK) return status;
  const core_dev_comm_asks_t *asks = res->dev_comm_asks;
  int j = 0;
  while (j < asks->team_count &&
         !(asks->teams[j].multimem && core_team_equal(&asks->teams[j].team, team)))
    j++;
  if (j < asks->team_count)
    core_versioned_write(out, their_size, &asks->multimem[j], sizeof asks->multimem[j]);
  else
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "team: {n_ranks %d, rank %d, stride %d} was not requested "
                        "with multimem 1 in this device communicator's teams",
                        (int)team->n_ranks, (int)team->rank, (int)team->stride);
  core_resource_release(res);
  return status;
}

CORE_RESOURCE_CLOSE_AND_IS_VALID(ncore_dev_comm_close, ncore_dev_comm_is_valid,
                                 ncore_dev_comm_t, dev_comm,
                                 CORE_HANDLE_DEV_COMM)
