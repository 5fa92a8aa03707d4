/* core/host — windows: a collective registration that tells every rank
 * each part's size and maps the parts in ncore_mem_alloc memory
 * (window.c). The window's type is comm.h's host_window_t. */
#ifndef NCORE_CORE_HOST_WINDOW_H
#define NCORE_CORE_HOST_WINDOW_H

#include <stddef.h>
#include <stdint.h>
#include "comm.h"

/* 1 if a peer's published part fits the allocation it claims (checked
 * before it is mapped or trusted). */
int host_window_part_is_sane(const host_window_part_t *part);

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_window_register(core_backend_comm_t *comm, void *ptr,
                                    size_t size, uint32_t flags,
                                    core_backend_window_t **out,
                                    uintptr_t *native);
void host_window_deregister(core_backend_comm_t *comm,
                            core_backend_window_t *window);
size_t host_window_peer_size(core_backend_window_t *window, int peer);
ncore_status_t host_window_lsa_pointer(core_backend_comm_t *comm,
                                       core_backend_window_t *window,
                                       int lsa_rank, size_t offset, void **out);
ncore_status_t host_window_peer_pointer(core_backend_comm_t *comm,
                                        core_backend_window_t *window, int peer,
                                        size_t offset, void **out);
ncore_status_t host_window_multimem_pointer(core_backend_comm_t *comm,
                                            core_backend_window_t *window,
                                            size_t offset, void **out);

#endif
