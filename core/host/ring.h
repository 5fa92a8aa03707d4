/* core/host — byte copies into and out of the segment's SPSC rings
 * (send/recv rings and put rings share the size and the wrapping rule). */
#ifndef NCORE_CORE_HOST_RING_H
#define NCORE_CORE_HOST_RING_H

#include <stddef.h>
#include <stdint.h>
#include "layout.h"

/* Copy n bytes into / out of a ring of HOST_RING_BYTES at stream position
 * pos, wrapping at its end. */
void host_ring_write(char *ring, uint64_t pos, const void *src, size_t n);
void host_ring_read(const char *ring, uint64_t pos, void *dst, size_t n);
/* Bytes a payload of `bytes` takes in a ring: rounded up to 8, so that every
 * header that follows it is aligned. */
static inline size_t host_ring_padded(size_t bytes) {
  return (bytes + 7) & ~(size_t)7;
}

#endif
