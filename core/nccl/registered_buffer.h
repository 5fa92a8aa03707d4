/* core/nccl — registered buffers: ncclCommRegister / ncclCommDeregister. */
#ifndef NCORE_CORE_NCCL_REGISTERED_BUFFER_H
#define NCORE_CORE_NCCL_REGISTERED_BUFFER_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_buffer_register(void *comm, void *ptr, size_t size,
                                    void **out, uintptr_t *native);
void nccl_buffer_deregister(void *comm, void *buffer);

#endif
