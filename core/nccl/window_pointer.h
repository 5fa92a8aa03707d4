/* core/nccl — a window's device pointers: its peers' parts (world rank or
 * LSA rank) and its multicast address.
 *
 * NCCL 2.29.2+ answers pointer queries on the host
 * (ncclGet{Peer,Lsa,LsaMultimem}DevicePointer). NCCL 2.28 has no host-side
 * getters, so there the pointers come from one-thread kernels
 * (kernels/ncore_kernels.cu, built against 2.28.9's device API, whose
 * window layout only 2.28 has) that call ncclGetLsaPointer /
 * ncclGetPeerPointer / ncclGetLsaMultimemPointer and store the result; the
 * backend copies it back. Either way the base address is cached per
 * (window, rank), so later queries are host arithmetic (a window's mapping
 * never moves while it is registered). */
#ifndef NCORE_CORE_NCCL_WINDOW_POINTER_H
#define NCORE_CORE_NCCL_WINDOW_POINTER_H

#include "window.h"

/* Base address of world rank peer's part of win (NULL when not LSA
 * reachable), computed once (a host getter or a kernel) and cached. */
ncore_status_t nccl_window_peer_base(nccl_window_t *w, int peer, void **out);

/* Resolves the base of every LSA peer's part of w now (one getter or
 * pointer kernel each), so that no later call asks NCCL or launches a
 * kernel for one: a put_signal or signal may be inside a CUDA graph
 * capture, where the synchronous query of a pointer kernel has no place. */
ncore_status_t nccl_window_map_lsa_team(nccl_window_t *w);

/* ---- backend operations (core/backend.h) ---- */
/* window_register: nccl_window_register, then nccl_window_map_lsa_team
 * (a failure deregisters the window again). */
ncore_status_t nccl_window_register_mapped(core_backend_comm_t *comm,
                                           void *ptr, size_t size,
                                           uint32_t flags,
                                           core_backend_window_t **out,
                                           uintptr_t *native);
ncore_status_t nccl_window_lsa_pointer(core_backend_comm_t *comm,
                                       core_backend_window_t *window,
                                       int lsa_rank, size_t offset, void **out);
ncore_status_t nccl_window_peer_pointer(core_backend_comm_t *comm,
                                        core_backend_window_t *window, int peer,
                                        size_t offset, void **out);
ncore_status_t nccl_window_multimem_pointer(core_backend_comm_t *comm,
                                            core_backend_window_t *window,
                                            size_t offset, void **out);
/* Through a team's multimem handle: ncclGetMultimemDevicePointer (2.29.2+;
 * older NCCL: NOT_SUPPORTED naming it); NULL where NCCL has no address. */
ncore_status_t nccl_window_team_multimem_pointer(core_backend_comm_t *comm,
                                                 core_backend_window_t *window,
                                                 void *mc_base_pointer,
                                                 size_t offset, void **out);

#endif
