/* core — the per-call configuration (coll_config.h). */
#include "coll_config.h"

#include <string.h>
#include <strings.h>

#include "error.h"
#include "versioned.h"

/* alg_selection's ncore names (ncore/coll.h), as NCORE_ALGO spells them. */
static const struct {
  const char *name;
  core_coll_algo_t algo;
} ncore_names[] = {
    {"auto", CORE_COLL_ALGO_AUTO},
    {"nccl", CORE_COLL_ALGO_NCCL},
    {"oneshot", CORE_COLL_ALGO_ONESHOT},
    {"twoshot", CORE_COLL_ALGO_TWOSHOT},
};

core_coll_algo_t core_coll_algo_named(const char *selection) {
  if (selection == NULL || *selection == '\0') return CORE_COLL_ALGO_COMM;
  for (size_t i = 0; i < sizeof ncore_names / sizeof ncore_names[0]; i++)
    if (strcasecmp(selection, ncore_names[i].name) == 0) return ncore_names[i].algo;
  return CORE_COLL_ALGO_SELECTION;
}

static ncore_status_t check_vendor_options(const ncore_coll_config_t *c) {
  uint32_t n = c->vendor_option_count;
  if (n == 0) return NCORE_OK;
  if (c->vendor_options == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config.vendor_options: NULL with vendor_option_count "
                      "%u: pass the options or a count of 0", (unsigned)n);
  if (n > NCORE_COLL_CONFIG_MAX_VENDOR_OPTIONS)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config.vendor_option_count: %u is more than %u",
                      (unsigned)n, NCORE_COLL_CONFIG_MAX_VENDOR_OPTIONS);
  for (uint32_t i = 0; i < n; i++) {
    const ncore_vendor_option_t *o = &c->vendor_options[i];
    if (o->vendor_id <= 0 || o->vendor_id >= (1 << 24))
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "config.vendor_options[%u].vendor_id: %d is not in "
                        "1..2^24-1", (unsigned)i, (int)o->vendor_id);
    if (o->kind != NCORE_VENDOR_OPTION_INT &&
        o->kind != NCORE_VENDOR_OPTION_STRING && o->kind != NCORE_VENDOR_OPTION_RAW)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "config.vendor_options[%u].kind: %d is not "
                        "NCORE_VENDOR_OPTION_INT, _STRING or _RAW",
                        (unsigned)i, (int)o->kind);
    if (o->kind == NCORE_VENDOR_OPTION_STRING && o->str_value == NULL)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "config.vendor_options[%u].str_value: NULL for a "
                        "STRING option", (unsigned)i);
    for (uint32_t j = 0; j < i; j++)
      if (c->vendor_options[j].vendor_id == o->vendor_id &&
          c->vendor_options[j].option_id == o->option_id)
        return core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "config.vendor_options[%u]: the key (vendor_id=%d, "
                          "option_id=%d) is also option %u's: keys must be "
                          "unique", (unsigned)i, (int)o->vendor_id,
                          (int)o->option_id, (unsigned)j);
  }
  return NCORE_OK;
}

ncore_status_t core_coll_config_read(const ncore_coll_config_t *theirs,
                                     core_coll_config_t *out) {
  static const ncore_coll_config_t defaults = NCORE_COLL_CONFIG_INIT;
  out->user = defaults;
  ncore_status_t status = core_versioned_read(
      &out->user, sizeof out->user, theirs, CORE_MIN_SIZE_COLL_CONFIG, "config");
  if (status != NCORE_OK) return status;
  const ncore_coll_config_t *c = &out->user;
  if (c->force_alg_selection != 0 && c->force_alg_selection != 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config.force_alg_selection: %d is not 0 or 1",
                      (int)c->force_alg_selection);
  status = check_vendor_options(c);
  if (status != NCORE_OK) return status;
  out->algo = core_coll_algo_named(c->alg_selection);
  return NCORE_OK;
}

const char *core_coll_config_nccl_field(const core_coll_config_t *config) {
  const ncore_coll_config_t *c = &config->user;
  if (c->min_ctas != NCORE_CONFIG_UNDEF_INT) return "config.min_ctas";
  if (c->max_ctas != NCORE_CONFIG_UNDEF_INT) return "config.max_ctas";
  if (c->nvls_ctas != NCORE_CONFIG_UNDEF_INT) return "config.nvls_ctas";
  if (c->cga_cluster_size != NCORE_CONFIG_UNDEF_INT) return "config.cga_cluster_size";
  if (c->cta_policy != NCORE_CONFIG_UNDEF_INT) return "config.cta_policy";
  if (c->user_profiler_tag != 0) return "config.user_profiler_tag";
  if (c->vendor_option_count != 0) return "config.vendor_options";
  if (config->algo == CORE_COLL_ALGO_SELECTION) return "config.alg_selection";
  return NULL;
}
