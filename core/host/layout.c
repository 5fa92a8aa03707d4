/* core/host — where each part of a communicator's segment lies
 * (layout.h). */
#include "layout.h"

#include "../error.h"

/* The most a segment may take of the address space: 64 TiB, far beyond any
 * machine's ranks (64 ranks need 2 GiB), far below the 128 TiB a process
 * can map. */
#define HOST_SEGMENT_MAX ((size_t)1 << 46)

/* at += n * each, rounded up to `align` (a power of two); 0 on overflow or
 * past HOST_SEGMENT_MAX (*at never exceeds it, so the sum cannot wrap). */
static int grow(size_t *at, size_t n, size_t each, size_t align) {
  size_t bytes;
  if (__builtin_mul_overflow(n, each, &bytes) || bytes > HOST_SEGMENT_MAX ||
      *at + bytes + align > HOST_SEGMENT_MAX)
    return 0;
  *at = (*at + bytes + align - 1) & ~(align - 1);
  return 1;
}

ncore_status_t host_segment_layout(int nranks, host_layout_t *out) {
  size_t n = (size_t)nranks, at = 0;
  int ok = nranks > 0 && grow(&at, 1, sizeof(host_segment_header_t), HOST_CACHE_LINE);
  out->ranks = at;
  ok = ok && grow(&at, n, sizeof(host_rank_slot_t), HOST_CACHE_LINE);
  out->rings = at;
  ok = ok && grow(&at, n * n, sizeof(host_ring_t), HOST_CACHE_LINE);
  out->signals = at;
  ok = ok && grow(&at, n * n, sizeof(host_counter_t), HOST_CACHE_LINE);
  out->offers = at;
  ok = ok && grow(&at, n * n, sizeof(host_counter_t), HOST_CACHE_LINE);
  out->descs = at;
  ok = ok && grow(&at, 2 * n, sizeof(host_coll_desc_t), 4096);
  out->put_rings = at;
  ok = ok && grow(&at, n * n, sizeof(host_ring_t), 4096);
  out->ring_data = at;
  ok = ok && grow(&at, n * n, HOST_RING_BYTES, 1);
  out->put_ring_data = at;
  ok = ok && grow(&at, n * n, HOST_RING_BYTES, 1);
  out->stages = at;
  ok = ok && grow(&at, 2 * n, HOST_STAGE_BYTES, 4096);
  out->total = at;
  /* n * n cannot overflow first: n < 2^31. */
  if (!ok)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "nranks: %d ranks are more than the host backend can "
                      "hold (their shared segment would exceed %zu bytes)",
                      nranks, HOST_SEGMENT_MAX);
  return NCORE_OK;
}
