/* core — SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), small and
 * dependency-free: the proofs and the sealed id of the launched jobs' id
 * exchange (launch_tcp_wire.c) need a keyed hash that a stranger cannot
 * forge, and libncore links no crypto library. Checked against the FIPS
 * 180-4 examples and RFC 4231's HMAC test cases (tests/unit/test_job_identity.c). */
#ifndef NCORE_CORE_SHA256_H
#define NCORE_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define CORE_SHA256_BYTES 32
#define CORE_SHA256_BLOCK_BYTES 64

/* A hash in progress: init, update any number of times, final. */
typedef struct core_sha256 {
  uint32_t state[8];
  uint64_t length;                          /* bytes absorbed so far */
  unsigned char block[CORE_SHA256_BLOCK_BYTES];
  size_t used;                              /* bytes waiting in block */
} core_sha256_t;

void core_sha256_init(core_sha256_t *h);
/* Absorbs len bytes of data (data may be NULL when len is 0). */
void core_sha256_update(core_sha256_t *h, const void *data, size_t len);
/* Writes the digest to out; h must be initialised again before reuse. */
void core_sha256_final(core_sha256_t *h, unsigned char out[CORE_SHA256_BYTES]);
/* The digest of one buffer. */
void core_sha256(const void *data, size_t len, unsigned char out[CORE_SHA256_BYTES]);

/* An HMAC in progress: the hash of the inner pad and message, and the key
 * block its outer hash needs. */
typedef struct core_hmac_sha256 {
  core_sha256_t inner;
  unsigned char key_block[CORE_SHA256_BLOCK_BYTES];
} core_hmac_sha256_t;

/* key of any length (a longer key than a block is hashed first, as RFC
 * 2104 says). */
void core_hmac_sha256_init(core_hmac_sha256_t *m, const void *key, size_t key_len);
void core_hmac_sha256_update(core_hmac_sha256_t *m, const void *data, size_t len);
void core_hmac_sha256_final(core_hmac_sha256_t *m, unsigned char out[CORE_SHA256_BYTES]);
/* The MAC of one buffer. */
void core_hmac_sha256(const void *key, size_t key_len, const void *data,
                      size_t len, unsigned char out[CORE_SHA256_BYTES]);

/* 1 when a and b hold the same len bytes, in time that does not depend on
 * where they differ (a MAC compared byte by byte with an early exit tells
 * a forger how many leading bytes it got right). */
int core_equal_in_constant_time(const void *a, const void *b, size_t len);

#endif
