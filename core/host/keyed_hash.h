/* core/host — the keyed hash that names children. */
#ifndef NCORE_CORE_HOST_KEYED_HASH_H
#define NCORE_CORE_HOST_KEYED_HASH_H

#include <stddef.h>
#include <stdint.h>

/* SipHash-2-4 of two words under a 128-bit key: children's tokens cannot be
 * guessed from anything visible outside the communicator. */
uint64_t host_keyed_hash(const uint64_t key[2], uint64_t a, uint64_t b);

#endif
