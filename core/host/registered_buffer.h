/* core/host — registered buffers (ncore_register_buffer): a registration
 * is the consent that peers map the buffer's pages for one-copy receives
 * (registered_buffer.c). */
#ifndef NCORE_CORE_HOST_REGISTERED_BUFFER_H
#define NCORE_CORE_HOST_REGISTERED_BUFFER_H

#include <stddef.h>
#include <stdint.h>
#include "comm.h"
#include "memory.h"

/* The registered range holding [buf, buf + bytes), whole pages of the
 * allocation a: 1 with *span (offset in the allocation) and *span_size
 * set, 0 if no registration of comm holds the message. */
int host_registered_span(host_comm_t *comm, const void *buf, size_t bytes,
                         const host_allocation_t *a, uint64_t *span,
                         uint64_t *span_size);
/* Forgets every registration (the communicator is going). */
void host_registrations_free(host_comm_t *comm);

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_buffer_register(core_backend_comm_t *comm, void *ptr,
                                    size_t size, core_backend_buffer_t **out,
                                    uintptr_t *native);
void host_buffer_deregister(core_backend_comm_t *comm,
                            core_backend_buffer_t *buffer);

#endif
