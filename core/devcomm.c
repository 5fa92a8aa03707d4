/* core — device communicators (ncore/devcomm.h, ncclDevCommCreate). */
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
      r->gin_connection_type != NCORE_GIN_CONNECTION_RAIL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: gin_connection_type: %d is not a "
                      "connection type (NONE 0, FULL 1, RAIL 2)",
                      (int)r->gin_connection_type);
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
  if (status == NCORE_OK)
    status = c->ops->dev_comm_create(c->impl, &req, &fields.impl.dev_comm);
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
  core_versioned_write(out, their_size, &info, sizeof info);
  core_resource_release(res);
  return NCORE_OK;
}

CORE_RESOURCE_CLOSE_AND_IS_VALID(ncore_dev_comm_close, ncore_dev_comm_is_valid,
                                 ncore_dev_comm_t, dev_comm,
                                 CORE_HANDLE_DEV_COMM)
