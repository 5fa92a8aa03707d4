/* core/host — one-copy offers between ranks of this process
 * (local_offers.c). */
#ifndef NCORE_CORE_HOST_LOCAL_OFFERS_H
#define NCORE_CORE_HOST_LOCAL_OFFERS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A one-copy offer to a rank of this process, as this process's list of
 * them holds it (local_offers.c): the only place a same-process receiver
 * takes a buffer address from. */
typedef struct host_local_offer {
  uint64_t segment;  /* the communicator's segment (its inode) */
  int src, dst;
  uint64_t seq;
  const char *buf;
  size_t bytes;
  struct host_local_offer *next;
} host_local_offer_t;

/* Lists o (filled in) until host_local_offer_remove. */
void host_local_offer_add(host_local_offer_t *o);
void host_local_offer_remove(host_local_offer_t *o);
/* The buffer of the listed offer (segment, src, dst, seq) of `bytes`
 * bytes, after claiming it: *word goes from `offered` to `claimed` while
 * the list is locked, so the sender cannot take it back in between (it
 * unlists it only after its own compare-and-swap on *word). NULL when no
 * such offer is listed or the claim failed. */
const char *host_local_offer_claim(uint64_t segment, int src, int dst,
                                   uint64_t seq, size_t bytes,
                                   _Atomic uint64_t *word, uint64_t offered,
                                   uint64_t claimed);

#endif
