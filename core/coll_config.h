/* core — the per-call configuration of the collectives' _config twins
 * (ncore/coll.h, ncore_coll_config_t): read and checked once, on every
 * backend, before the call reaches one. */
#ifndef NCORE_CORE_COLL_CONFIG_H
#define NCORE_CORE_COLL_CONFIG_H

#include "backend.h"

/* Reads the caller's config into *out (versioned: a smaller caller's
 * missing fields take NCORE_COLL_CONFIG_INIT's values) and checks what is
 * the same on every backend: force_alg_selection 0 or 1; vendor options
 * present where counted, at most NCORE_COLL_CONFIG_MAX_VENDOR_OPTIONS, each
 * with a vendor_id in 1..2^24-1, a known kind, a string where the kind is
 * STRING, and a key no other option has. Reads alg_selection into
 * out->algo (ncore's names, whole string, any case; anything else non-empty
 * is NCCL's expression). Returns NCORE_OK or NCORE_ERR_INVALID_ARGUMENT
 * (recorded, naming the field as "config.<field>"). Borrows theirs. */
ncore_status_t core_coll_config_read(const ncore_coll_config_t *theirs,
                                     core_coll_config_t *out);

/* selection as one of ncore's algorithm names (auto, nccl, oneshot,
 * twoshot: whole string, any case), the names NCORE_ALGO and a config's
 * alg_selection share: CORE_COLL_ALGO_COMM for NULL or empty,
 * CORE_COLL_ALGO_SELECTION for anything else. */
core_coll_algo_t core_coll_algo_named(const char *selection);

/* The first field config sets that only NCCL can serve, as
 * "config.<field>" (NULL: none): a CTA field, the CGA size or the CTA
 * policy set, a profiler tag, a vendor option, an NCCL selection
 * expression in alg_selection. */
const char *core_coll_config_nccl_field(const core_coll_config_t *config);

#endif
