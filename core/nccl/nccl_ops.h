/* core/nccl — the functions behind core_nccl_backend (backend.c), one
 * group per file; see core/backend.h for each one's contract. */
#ifndef NCORE_CORE_NCCL_OPS_H
#define NCORE_CORE_NCCL_OPS_H

#include "../backend.h"

/* comm.c */
ncore_status_t nccl_get_unique_id(ncore_unique_id_t *out);
ncore_status_t nccl_comm_init_rank(void **out, int nranks,
                                   const ncore_unique_id_t *ids, int nids,
                                   int rank, const core_config_t *config);
ncore_status_t nccl_comm_init_all(void **out, int ndev, const int *devlist,
                                  const core_config_t *config);
ncore_status_t nccl_comm_split(void *comm, int color, int key, void **out,
                               const core_config_t *config);
ncore_status_t nccl_comm_shrink(void *comm, const int *exclude, int count,
                                void **out, const core_config_t *config,
                                uint32_t flags);
ncore_status_t nccl_comm_finalize(void *comm);
void nccl_comm_abort_signal(void *comm);
void nccl_comm_destroy(void *comm, int aborted);
void nccl_comm_forget(void *comm);
void nccl_comm_info(void *comm, core_comm_info_t *out);
ncore_status_t nccl_comm_async_error(void *comm, ncore_status_t *out);
ncore_status_t nccl_comm_synchronize(void *comm, ncore_stream_t stream,
                                     int64_t timeout_ms);
ncore_status_t nccl_comm_grow(void *comm, int nranks,
                              const ncore_unique_id_t *id, int rank,
                              void **out, const core_config_t *config);
/* comm_control.c */
ncore_status_t nccl_comm_properties(void *comm, ncore_comm_properties_t *out);
ncore_status_t nccl_comm_revoke(void *comm, uint32_t flags);
ncore_status_t nccl_comm_get_unique_id(void *comm, ncore_unique_id_t *out);
ncore_status_t nccl_comm_suspend(void *comm, uint32_t flags);
ncore_status_t nccl_comm_resume(void *comm);
/* ncore_library_info's NCCL part (info.c). */
void nccl_describe(ncore_library_info_t *out);
ncore_status_t nccl_comm_mem_stat(void *comm, ncore_comm_mem_stat_t stat,
                                  uint64_t *out);
ncore_status_t nccl_group_start(void);
ncore_status_t nccl_group_end(void);
/* ops.c */
ncore_status_t nccl_send(void *comm, const void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);
ncore_status_t nccl_recv(void *comm, void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);
ncore_status_t nccl_collective(void *comm, const core_coll_args_t *args);
ncore_status_t nccl_buffer_register(void *comm, void *ptr, size_t size,
                                    void **out, uintptr_t *native);
void nccl_buffer_deregister(void *comm, void *buffer);
ncore_status_t nccl_redop_create_pre_mul_sum(void *comm, const void *scalar,
                                             ncore_dtype_t dtype,
                                             ncore_scalar_residence_t residence,
                                             void **out);
void nccl_redop_destroy(void *comm, void *op);
/* window.c */
ncore_status_t nccl_window_register(void *comm, void *ptr, size_t size,
                                    uint32_t flags, void **out,
                                    uintptr_t *native);
void nccl_window_deregister(void *comm, void *window);
size_t nccl_window_peer_size(void *window, int peer);
ncore_status_t nccl_window_lsa_pointer(void *comm, void *window, int lsa_rank,
                                       size_t offset, void **out);
ncore_status_t nccl_window_peer_pointer(void *comm, void *window, int peer,
                                        size_t offset, void **out);
ncore_status_t nccl_window_multimem_pointer(void *comm, void *window,
                                            size_t offset, void **out);
/* onesided.c */
ncore_status_t nccl_signal(void *comm, int peer, ncore_stream_t stream);
ncore_status_t nccl_wait_signal(void *comm, const core_wait_t *waits,
                                size_t count, ncore_stream_t stream);
ncore_status_t nccl_put_signal(void *comm, const void *buf, size_t bytes,
                               int peer, void *window, size_t byte_offset,
                               ncore_stream_t stream);
/* devcomm.c */
ncore_status_t nccl_dev_comm_create(void *comm,
                                    const ncore_dev_comm_requirements_t *req,
                                    void **out);
void nccl_dev_comm_destroy(void *comm, void *dev_comm);
void *nccl_dev_comm_pointer(void *dev_comm);
void nccl_dev_comm_info(void *dev_comm, ncore_dev_comm_info_t *out);
/* symmetric.c */
ncore_status_t nccl_symmetric_alloc(void *comm, size_t size, void **out);
void nccl_symmetric_free(void *comm, void *sym);
void *nccl_symmetric_local_pointer(void *sym);
void *nccl_symmetric_peer_pointer(void *sym, int pe);
ncore_status_t nccl_symmetric_put(void *comm, void *sym, size_t dst_offset,
                                  const void *src, size_t bytes, int pe,
                                  ncore_stream_t stream);
ncore_status_t nccl_symmetric_get(void *comm, void *dst, void *sym,
                                  size_t src_offset, size_t bytes, int pe,
                                  ncore_stream_t stream);
/* device.c */
ncore_status_t nccl_mem_alloc(void **out, size_t size);
ncore_status_t nccl_mem_free(void *ptr);
ncore_status_t nccl_device_count(int *out);
ncore_status_t nccl_device_set(int device);
ncore_status_t nccl_device_get(int *out);
ncore_status_t nccl_stream_create(ncore_stream_t *out);
ncore_status_t nccl_stream_destroy(ncore_stream_t stream);
ncore_status_t nccl_stream_synchronize(ncore_stream_t stream);
ncore_status_t nccl_stream_check(ncore_stream_t stream, const char *argument);
ncore_status_t nccl_comm_stream_check(void *comm, ncore_stream_t stream,
                                      const char *argument);
ncore_status_t nccl_memcpy_async(void *dst, const void *src, size_t bytes,
                                 ncore_memcpy_kind_t kind,
                                 ncore_stream_t stream);
ncore_status_t nccl_memset_async(void *dst, int value, size_t bytes,
                                 ncore_stream_t stream);

#endif
