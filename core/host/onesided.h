/* core/host — signal, wait_signal, put_signal (onesided.c). */
#ifndef NCORE_CORE_HOST_ONESIDED_H
#define NCORE_CORE_HOST_ONESIDED_H

#include <stddef.h>
#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_signal(core_backend_comm_t *comm, int peer,
                           ncore_stream_t stream);
ncore_status_t host_wait_signal(core_backend_comm_t *comm,
                                const core_wait_t *waits, size_t count,
                                ncore_stream_t stream);
ncore_status_t host_put_signal(core_backend_comm_t *comm, const void *buf,
                               size_t bytes, int peer,
                               core_backend_window_t *window,
                               size_t byte_offset, ncore_stream_t stream);

#endif
