/* core/nccl — point-to-point buffers kept out of NCCL's registration of
 * windows.
 *
 * ncclCommWindowRegister also registers the window's memory as a user
 * buffer (it calls ncclCommRegister: src/dev_runtime.cc of NCCL 2.28.9 and
 * 2.30.7), and NCCL's send/recv then decides on each side alone whether its
 * buffer is registered. A receive into window memory from a send buffer
 * that is not registered never completes on NVLink: the registered side
 * moves NCCL_MAX_NET_SIZE per step, the other the p2p chunk size
 * (src/device/sendrecv.h; NCCL documents mixed registration as undefined
 * behaviour, user guide "User Buffer Registration"; the raw-NCCL reproducer
 * is tests/gpu/nccl_one_side_registered.cu). An ncore window is a promise
 * about one-sided operations only, so for send, recv and the collectives
 * NCCL runs as send/recv (alltoall, gather, scatter) ncore passes NCCL a
 * second mapping of the window's memory at another address (an alias, made
 * when the window is registered), which NCCL's registration cache does not
 * know: both sides are unregistered unless the program registered the
 * buffer itself (ncore_register_buffer), which NCCL's rule then governs
 * (register both sides, or neither). */
#ifndef NCORE_CORE_NCCL_WINDOW_ALIAS_H
#define NCORE_CORE_NCCL_WINDOW_ALIAS_H

#include <stddef.h>

#include "comm.h"

/* One window's memory and its second mapping: user address `from` maps to
 * alias, for span bytes (every allocation [ptr, ptr + size) touches). */
typedef struct nccl_alias {
  const void *window;  /* whose: the key nccl_window_alias_remove takes */
  uintptr_t begin, end; /* the window, [ptr, ptr + size) */
  uint32_t flags;       /* the window's (NCORE_WINDOW_*) */
  CUdeviceptr alias, from;
  size_t span;
} nccl_alias_t;

/* Maps a second view of the memory of window (ptr, size, flags) and lists
 * it with the communicator. Best effort: where the driver or the memory
 * allows no alias (no virtual memory management, memory not from cuMem),
 * it logs why once (WARN) and send/recv on that window's memory keep
 * NCCL's rule. */
void nccl_window_alias_add(nccl_comm_t *c, const void *window, void *ptr,
                           size_t size, uint32_t flags);

/* Unlists window and unmaps its alias (unmap: only when the communicator
 * was not aborted, as its deregistration: a kernel of an aborted
 * communicator may still read the alias; the range then stays reserved
 * until exit). Nothing where it has none. */
void nccl_window_alias_remove(nccl_comm_t *c, const void *window);

/* An explicitly registered buffer (ncore_register_buffer): buffers inside
 * one keep their address, registered as the program asked. */
void nccl_registered_range_add(nccl_comm_t *c, const void *ptr, size_t size);
void nccl_registered_range_remove(nccl_comm_t *c, const void *ptr,
                                  size_t size);

/* nccl_p2p_address while c has windows with an alias: the search, under
 * the lock. */
const void *nccl_p2p_address_search(nccl_comm_t *c, const void *buf,
                                    size_t bytes);
/* The address NCCL's send/recv should see for [buf, buf + bytes): its
 * alias when it lies in one window with an alias and in no registered
 * buffer, else buf. No lock, no search and no call while the
 * communicator has no window with an alias. */
static inline const void *nccl_p2p_address(nccl_comm_t *c, const void *buf,
                                           size_t bytes) {
  if (atomic_load_explicit(&c->alias_windows_live, memory_order_acquire) == 0)
    return buf;
  return nccl_p2p_address_search(c, buf, bytes);
}

/* 1 when [buf, buf + bytes) lies in a window with an alias registered
 * with NCORE_WINDOW_COLL_SYMMETRIC (which NCCL may serve collectives from
 * directly: those keep their addresses). */
int nccl_in_symmetric_window(nccl_comm_t *c, const void *buf, size_t bytes);

/* Frees the lists (communicator teardown; the windows are gone). */
void nccl_window_alias_free(nccl_comm_t *c);

#endif
