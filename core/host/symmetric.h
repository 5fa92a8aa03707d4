/* core/host — symmetric memory (symmetric.c). */
#ifndef NCORE_CORE_HOST_SYMMETRIC_H
#define NCORE_CORE_HOST_SYMMETRIC_H

#include <stddef.h>
#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_symmetric_alloc(void *comm, size_t size, void **out);
void host_symmetric_free(void *comm, void *sym);
void *host_symmetric_local_pointer(void *sym);
void *host_symmetric_peer_pointer(void *sym, int pe);
ncore_status_t host_symmetric_put(void *comm, void *sym, size_t dst_offset,
                                  const void *src, size_t bytes, int pe,
                                  ncore_stream_t stream);
ncore_status_t host_symmetric_get(void *comm, void *dst, void *sym,
                                  size_t src_offset, size_t bytes, int pe,
                                  ncore_stream_t stream);

#endif
