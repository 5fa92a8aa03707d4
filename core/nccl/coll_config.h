/* core/nccl — a collective's per-call configuration (ncore/coll.h,
 * ncore_coll_config_t) on NCCL: what the loaded NCCL takes in its
 * nccl*Config calls (2.31+; the launch-completion event 2.32+), what ncore
 * serves itself on every NCCL (alg_selection's ncore names: small_coll.c;
 * the event, recorded after the launch), and the refusals of the rest. */
#ifndef NCORE_CORE_NCCL_COLL_CONFIG_H
#define NCORE_CORE_NCCL_COLL_CONFIG_H

#include "../backend.h"
#include "comm.h"
#include "nccl_lib.h"

/* What one call does with its config, decided before anything runs. */
typedef struct nccl_call_config {
  /* 1: call NCCL's nccl*Config twin with `nccl` (the loaded NCCL has it). */
  int use_nccl_config;
  nccl_coll_config_t nccl;
  /* The vendor options as NCCL's ext list (nccl.ext points here). */
  nccl_config_ext_t ext[NCORE_COLL_CONFIG_MAX_VENDOR_OPTIONS];
  /* 1: ncore's small-message path may not take the call (an NCCL
   * selection expression asks for NCCL's kernels). */
  int nccl_kernels_only;
  /* 1: the call must run on ncore's kernel (oneshot / twoshot forced). */
  int ncore_kernel_forced;
  /* The launch-completion event (NULL: none), and 1 where NCCL records it
   * for its own kernels (2.32+ through nccl*Config). */
  CUevent event;
  int nccl_records_event;
} nccl_call_config_t;

/* Decides what a's config asks of this call on c (a->config NULL: nothing)
 * into *out. Returns NCORE_OK; NCORE_ERR_NOT_SUPPORTED naming the first
 * field the loaded NCCL cannot serve and the version that can (an NCCL
 * selection expression with force_alg_selection 0 is dropped instead, as
 * NCCL drops one it cannot honour); for the launch-completion event on an
 * NCCL before 2.32, inside a group or on a non-blocking communicator, where
 * ncore's record after the call would precede the launch. */
ncore_status_t nccl_call_config_prepare(const nccl_comm_t *c,
                                        const core_coll_args_t *a,
                                        nccl_call_config_t *out);

/* After the call was issued with status (on ncore's kernel: on_ncore 1):
 * records the launch-completion event on stream s where ncore serves it
 * (ncore's kernel, or an NCCL that cannot) and the call succeeded.
 * Returns status, or the recording's failure. */
ncore_status_t nccl_call_config_finish(const nccl_call_config_t *config,
                                       CUstream s, int on_ncore,
                                       ncore_status_t status);

#endif
