/* core/host — the functions behind core_host_backend (backend.c), one
 * group per file; see core/backend.h for each one's contract. */
#ifndef NCORE_CORE_HOST_HOST_OPS_H
#define NCORE_CORE_HOST_HOST_OPS_H

#include "../backend.h"

/* comm.c */
ncore_status_t host_get_unique_id(ncore_unique_id_t *out);
ncore_status_t host_comm_init_rank(void **, int, const ncore_unique_id_t *, int,
                                   int, const core_config_t *);
ncore_status_t host_comm_init_all(void **, int, const int *, const core_config_t *);
ncore_status_t host_comm_split(void *, int, int, void **, const core_config_t *);
ncore_status_t host_comm_shrink(void *, const int *, int, void **,
                                const core_config_t *, uint32_t);
ncore_status_t host_comm_finalize(void *);
void host_comm_abort_signal(void *);
void host_comm_destroy(void *, int);
void host_comm_forget(void *);
void host_comm_info(void *, core_comm_info_t *);
ncore_status_t host_comm_async_error(void *, ncore_status_t *);
ncore_status_t host_comm_synchronize(void *, ncore_stream_t, int64_t);
/* comm_control.c */
ncore_status_t host_comm_properties(void *, ncore_comm_properties_t *);
ncore_status_t host_comm_revoke(void *, uint32_t);
ncore_status_t host_comm_get_unique_id(void *, ncore_unique_id_t *);
ncore_status_t host_comm_grow(void *, int, const ncore_unique_id_t *, int,
                              void **, const core_config_t *);
ncore_status_t host_comm_suspend(void *, uint32_t);
ncore_status_t host_comm_resume(void *);
ncore_status_t host_comm_mem_stat(void *, ncore_comm_mem_stat_t, uint64_t *);
/* group.c */
ncore_status_t host_group_start(void);
ncore_status_t host_group_end(void);
/* registered.c */
ncore_status_t host_buffer_register(void *, void *, size_t, void **, uintptr_t *);
void host_buffer_deregister(void *, void *);
/* window.c */
ncore_status_t host_window_register(void *, void *, size_t, uint32_t, void **,
                                    uintptr_t *);
void host_window_deregister(void *, void *);
size_t host_window_peer_size(void *, int);
ncore_status_t host_window_peer_pointer(void *, void *, int, size_t, void **);
ncore_status_t host_window_multimem_pointer(void *, void *, size_t, void **);
ncore_status_t host_put_signal(void *, const void *, size_t, int, void *, size_t,
                               ncore_stream_t);
/* signal.c */
ncore_status_t host_signal(void *, int, ncore_stream_t);
ncore_status_t host_wait_signal(void *, const core_wait_t *, size_t, ncore_stream_t);
/* devcomm.c */
ncore_status_t host_dev_comm_create(void *, const ncore_dev_comm_requirements_t *,
                                    void **);
void host_dev_comm_destroy(void *, void *);
void *host_dev_comm_pointer(void *);
void host_dev_comm_info(void *, ncore_dev_comm_info_t *);
/* symmetric.c */
ncore_status_t host_symmetric_alloc(void *, size_t, void **);
void host_symmetric_free(void *, void *);
void *host_symmetric_local_pointer(void *);
void *host_symmetric_peer_pointer(void *, int);
ncore_status_t host_symmetric_put(void *, void *, size_t, const void *, size_t,
                                  int, ncore_stream_t);
ncore_status_t host_symmetric_get(void *, void *, void *, size_t, size_t, int,
                                  ncore_stream_t);
/* memory.c */
ncore_status_t host_mem_alloc(void **, size_t);
ncore_status_t host_mem_free(void *);
/* stream.c */
ncore_status_t host_device_count(int *);
ncore_status_t host_device_set(int);
ncore_status_t host_device_get(int *);
ncore_status_t host_stream_create(ncore_stream_t *);
ncore_status_t host_stream_destroy(ncore_stream_t);
ncore_status_t host_stream_synchronize(ncore_stream_t);
ncore_status_t host_stream_check(ncore_stream_t, const char *);
ncore_status_t host_memcpy_async(void *, const void *, size_t, ncore_memcpy_kind_t,
                                 ncore_stream_t);
ncore_status_t host_memset_async(void *, int, size_t, ncore_stream_t);

#endif
