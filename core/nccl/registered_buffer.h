/* core/nccl — registered buffers: ncclCommRegister / ncclCommDeregister. */
#ifndef NCORE_CORE_NCCL_REGISTERED_BUFFER_H
#define NCORE_CORE_NCCL_REGISTERED_BUFFER_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_buffer_register(core_backend_comm_t *comm, void *ptr,
                                    size_t size, core_backend_buffer_t **out,
                                    uintptr_t *native);
void nccl_buffer_deregister(core_backend_comm_t *comm,
                            core_backend_buffer_t *buffer);

#endif
