/* core/host — registered buffers (ncore_register_buffer). On the host any
 * memory is reachable by its own rank, so a registration's only meaning is
 * consent, as ncclCommRegister's is for NCCL's zero-copy transfers: a
 * buffer registered with a communicator that lies in an ncore_mem_alloc
 * allocation may be mapped by the communicator's other ranks, read-only,
 * for one-copy receives of what it sends, while it stays registered
 * (p2p_direct.c). An unregistered buffer is never mapped by a peer: its
 * large messages go through the ring. */
#include "registered_buffer.h"

#include <stdlib.h>

#include "../error.h"

ncore_status_t host_buffer_register(core_backend_comm_t *comm, void *ptr,
                                    size_t size, core_backend_buffer_t **out,
                                    uintptr_t *native) {
  host_comm_t *c = comm;
  host_registration_t *r = calloc(1, sizeof *r);
  if (!r) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  r->start = (uintptr_t)ptr;
  r->end = (uintptr_t)ptr + size; /* the core checked it does not wrap */
  pthread_mutex_lock(&c->registrations_lock);
  r->next = c->registrations;
  c->registrations = r;
  pthread_mutex_unlock(&c->registrations_lock);
  *out = r;
  if (native) *native = (uintptr_t)ptr;
  return NCORE_OK;
}

void host_buffer_deregister(core_backend_comm_t *comm,
                            core_backend_buffer_t *buffer) {
  host_comm_t *c = comm;
  pthread_mutex_lock(&c->registrations_lock);
  for (host_registration_t **at = &c->registrations; *at; at = &(*at)->next)
    if (*at == buffer) {
      *at = (*at)->next;
      free(buffer);
      break;
    }
  pthread_mutex_unlock(&c->registrations_lock);
}

int host_registered_span(host_comm_t *c, const void *buf, size_t bytes,
                         const host_allocation_t *a, uint64_t *span,
                         uint64_t *span_size) {
  uintptr_t start = (uintptr_t)buf, end = start + bytes;
  uintptr_t base = start - a->offset; /* the allocation's first byte */
  int found = 0;
  pthread_mutex_lock(&c->registrations_lock);
  for (host_registration_t *r = c->registrations; r && !found; r = r->next) {
    if (r->start > start || r->end < end) continue;
    /* The registration's pages that lie in this allocation: a peer maps
     * whole pages, never beyond the allocation. */
    uintptr_t first = r->start > base ? r->start : base;
    uintptr_t last = r->end < base + a->mapped ? r->end : base + a->mapped;
    *span = (uint64_t)(first - base) & ~(HOST_PAGE - 1);
    *span_size = (((uint64_t)(last - base) + HOST_PAGE - 1) & ~(HOST_PAGE - 1)) - *span;
    found = 1;
  }
  pthread_mutex_unlock(&c->registrations_lock);
  return found;
}

void host_registrations_free(host_comm_t *c) {
  pthread_mutex_lock(&c->registrations_lock);
  while (c->registrations) {
    host_registration_t *next = c->registrations->next;
    free(c->registrations);
    c->registrations = next;
  }
  pthread_mutex_unlock(&c->registrations_lock);
}
