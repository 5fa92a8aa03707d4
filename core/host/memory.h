/* core/host — ncore_mem_alloc memory: each allocation a memfd of its own,
 * which the peers may map (memory.c). */
#ifndef NCORE_CORE_HOST_MEMORY_H
#define NCORE_CORE_HOST_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include "../backend.h"
#include "../peer_memfd.h"

/* An ncore_mem_alloc allocation as host_memory_lookup finds it. */
typedef struct host_allocation {
  int fd;          /* its memfd */
  size_t offset;   /* of the pointer looked up, from the allocation's start */
  size_t mapped;   /* its mapped size (a multiple of the page size) */
  uint64_t ino;    /* its memfd's inode */
} host_allocation_t;
/* Finds the ncore_mem_alloc allocation containing ptr; 0 if found, -1 if
 * not. */
int host_memory_lookup(const void *ptr, host_allocation_t *out);
/* Peers map an allocation with core_memfd_map_peer (core/peer_memfd.h),
 * naming its fd and inode as host_memory_lookup gives them. */

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_mem_alloc(void **out, size_t size);
ncore_status_t host_mem_free(void *ptr);

#endif
