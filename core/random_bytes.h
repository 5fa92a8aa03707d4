/* core — random bytes from the kernel, for tokens, keys and nonces (the
 * host backend's ids and children's keys, the launched jobs' secrets and
 * the store's nonces). */
#ifndef NCORE_CORE_RANDOM_BYTES_H
#define NCORE_CORE_RANDOM_BYTES_H

#include <stddef.h>

#include <ncore.h>

/* Fills out with n random bytes (getrandom, which blocks only until the
 * kernel's pool is first seeded). Returns NCORE_OK, or NCORE_ERR_SYSTEM
 * (recorded) when the kernel gives none. */
ncore_status_t core_random_bytes(void *out, size_t n);

#endif
