/* core/host — one-copy offers between ranks of this process
 * (ncore_comm_init_all): the receiver copies straight from the sender's
 * buffer, which it finds here, in memory no other process can write, and
 * never at an address a descriptor in the shared segment names. A peer
 * process can write anything into the segment, and a descriptor that
 * claimed "same process, address X" made a receiver copy from any address
 * of its own process. The list is short (the offers in flight
 * between this process's ranks) and only large messages use it, so one
 * mutex is enough. */
#include "local_offers.h"

#include <pthread.h>

static pthread_mutex_t offers_lock = PTHREAD_MUTEX_INITIALIZER;
static host_local_offer_t *offers;

void host_local_offer_add(host_local_offer_t *o) {
  pthread_mutex_lock(&offers_lock);
  o->next = offers;
  offers = o;
  pthread_mutex_unlock(&offers_lock);
}

void host_local_offer_remove(host_local_offer_t *o) {
  pthread_mutex_lock(&offers_lock);
  for (host_local_offer_t **at = &offers; *at; at = &(*at)->next)
    if (*at == o) {
      *at = o->next;
      break;
    }
  pthread_mutex_unlock(&offers_lock);
}

const char *host_local_offer_claim(uint64_t segment, int src, int dst,
                                   uint64_t seq, size_t bytes,
                                   _Atomic uint64_t *word, uint64_t offered,
                                   uint64_t claimed) {
  const char *buf = NULL;
  pthread_mutex_lock(&offers_lock);
  for (host_local_offer_t *o = offers; o; o = o->next) {
    if (o->segment != segment || o->src != src || o->dst != dst ||
        o->seq != seq || o->bytes != bytes)
      continue;
    uint64_t expect = offered;
    if (atomic_compare_exchange_strong(word, &expect, claimed)) buf = o->buf;
    break;
  }
  pthread_mutex_unlock(&offers_lock);
  return buf;
}
