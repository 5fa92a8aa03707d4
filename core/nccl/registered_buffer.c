/* core/nccl — registered buffers (registered_buffer.h). */
#include "registered_buffer.h"

#include <stdlib.h>

#include "../error.h"
#include "device.h"
#include "window_alias.h"

/* A registered buffer: the NCCL backend's core_backend_buffer_t, around
 * ncclCommRegister's handle. */
struct core_backend_buffer {
  void *handle;
  void *ptr;  /* the range, for send/recv's choice of address */
  size_t size;
};

ncore_status_t nccl_buffer_register(core_backend_comm_t *comm, void *ptr,
                                    size_t size, core_backend_buffer_t **out,
                                    uintptr_t *native) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  core_backend_buffer_t *b = malloc(sizeof *b);
  if (b == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  b->handle = NULL;
  status = nccl_check(nccl_fn.ncclCommRegister(c->nccl, ptr, size, &b->handle),
                      "ncclCommRegister", c->nccl);
  if (status != NCORE_OK) {
    free(b);
    return status;
  }
  b->ptr = ptr;
  b->size = size;
  nccl_registered_range_add(c, ptr, size);
  *out = b;
  *native = (uintptr_t)b->handle;
  return NCORE_OK;
}

void nccl_buffer_deregister(core_backend_comm_t *comm,
                            core_backend_buffer_t *buffer) {
  nccl_comm_t *c = comm;
  nccl_registered_range_remove(c, buffer->ptr, buffer->size);
  /* After an abort the ncclComm_t is going away with its registrations. */
  if (!core_comm_state_aborted(c->state)) {
    cu_fn.CtxSetCurrent(c->ctx);
    (void)nccl_fn.ncclCommDeregister(c->nccl, buffer->handle);
  }
  free(buffer);
}
