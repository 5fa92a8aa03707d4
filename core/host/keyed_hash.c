/* core/host — the tokens of split and shrink children. A child's token names
 * its rendezvous (rendezvous.c), which any local user can see while it
 * exists; if a child's name followed from its parent's by a public rule, an
 * attacker could occupy it first. So every communicator keeps a random
 * 128-bit key in its segment (only its ranks can read it), and a child's
 * token is SipHash-2-4 (Aumasson and Bernstein, 2012) of its sequence number
 * and tag under that key: every rank computes the same token, nobody else
 * can. */
#include "keyed_hash.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4]) {
  v[0] += v[1]; v[1] = ROTL(v[1], 13); v[1] ^= v[0]; v[0] = ROTL(v[0], 32);
  v[2] += v[3]; v[3] = ROTL(v[3], 16); v[3] ^= v[2];
  v[0] += v[3]; v[3] = ROTL(v[3], 21); v[3] ^= v[0];
  v[2] += v[1]; v[1] = ROTL(v[1], 17); v[1] ^= v[2]; v[2] = ROTL(v[2], 32);
}

/* Two compression rounds per message word. */
static void sip_absorb(uint64_t v[4], uint64_t m) {
  v[3] ^= m;
  sip_round(v);
  sip_round(v);
  v[0] ^= m;
}

uint64_t host_keyed_hash(const uint64_t key[2], uint64_t a, uint64_t b) {
  uint64_t v[4] = {key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
                   key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull};
  sip_absorb(v, a);
  sip_absorb(v, b);
  sip_absorb(v, (uint64_t)16 << 56);  /* the final block: the length, 16 */
  v[2] ^= 0xff;
  for (int i = 0; i < 4; i++) sip_round(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}
