/* ncore — registered windows for one-sided access (ncclCommWindowRegister;
 * nccl.core RegisteredWindowHandle).
 *
 * Registration is collective: every rank registers a buffer, by default of
 * equal size. The local handle then names the whole window: pass it as
 * peer_window to ncore_put_signal to write into a peer's part. Deregistration
 * (close) is local. A window is a communicator resource (see resources.h):
 * closed explicitly or with its communicator. */
#ifndef NCORE_WINDOW_H
#define NCORE_WINDOW_H

#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* Window registration flags (NCCL_WIN_*). */
#define NCORE_WINDOW_DEFAULT 0u
/* Every rank registers the same size; enables symmetric collectives. */
#define NCORE_WINDOW_COLL_SYMMETRIC 1u
/* ABI 1.1, NCCL 2.29.7+: one-sided operations into the window land in the
 * order they were issued (NCCL_WIN_STRICT_ORDERING). On an older NCCL,
 * registration answers NCORE_ERR_NOT_SUPPORTED; the host backend lands
 * every put in order and accepts it. */
#define NCORE_WINDOW_STRICT_ORDERING 2u
/* ABI 1.2, NCCL 2.32+: register the window for GIN (network one-sided)
 * access only, not for every capability NCCL has (NCCL_WIN_GIN_ONLY). On
 * an older NCCL, registration answers NCORE_ERR_NOT_SUPPORTED. The host
 * backend, whose one-sided calls are its GIN, accepts it; its peers' parts
 * stay load/store reachable as well. */
#define NCORE_WINDOW_GIN_ONLY 4u
/* ABI 1.2, NCCL 2.32+: register the window against counted CFT (Compute
 * Fabric Transport) logical endpoints instead of the non-counted ones
 * (NCCL_WIN_CFT_COUNTED; NCCL wants the memory 256-byte aligned and at most
 * 256 GB of counted windows). On an older NCCL, and on the host backend
 * (no CFT), registration answers NCORE_ERR_NOT_SUPPORTED. */
#define NCORE_WINDOW_CFT_COUNTED 8u

/* Registers [ptr, ptr + size) of this rank as its part of a new window.
 * Collective over comm. The memory stays the caller's and must outlive the
 * window. On the NCCL backend ptr must come from ncore_mem_alloc (ncclMemAlloc)
 * and be 4096-byte aligned. On the host backend memory from ncore_mem_alloc is
 * load/store reachable by every rank (real peer pointers); other memory is
 * reachable through ncore_put_signal only.
 * [ptr, ptr + size) must be memory of this process (host backend: when ptr
 * is in an ncore_mem_alloc allocation, inside that allocation).
 * out: receives the window. ptr: not NULL. size: > 0, at most PTRDIFF_MAX.
 * flags: NCORE_WINDOW_*.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out or ptr NULL, size 0 or
 * too large, a range past the end of the address space or of its
 * allocation, unknown flags, COLL_SYMMETRIC with sizes that differ between
 * ranks); NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE (comm not fit for a
 * communicating call: ncore/comm.h); NCORE_ERR_NOT_SUPPORTED (NCCL: no
 * window on this topology, STRICT_ORDERING on NCCL older than 2.29.7,
 * GIN_ONLY or CFT_COUNTED on NCCL older than 2.32; host: CFT_COUNTED);
 * NCORE_ERR_REMOTE; NCORE_ERR_TIMEOUT; NCORE_ERR_SYSTEM;
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_register_window(ncore_window_t *out,
                                               ncore_comm_t comm, void *ptr,
                                               size_t size, uint32_t flags);

/* Size of this rank's part of the window in bytes.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, wrong handle type);
 * NCORE_ERR_CLOSED. */
NCORE_API ncore_status_t ncore_window_size(ncore_window_t window, size_t *out);

/* Size of peer's part of the window in bytes (a put to peer must fit in it).
 * Returns as ncore_window_size, and NCORE_ERR_INVALID_ARGUMENT for a peer out
 * of range. */
NCORE_API ncore_status_t ncore_window_peer_size(ncore_window_t window, int peer,
                                                size_t *out);

/* The buffer this rank registered (nccl.core user_ptr).
 * Returns as ncore_window_size. */
NCORE_API ncore_status_t ncore_window_user_pointer(ncore_window_t window,
                                                   void **out);

/* The registration flags the window was made with.
 * Returns as ncore_window_size. */
NCORE_API ncore_status_t ncore_window_flags(ncore_window_t window,
                                            uint32_t *out);

/* The backend's own window handle (NCCL: the ncclWindow_t; host: a non-zero
 * token), for the `handle` property. Returns as ncore_window_size. */
NCORE_API ncore_status_t ncore_window_native_handle(ncore_window_t window,
                                                    uintptr_t *out);

/* Device pointer to byte `offset` of LSA-team member lsa_rank's part of the
 * window, usable by this rank's device (host backend: by this process). *out
 * is NULL when that part is not load/store reachable (host backend: memory
 * not from ncore_mem_alloc).
 * lsa_rank: in [0, lsa_size). offset: <= that part's size.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, lsa_rank or offset
 * out of range); NCORE_ERR_CLOSED; NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_window_lsa_device_pointer(ncore_window_t window,
                                                         int lsa_rank,
                                                         size_t offset,
                                                         void **out);

/* Device pointer to byte `offset` of world rank peer's part of the window, or
 * NULL in *out when peer is not load/store reachable (nccl.core returns None).
 * For the caller's own rank it is an address of the caller's own buffer's
 * memory, but not necessarily `buffer + offset`: NCCL maps every part of a
 * window, the rank's own included, in an address range of its own, so
 * stores through either address reach the same bytes (the host backend
 * gives `buffer + offset` itself).
 * peer: in [0, nranks). offset: <= that part's size.
 * Returns as ncore_window_lsa_device_pointer. */
NCORE_API ncore_status_t ncore_window_peer_device_pointer(ncore_window_t window,
                                                          int peer,
                                                          size_t offset,
                                                          void **out);

/* LSA multicast (multimem) pointer to byte `offset` of the window, or NULL in
 * *out when multimem is not available: always on the host backend, and on
 * NCCL where NVLink multicast (NVLS) is off or unsupported. Never faked.
 * Returns as ncore_window_lsa_device_pointer. */
NCORE_API ncore_status_t ncore_window_lsa_multimem_device_pointer(
    ncore_window_t window, size_t offset, void **out);

/* A team's multimem handle (ncclMultimemHandle): the multicast base NCCL
 * gave the team, NULL when it gave none (no NVLink multicast: NVLS off or
 * unsupported). Versioned: the library fills as many fields as the
 * caller's struct_size holds. Returned by ncore_dev_comm_multimem_handle
 * (ncore/devcomm.h). */
typedef struct ncore_multimem_handle {
  uint32_t struct_size;
  void *mc_base_pointer;
} ncore_multimem_handle_t;

#define NCORE_MULTIMEM_HANDLE_INIT                                     \
  {                                                                    \
    (uint32_t)sizeof(ncore_multimem_handle_t), /* struct_size */       \
    NULL                                       /* mc_base_pointer */   \
  }

/* Multicast (multimem) pointer to byte `offset` of the window through
 * *multimem, a team's handle from ncore_dev_comm_multimem_handle
 * (ncclGetMultimemDevicePointer; nccl.core 0.4.1
 * RegisteredWindowHandle.get_multimem_device_pointer), or NULL in *out when
 * the handle has no multicast base (NCCL gave the team none) or NCCL has no
 * multicast mapping of this window for it. Never faked.
 * multimem: read during the call only; its struct_size at least
 * offsetof(mc_base_pointer) + sizeof(void *). offset: <= the window's size.
 * Returns as ncore_window_lsa_device_pointer, and NCORE_ERR_INVALID_ARGUMENT
 * for multimem NULL or a bad struct_size; NCORE_ERR_NOT_SUPPORTED for a
 * handle with a multicast base on NCCL before 2.29.2 (which has no host
 * query: the message names the version). */
NCORE_API ncore_status_t ncore_window_multimem_device_pointer(
    ncore_window_t window, const ncore_multimem_handle_t *multimem,
    size_t offset, void **out);

/* Deregisters this rank's part (ncclCommWindowDeregister). Local. NCCL:
 * waits first, within the communicator's timeout, for the work this rank's
 * put_signal, signal and symmetric put/get calls queued on their streams
 * (it reaches the peers through mappings the deregistration removes), so
 * a put may be followed by a close without a synchronisation.
 * Idempotent. Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL or not a
 * window handle). */
NCORE_API ncore_status_t ncore_window_close(ncore_window_t window);

/* 1 if the window is open, else 0. Cannot fail. */
NCORE_API int ncore_window_is_valid(ncore_window_t window);

NCORE_END_DECLS

#endif /* NCORE_WINDOW_H */
