/* core/host — streams, devices and copies (stream.c). */
#ifndef NCORE_CORE_HOST_STREAM_H
#define NCORE_CORE_HOST_STREAM_H

#include <stddef.h>
#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_device_count(int *out);
ncore_status_t host_device_set(int device);
ncore_status_t host_device_get(int *out);
ncore_status_t host_stream_create(ncore_stream_t *out);
ncore_status_t host_stream_destroy(ncore_stream_t stream);
ncore_status_t host_stream_synchronize(ncore_stream_t stream);
ncore_status_t host_stream_check(ncore_stream_t stream, const char *argument);
ncore_status_t host_memcpy_async(void *dst, const void *src, size_t bytes,
                                 ncore_memcpy_kind_t kind,
                                 ncore_stream_t stream);
ncore_status_t host_memset_async(void *dst, int value, size_t bytes,
                                 ncore_stream_t stream);

#endif
