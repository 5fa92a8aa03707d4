/* core/host — byte copies into and out of the SPSC rings of the segment
 * (send/recv rings and put rings share the size and the wrapping rule). */
#include "ring.h"

#include <string.h>

void host_ring_write(char *ring, uint64_t pos, const void *src, size_t n) {
  size_t at = (size_t)(pos & (HOST_RING_BYTES - 1));
  size_t first = HOST_RING_BYTES - at < n ? HOST_RING_BYTES - at : n;
  memcpy(ring + at, src, first);
  if (n > first) memcpy(ring, (const char *)src + first, n - first);
}

void host_ring_read(const char *ring, uint64_t pos, void *dst, size_t n) {
  size_t at = (size_t)(pos & (HOST_RING_BYTES - 1));
  size_t first = HOST_RING_BYTES - at < n ? HOST_RING_BYTES - at : n;
  memcpy(dst, ring + at, first);
  if (n > first) memcpy((char *)dst + first, ring, n - first);
}
