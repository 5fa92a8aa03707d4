/* core/nccl — device communicators (ncclDevCommCreate / ncclDevCommDestroy).
 * The ncclDevComm lives in host memory owned here (DevCommResource.ptr is
 * its address, as nccl.core passes it by value to kernels); its layout is
 * devcomm_layout.h's, checked against nccl_device.h by the kernel build. */
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "nccl_internal.h"
#include "nccl_ops.h"

/* Reads a field of the stored ncclDevComm. */
static int read_int(const nccl_devcomm_t *d, size_t offset) {
  int v;
  memcpy(&v, d->storage + offset, sizeof v);
  return v;
}

/* GIN type of context 0 (ginTypes[0]), NONE without GIN contexts. */
static ncore_gin_type_t gin_type_of(const nccl_devcomm_t *d) {
  if (d->storage[NCORE_DEVCOMM_OFFSET_GIN_CONTEXT_COUNT] == 0)
    return NCORE_GIN_TYPE_NONE;
  return (ncore_gin_type_t)d->storage[NCORE_DEVCOMM_OFFSET_GIN_TYPES];
}

ncore_status_t nccl_dev_comm_create(void *comm,
                                    const ncore_dev_comm_requirements_t *r,
                                    void **out) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  nccl_devcomm_t *d = calloc(1, sizeof *d);
  if (d == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  d->comm = c;
  d->lsa_multimem = r->lsa_multimem != 0;
  nccl_devcomm_requirements_t req = {
      .resourceRequirementsList = r->resource_requirements_list,
      .teamRequirementsList = r->team_requirements_list,
      .lsaMultimem = r->lsa_multimem != 0,
      .barrierCount = r->barrier_count,
      .lsaBarrierCount = r->lsa_barrier_count,
      .railGinBarrierCount = r->rail_gin_barrier_count,
      .lsaLLA2ABlockCount = r->lsa_ll_a2a_block_count,
      .lsaLLA2ASlotCount = r->lsa_ll_a2a_slot_count,
      /* NCCL 2.28 has no connection-type requirement: asking for FULL or
       * RAIL forces GIN on, and the result is checked below. */
      .ginForceEnable = r->gin_force_enable != 0 ||
                        r->gin_connection_type != NCORE_GIN_CONNECTION_NONE,
      .ginContextCount = r->gin_context_count,
      .ginSignalCount = r->gin_signal_count,
      .ginCounterCount = r->gin_counter_count,
  };
  status = nccl_settle(nccl_fn.ncclDevCommCreate(c->nccl, &req, d->storage), c,
                       "ncclDevCommCreate");
  if (status == NCORE_ERR_INVALID_USAGE && c->lsa_size < c->nranks)
    /* Ranks outside this rank's LSA team are reached only through GIN, and
     * NCCL answers ncclInvalidUsage ("GIN not supported") where it has no
     * GIN-capable network: a fact of the machine, not a usage error. */
    status = core_error(NCORE_ERR_NOT_SUPPORTED,
                        "comm: a device communicator over ranks outside this "
                        "rank's LSA team (%d of %d ranks) needs GIN, which "
                        "NCCL does not support here (%s)", c->lsa_size,
                        c->nranks, ncore_last_error_message());
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

void nccl_dev_comm_destroy(void *comm, void *dev_comm) {
  nccl_comm_t *c = comm;
  nccl_devcomm_t *d = dev_comm;
  if (c->multimem_devcomm == d) c->multimem_devcomm = NULL;
  if (!atomic_load(&c->aborted)) {
    cu_fn.CtxSetCurrent(c->ctx);
    (void)nccl_fn.ncclDevCommDestroy(c->nccl, d->storage);
  }
  free(d);
}

void *nccl_dev_comm_pointer(void *dev_comm) {
  return ((nccl_devcomm_t *)dev_comm)->storage;
}

void nccl_dev_comm_info(void *dev_comm, ncore_dev_comm_info_t *out) {
  nccl_devcomm_t *d = dev_comm;
  out->rank = read_int(d, NCORE_DEVCOMM_OFFSET_RANK);
  out->nranks = read_int(d, NCORE_DEVCOMM_OFFSET_NRANKS);
  out->lsa_rank = read_int(d, NCORE_DEVCOMM_OFFSET_LSA_RANK);
  out->lsa_size = read_int(d, NCORE_DEVCOMM_OFFSET_LSA_SIZE);
  out->gin_type = gin_type_of(d);
  out->railed_gin_type = gin_type_of(d);
  out->gin_context_count = d->storage[NCORE_DEVCOMM_OFFSET_GIN_CONTEXT_COUNT];
  out->gin_signal_count = read_int(d, NCORE_DEVCOMM_OFFSET_GIN_SIGNAL_COUNT);
  out->gin_counter_count = read_int(d, NCORE_DEVCOMM_OFFSET_GIN_COUNTER_COUNT);
  void *mc = NULL;
  memcpy(&mc, d->storage + NCORE_DEVCOMM_OFFSET_LSA_MULTIMEM, sizeof mc);
  out->lsa_multimem = d->lsa_multimem && mc != NULL;
}
