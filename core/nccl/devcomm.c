/* core/nccl — device communicators (ncclDevCommCreate / ncclDevCommDestroy).
 * The ncclDevComm lives in host memory owned here (DevCommResource.ptr is
 * its address, as nccl.core passes it by value to kernels). Both the
 * requirements ncore passes and the ncclDevComm it reads change layout
 * between NCCL releases: the loaded version's are nccl_layout()'s
 * (nccl_layouts.h). */
#include "devcomm.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "devcomm_requirements.h"
#include "device.h"
#include "properties.h"
#include "wait.h"

/* Reads a field of the stored ncclDevComm. */
static int read_int(const nccl_devcomm_t *d, size_t offset) {
  int v;
  memcpy(&v, d->storage + offset, sizeof v);
  return v;
}

/* GIN contexts (2.28-2.29.4: a byte; 2.29.5+: a uint32 of its own, the
 * byte then counting connections). */
static int gin_context_count_of(const nccl_devcomm_t *d) {
  const nccl_layout_t *l = nccl_layout();
  if (l->devcomm_gin_context_count != 0)
    return read_int(d, l->devcomm_gin_context_count);
  return d->storage[l->devcomm_gin_count];
}

/* GIN type of context 0 (ginTypes[0]), NONE without GIN. */
static ncore_gin_type_t gin_type_of(const nccl_devcomm_t *d) {
  const nccl_layout_t *l = nccl_layout();
  if (d->storage[l->devcomm_gin_count] == 0) return NCORE_GIN_TYPE_NONE;
  return (ncore_gin_type_t)d->storage[l->devcomm_gin_types];
}

/* NCCL's default for a requirement left UNDEF by the caller. */
static int or_default(int32_t value, int nccl_default) {
  return value == NCORE_CONFIG_UNDEF_INT ? nccl_default : value;
}

/* The requirements fields newer than 2.28, with the version that added
 * each: set on an older NCCL they are refused, not dropped. */
static ncore_status_t check_newer_requirements(
    const ncore_dev_comm_requirements_t *r) {
  const struct {
    int32_t value;
    const char *what;
    int since;
  } newer[] = {
      {r->gin_exclusive_contexts, "requirements: gin_exclusive_contexts",
       NCORE_NCCL_VERSION(2, 29, 5)},
      {r->gin_queue_depth, "requirements: gin_queue_depth",
       NCORE_NCCL_VERSION(2, 29, 5)},
      {r->gin_traffic_class, "requirements: gin_traffic_class",
       NCORE_NCCL_VERSION(2, 30, 0)},
      {r->world_gin_barrier_count, "requirements: world_gin_barrier_count",
       NCORE_NCCL_VERSION(2, 30, 0)},
      {r->gin_strong_signals_required,
       "requirements: gin_strong_signals_required",
       NCORE_NCCL_VERSION(2, 30, 7)},
      {r->gin_va_signals_required, "requirements: gin_va_signals_required",
       NCORE_NCCL_VERSION(2, 30, 7)},
  };
  for (size_t i = 0; i < sizeof newer / sizeof newer[0]; i++) {
    if (newer[i].value == NCORE_CONFIG_UNDEF_INT) continue;
    ncore_status_t status =
        nccl_require_version(newer[i].since, newer[i].what);
    if (status != NCORE_OK) return status;
  }
  /* NCCL 2.32's fields (ginCustomStride, ginType, cftCaps, cftBarrierCount)
   * follow useRuntimeVersion, past the 2.30.7 layout ncore writes from 2.31
   * on (nccl_layouts.h): refused rather than dropped. */
  const struct {
    int32_t value;
    const char *what;
  } v2_32[] = {
      {r->gin_custom_stride, "requirements: gin_custom_stride"},
      {r->gin_type, "requirements: gin_type"},
      {r->cft_caps, "requirements: cft_caps"},
      {r->cft_barrier_count, "requirements: cft_barrier_count"},
  };
  for (size_t i = 0; i < sizeof v2_32 / sizeof v2_32[0]; i++) {
    if (v2_32[i].value == NCORE_CONFIG_UNDEF_INT) continue;
    ncore_status_t status =
        nccl_require_version(NCORE_NCCL_VERSION(2, 32, 0), v2_32[i].what);
    if (status != NCORE_OK) return status;
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "%s: NCCL %s has it, but ncore passes NCCL 2.30.7's "
                      "requirements layout, which ends before it",
                      v2_32[i].what,
                      nccl_version_text(nccl_runtime_version()));
  }
  return NCORE_OK;
}

/* Whether NCCL takes gin_connection_type itself (2.29.5+). */
static int native_connection_type(void) {
  return nccl_layout()->requirements_size >=
         offsetof(nccl_devcomm_requirements_t, ginExclusiveContexts);
}

/* The requirements in the loaded version's layout, into storage (at least
 * sizeof(nccl_devcomm_requirements_t) bytes); NCCL's lists are ncore's
 * own (lists, from teams / resources) or else the caller's raw ones. */
static void requirements_map(const ncore_dev_comm_requirements_t *r,
                             const nccl_dev_comm_lists_t *lists,
                             void *storage) {
  /* Before 2.29.5 a required connection type can only force GIN on; the
   * result is checked after creation. */
  int force = r->gin_force_enable != 0 ||
              (!native_connection_type() &&
               r->gin_connection_type != NCORE_GIN_CONNECTION_NONE);
  nccl_devcomm_requirements_t req = {
      .size = nccl_layout()->requirements_size,
      .magic = NCORE_NCCL_API_MAGIC,
      .version = (unsigned)nccl_struct_version(),
      .resourceRequirementsList = lists->resources != NULL
                                      ? (void *)lists->resources
                                      : r->resource_requirements_list,
      .teamRequirementsList = lists->teams != NULL
                                  ? (void *)lists->teams
                                  : r->team_requirements_list,
      .lsaMultimem = r->lsa_multimem != 0,
      .barrierCount = r->barrier_count,
      .lsaBarrierCount = r->lsa_barrier_count,
      .railGinBarrierCount = r->rail_gin_barrier_count,
      .lsaLLA2ABlockCount = r->lsa_ll_a2a_block_count,
      .lsaLLA2ASlotCount = r->lsa_ll_a2a_slot_count,
      .ginForceEnable = force,
      .ginContextCount = or_default(r->gin_context_count, 4),
      .ginSignalCount = r->gin_signal_count,
      .ginCounterCount = r->gin_counter_count,
      .ginConnectionType = r->gin_connection_type,
      .ginExclusiveContexts = or_default(r->gin_exclusive_contexts, 0) != 0,
      .ginQueueDepth = or_default(r->gin_queue_depth, 0),
      .ginTrafficClass =
          or_default(r->gin_traffic_class, NCORE_NCCL_UNDEF_INT),
      .worldGinBarrierCount = or_default(r->world_gin_barrier_count, 0),
      .ginStrongSignalsRequired =
          or_default(r->gin_strong_signals_required, 1) != 0,
      .ginVaSignalsRequired = or_default(r->gin_va_signals_required, 1) != 0,
  };
  if (req.size != 0) {
    memcpy(storage, &req, sizeof req);
    return;
  }
  /* 2.28: no size/magic/version header, fields otherwise the same. */
  nccl_devcomm_requirements_v2_28_t old = {
      .resourceRequirementsList = req.resourceRequirementsList,
      .teamRequirementsList = req.teamRequirementsList,
      .lsaMultimem = req.lsaMultimem,
      .barrierCount = req.barrierCount,
      .lsaBarrierCount = req.lsaBarrierCount,
      .railGinBarrierCount = req.railGinBarrierCount,
      .lsaLLA2ABlockCount = req.lsaLLA2ABlockCount,
      .lsaLLA2ASlotCount = req.lsaLLA2ASlotCount,
      .ginForceEnable = req.ginForceEnable,
      .ginContextCount = req.ginContextCount,
      .ginSignalCount = req.ginSignalCount,
      .ginCounterCount = req.ginCounterCount,
  };
  memcpy(storage, &old, sizeof old);
}

/* A multimem request where the communicator has no NVLink multicast
 * (NCCL_NVLS_ENABLE=0, no NVSwitch): NCCL answers ncclInvalidArgument
 * ("Multicast support requested ... but none available"), a fact of the
 * machine rather than a usage error, so it is NOT_SUPPORTED here, as on
 * the host backend. */
static const char *multimem_field(const ncore_dev_comm_requirements_t *r,
                                  const core_dev_comm_asks_t *asks) {
  if (r->lsa_multimem) return "requirements: lsa_multimem";
  for (int i = 0; i < asks->team_count; i++)
    if (asks->teams[i].multimem) return "requirements: teams[].multimem";
  return NULL;
}

static ncore_status_t multimem_unavailable(const char *field) {
  return core_error(NCORE_ERR_NOT_SUPPORTED,
                    "%s: NVLink multicast (multimem) is not available to "
                    "this communicator (NCCL reports no multimem support: "
                    "NCCL_NVLS_ENABLE=0, or no NVSwitch multicast)", field);
}

/* Before the call where NCCL's properties tell (2.29.2+); 2.28 has no
 * query, and there NCCL's own answer is read after the call. */
static ncore_status_t refuse_multimem_without_support(nccl_comm_t *c,
                                                      const char *field) {
  if (field == NULL || nccl_fn.ncclCommQueryProperties == NULL ||
      nccl_layout()->properties_size == 0)
    return NCORE_OK;
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  if (nccl_query_properties(c, &props) != NCORE_OK || props.multimem_support)
    return NCORE_OK; /* NCCL decides */
  return multimem_unavailable(field);
}

ncore_status_t nccl_dev_comm_create(core_backend_comm_t *comm,
                                    const ncore_dev_comm_requirements_t *r,
                                    core_dev_comm_asks_t *asks,
                                    core_backend_dev_comm_t **out) {
  nccl_comm_t *c = comm;
  const char *multimem = multimem_field(r, asks);
  ncore_status_t status = check_newer_requirements(r);
  if (status == NCORE_OK) status = nccl_comm_enter(c);
  if (status == NCORE_OK) status = refuse_multimem_without_support(c, multimem);
  if (status != NCORE_OK) return status;
  nccl_dev_comm_lists_t lists;
  status = nccl_dev_comm_lists_build(c, asks, &lists);
  nccl_devcomm_t *d = status == NCORE_OK ? calloc(1, sizeof *d) : NULL;
  if (status == NCORE_OK && d == NULL)
    status = core_error(NCORE_ERR_SYSTEM, "out of memory");
  if (status != NCORE_OK) {
    nccl_dev_comm_lists_free(&lists);
    return status;
  }
  d->comm = c;
  d->lsa_multimem = r->lsa_multimem != 0;
  _Alignas(16) unsigned char req[sizeof(nccl_devcomm_requirements_t)];
  requirements_map(r, &lists, req);
  status = nccl_settle(nccl_fn.ncclDevCommCreate(c->nccl, req, d->storage), c,
                       "ncclDevCommCreate");
  if (status == NCORE_ERR_INVALID_ARGUMENT && multimem != NULL &&
      strstr(core_error_detail(), "Multicast support requested") != NULL)
    /* 2.28 (no property query beforehand): NCCL's own words say the same. */
    status = multimem_unavailable(multimem);
  if (status == NCORE_OK) nccl_dev_comm_lists_read_back(&lists, asks);
  nccl_dev_comm_lists_free(&lists);
  if (status == NCORE_ERR_INVALID_USAGE && c->lsa_size < c->nranks)
    /* Ranks outside this rank's LSA team are reached only through GIN, and
     * NCCL answers ncclInvalidUsage ("GIN not supported") where it has no
     * GIN-capable network: a fact of the machine, not a usage error. */
    status = core_error(NCORE_ERR_NOT_SUPPORTED,
                        "comm: a device communicator over ranks outside this "
                        "rank's LSA team (%d of %d ranks) needs GIN, which "
                        "NCCL does not support here", c->lsa_size, c->nranks);
  if (status != NCORE_OK) {
    free(d);
    return status;
  }
  ncore_gin_type_t gin = gin_type_of(d);
  if (r->gin_connection_type != NCORE_GIN_CONNECTION_NONE &&
      gin == NCORE_GIN_TYPE_NONE) {
    (void)nccl_fn.ncclDevCommDestroy(c->nccl, d->storage);
    free(d);
    return core_error(NCORE_ERR_NOT_SUPPORTED,
                      "requirements: gin_connection_type: %s needs GIN, and "
                      "NCCL created no GIN context (no GIN-capable network "
                      "plugin / NIC for this communicator)",
                      r->gin_connection_type == NCORE_GIN_CONNECTION_FULL
                          ? "FULL" : "RAIL");
  }
  c->gin_type = gin;
  c->railed_gin_type = gin;
  if (d->lsa_multimem) c->multimem_devcomm = d;
  *out = d;
  return NCORE_OK;
}

void nccl_dev_comm_destroy(core_backend_comm_t *comm,
                           core_backend_dev_comm_t *dev_comm) {
  nccl_comm_t *c = comm;
  nccl_devcomm_t *d = dev_comm;
  if (c->multimem_devcomm == d) c->multimem_devcomm = NULL;
  if (!core_comm_state_aborted(c->state)) {
    cu_fn.CtxSetCurrent(c->ctx);
    (void)nccl_fn.ncclDevCommDestroy(c->nccl, d->storage);
  }
  free(d);
}

void *nccl_dev_comm_pointer(core_backend_dev_comm_t *dev_comm) {
  return ((nccl_devcomm_t *)dev_comm)->storage;
}

void nccl_dev_comm_info(core_backend_dev_comm_t *dev_comm,
                        ncore_dev_comm_info_t *out) {
  nccl_devcomm_t *d = dev_comm;
  const nccl_layout_t *l = nccl_layout();
  out->rank = read_int(d, l->devcomm_rank);
  out->nranks = read_int(d, l->devcomm_nranks);
  out->lsa_rank = read_int(d, l->devcomm_lsa_rank);
  out->lsa_size = read_int(d, l->devcomm_lsa_size);
  out->gin_type = gin_type_of(d);
  out->railed_gin_type = gin_type_of(d);
  out->gin_context_count = gin_context_count_of(d);
  out->gin_signal_count = read_int(d, l->devcomm_gin_signal_count);
  out->gin_counter_count = read_int(d, l->devcomm_gin_counter_count);
  void *mc = NULL;
  memcpy(&mc, d->storage + l->devcomm_lsa_multimem, sizeof mc);
  out->lsa_multimem = d->lsa_multimem && mc != NULL;
}
