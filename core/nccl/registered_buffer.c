/* core/nccl — registered buffers (registered_buffer.h). */
#include "registered_buffer.h"

#include "device.h"

ncore_status_t nccl_buffer_register(void *comm, void *ptr, size_t size,
                                    void **out, uintptr_t *native) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  void *handle = NULL;
  status = nccl_check(nccl_fn.ncclCommRegister(c->nccl, ptr, size, &handle),
                      "ncclCommRegister", c->nccl);
  if (status != NCORE_OK) return status;
  *out = handle;
  *native = (uintptr_t)handle;
  return NCORE_OK;
}

void nccl_buffer_deregister(void *comm, void *buffer) {
  nccl_comm_t *c = comm;
  /* After an abort the ncclComm_t is going away with its registrations. */
  if (atomic_load(&c->aborted)) return;
  cu_fn.CtxSetCurrent(c->ctx);
  (void)nccl_fn.ncclCommDeregister(c->nccl, buffer);
}
