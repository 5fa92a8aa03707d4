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
ncore_status_t host_window_register(void *comm, void *ptr, size_t size,
                                    uint32_t flags, void **out,
                                    uintptr_t *native);
void host_window_deregister(void *comm, void *window);
size_t host_window_peer_size(void *window, int peer);
ncore_status_t host_window_lsa_pointer(void *comm, void *window, int lsa_rank,
                                       size_t offset, void **out);
ncore_status_t host_window_peer_pointer(void *comm, void *window, int peer,
                                        size_t offset, void **out);
ncore_status_t host_window_multimem_pointer(void *comm, void *window,
                                            size_t offset, void **out);

#endif
