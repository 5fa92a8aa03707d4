/* core/nccl — a collective's per-call configuration (coll_config.h). */
#include "coll_config.h"

#include <stdio.h>
#include <string.h>

#include "../coll_config.h"
#include "../error.h"
#include "group.h"
#include "nccl_layouts.h"
#include "wait.h"

/* NCCL's ext list from the caller's vendor options (checked by the core). */
static nccl_config_ext_t *ext_list(const ncore_coll_config_t *c,
                                   nccl_config_ext_t *nodes) {
  for (uint32_t i = 0; i < c->vendor_option_count; i++) {
    const ncore_vendor_option_t *o = &c->vendor_options[i];
    nccl_config_ext_t *n = &nodes[i];
    memset(n, 0, sizeof *n);
    n->next = i + 1 < c->vendor_option_count ? &nodes[i + 1] : NULL;
    n->key.vendorId = o->vendor_id;
    n->key.optionId = o->option_id;
    if (o->kind == NCORE_VENDOR_OPTION_INT) n->val.i = o->int_value;
    else if (o->kind == NCORE_VENDOR_OPTION_STRING) n->val.s = o->str_value;
    else n->val.raw = o->raw_value;
  }
  return c->vendor_option_count > 0 ? nodes : NULL;
}

/* ncclCollConfig_t for the loaded version: its size (2.31's lacks the
 * event), NCCL's magic, the loaded version code. */
static void fill_nccl(const core_coll_config_t *config, int version,
                      nccl_call_config_t *out) {
  const ncore_coll_config_t *c = &config->user;
  nccl_coll_config_t *n = &out->nccl;
  memset(n, 0, sizeof *n);
  n->size = version >= NCORE_NCCL_COLL_CONFIG_EVENT_SINCE
                ? sizeof *n : NCORE_NCCL_COLL_CONFIG_SIZE_2_31;
  n->magic = NCORE_NCCL_API_MAGIC;
  n->version = (unsigned int)version;
  n->ext = ext_list(c, out->ext);
  n->minCTAs = c->min_ctas;
  n->maxCTAs = c->max_ctas;
  n->nvlsCTAs = c->nvls_ctas;
  n->cgaClusterSize = c->cga_cluster_size;
  /* ncore's names are ncore's: NCCL picks among its own kernels. */
  n->algSelection = config->algo == CORE_COLL_ALGO_SELECTION ? c->alg_selection : NULL;
  n->forceAlgSelection = c->force_alg_selection;
  n->CTAPolicy = c->cta_policy;
  n->userProfilerTag = c->user_profiler_tag;
  if (version >= NCORE_NCCL_COLL_CONFIG_EVENT_SINCE)
    n->launchCompletionEvent = c->launch_completion_event;
}

/* The nccl*Config twin of a's row, or NULL where the library lacks it. */
#define NCCL_CONFIG_FN_CASE(name, KIND, ...) \
  case CORE_COLL_##KIND:                     \
    return (const void *)nccl_fn.coll_config_##name;
static const void *config_fn(core_coll_kind_t kind) {
  switch (kind) {
    CORE_OPERATIONS(NCCL_CONFIG_FN_CASE, CORE_OP_NONE, CORE_OP_NONE)
    case CORE_COLL_KINDS:
      break;
  }
  return NULL;
}

ncore_status_t nccl_call_config_prepare(const nccl_comm_t *c,
                                        const core_coll_args_t *a,
                                        nccl_call_config_t *out) {
  out->use_nccl_config = 0;
  out->nccl_kernels_only = 0;
  out->ncore_kernel_forced = 0;
  out->event = NULL;
  out->nccl_records_event = 0;
  const core_coll_config_t *config = a->config;
  if (config == NULL) return NCORE_OK;
  const ncore_coll_config_t *u = &config->user;
  int version = nccl_runtime_version();
  const char *function = core_coll_shapes[a->kind].config_function;
  char what[160];
  int has_config = version >= NCORE_NCCL_COLL_CONFIG_SINCE &&
                   config_fn(a->kind) != NULL;
  out->nccl_kernels_only = config->algo == CORE_COLL_ALGO_SELECTION;
  out->ncore_kernel_forced = u->force_alg_selection == 1 &&
                             (config->algo == CORE_COLL_ALGO_ONESHOT ||
                              config->algo == CORE_COLL_ALGO_TWOSHOT);
  const char *field = core_coll_config_nccl_field(config);
  if (field != NULL && !has_config) {
    if (strcmp(field, "config.alg_selection") == 0 && u->force_alg_selection == 0) {
      out->nccl_kernels_only = 0; /* NCCL's fallback: automatic selection */
    } else {
      snprintf(what, sizeof what, "%s of %s (ncclCollConfig_t, the per-call "
               "configuration)", field, function);
      ncore_status_t status = nccl_require(config_fn(a->kind),
                                           NCORE_NCCL_COLL_CONFIG_SINCE, what);
      if (status != NCORE_OK) return status;
    }
  }
  if (has_config) {
    out->use_nccl_config = 1;
    fill_nccl(config, version, out);
  }
  out->event = (CUevent)u->launch_completion_event;
  if (out->event == NULL) return NCORE_OK;
  out->nccl_records_event = has_config && version >= NCORE_NCCL_COLL_CONFIG_EVENT_SINCE;
  if (!out->nccl_records_event && (nccl_in_group() || c->nonblocking)) {
    snprintf(what, sizeof what, "config.launch_completion_event of %s %s",
             function, c->nonblocking ? "on a non-blocking communicator"
                                      : "inside a group");
    return nccl_require_version(NCORE_NCCL_COLL_CONFIG_EVENT_SINCE, what);
  }
  return NCORE_OK;
}

ncore_status_t nccl_call_config_finish(const nccl_call_config_t *config,
                                       CUstream s, int on_ncore,
                                       ncore_status_t status) {
  if (status != NCORE_OK || config->event == NULL ||
      (config->nccl_records_event && !on_ncore))
    return status;
  return cu_check(cu_fn.EventRecord(config->event, s),
                  "cuEventRecord (config.launch_completion_event)");
}
