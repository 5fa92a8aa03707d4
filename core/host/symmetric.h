/* core/host — symmetric memory (symmetric.c). */
#ifndef NCORE_CORE_HOST_SYMMETRIC_H
#define NCORE_CORE_HOST_SYMMETRIC_H

#include <stddef.h>
#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_symmetric_alloc(core_backend_comm_t *comm, size_t size,
                                    core_backend_symmetric_t **out);
void host_symmetric_free(core_backend_comm_t *comm,
                         core_backend_symmetric_t *sym);
void *host_symmetric_local_pointer(core_backend_symmetric_t *sym);
void *host_symmetric_peer_pointer(core_backend_symmetric_t *sym, int pe);
ncore_status_t host_symmetric_put(core_backend_comm_t *comm,
                                  core_backend_symmetric_t *sym,
                                  size_t dst_offset, const void *src,
                                  size_t bytes, int pe, ncore_stream_t stream);
ncore_status_t host_symmetric_get(core_backend_comm_t *comm, void *dst,
                                  core_backend_symmetric_t *sym,
                                  size_t src_offset, size_t bytes, int pe,
                                  ncore_stream_t stream);

#endif
