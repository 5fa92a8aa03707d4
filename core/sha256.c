/* core — SHA-256 (FIPS 180-4, section 6.2) and HMAC-SHA-256 (RFC 2104). */
#include "sha256.h"

#include <string.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/* One 64-byte block into the state (FIPS 180-4, 6.2.2). */
static void compress(uint32_t state[8], const unsigned char block[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++)
    w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
           (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; t++) {
    uint32_t t1 = h + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) +
                  ((e & f) ^ (~e & g)) + round_constants[t] + w[t];
    uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) +
                  ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void core_sha256_init(core_sha256_t *h) {
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                      0xa54ff53a, 0x510e527f, 0x9b05688c,
                                      0x1f83d9ab, 0x5be0cd19};
  memcpy(h->state, initial, sizeof initial);
  h->length = 0;
  h->used = 0;
}

void core_sha256_update(core_sha256_t *h, const void *data, size_t len) {
  const unsigned char *at = data;
  h->length += len;
  while (len > 0) {
    size_t take = CORE_SHA256_BLOCK_BYTES - h->used;
    if (take > len) take = len;
    memcpy(h->block + h->used, at, take);
    h->used += take;
    at += take;
    len -= take;
    if (h->used == CORE_SHA256_BLOCK_BYTES) {
      compress(h->state, h->block);
      h->used = 0;
    }
  }
}

void core_sha256_final(core_sha256_t *h, unsigned char out[CORE_SHA256_BYTES]) {
  uint64_t bits = h->length * 8;
  /* The padding: a 1 bit, zeros up to 56 bytes of the last block, then
   * the message length in bits, big-endian (5.1.1). */
  static const unsigned char one_bit = 0x80, zero = 0;
  core_sha256_update(h, &one_bit, 1);
  while (h->used != 56) core_sha256_update(h, &zero, 1);
  unsigned char length[8];
  for (int i = 0; i < 8; i++) length[i] = (unsigned char)(bits >> (56 - 8 * i));
  core_sha256_update(h, length, sizeof length);
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (unsigned char)(h->state[i] >> 24);
    out[4 * i + 1] = (unsigned char)(h->state[i] >> 16);
    out[4 * i + 2] = (unsigned char)(h->state[i] >> 8);
    out[4 * i + 3] = (unsigned char)h->state[i];
  }
  memset(h, 0, sizeof *h);
}

void core_sha256(const void *data, size_t len, unsigned char out[CORE_SHA256_BYTES]) {
  core_sha256_t h;
  core_sha256_init(&h);
  core_sha256_update(&h, data, len);
  core_sha256_final(&h, out);
}

/* HMAC(K, m) = H((K' ^ opad) || H((K' ^ ipad) || m)), K' the key padded
 * to a block (hashed first when longer). */
void core_hmac_sha256_init(core_hmac_sha256_t *m, const void *key, size_t key_len) {
  memset(m->key_block, 0, sizeof m->key_block);
  if (key_len > CORE_SHA256_BLOCK_BYTES)
    core_sha256(key, key_len, m->key_block);
  else if (key_len > 0)
    memcpy(m->key_block, key, key_len);
  unsigned char pad[CORE_SHA256_BLOCK_BYTES];
  for (size_t i = 0; i < sizeof pad; i++) pad[i] = m->key_block[i] ^ 0x36;
  core_sha256_init(&m->inner);
  core_sha256_update(&m->inner, pad, sizeof pad);
  memset(pad, 0, sizeof pad);
}

void core_hmac_sha256_update(core_hmac_sha256_t *m, const void *data, size_t len) {
  core_sha256_update(&m->inner, data, len);
}

void core_hmac_sha256_final(core_hmac_sha256_t *m, unsigned char out[CORE_SHA256_BYTES]) {
  unsigned char inner[CORE_SHA256_BYTES], pad[CORE_SHA256_BLOCK_BYTES];
  core_sha256_final(&m->inner, inner);
  for (size_t i = 0; i < sizeof pad; i++) pad[i] = m->key_block[i] ^ 0x5c;
  core_sha256_t outer;
  core_sha256_init(&outer);
  core_sha256_update(&outer, pad, sizeof pad);
  core_sha256_update(&outer, inner, sizeof inner);
  core_sha256_final(&outer, out);
  memset(m, 0, sizeof *m);
  memset(pad, 0, sizeof pad);
}

void core_hmac_sha256(const void *key, size_t key_len, const void *data,
                      size_t len, unsigned char out[CORE_SHA256_BYTES]) {
  core_hmac_sha256_t m;
  core_hmac_sha256_init(&m, key, key_len);
  core_hmac_sha256_update(&m, data, len);
  core_hmac_sha256_final(&m, out);
}

int core_equal_in_constant_time(const void *a, const void *b, size_t len) {
  const volatile unsigned char *x = a, *y = b;
  unsigned char differ = 0;
  for (size_t i = 0; i < len; i++) differ |= x[i] ^ y[i];
  return differ == 0;
}
