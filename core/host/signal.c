/* core/host — signals: a counter per (receiver, sender) in the segment; a
 * signal is a release add, a wait an acquire poll until the count received
 * passes what this rank already consumed. */
#include <stdio.h>
#include "../error.h"
#include "../error_clear.h"
#include "host.h"
#include "host_ops.h"

ncore_status_t host_signal(void *comm, int peer, ncore_stream_t stream) {
  (void)stream;
  host_comm_t *c = comm;
  ncore_status_t s = host_comm_health(c, 0);
  if (s != NCORE_OK) return s;
  atomic_fetch_add_explicit(host_signal_word(c, peer, c->rank), 1,
                            memory_order_release);
  return NCORE_OK;
}

ncore_status_t host_wait_signal(void *comm, const core_wait_t *waits,
                                size_t count, ncore_stream_t stream) {
  (void)stream;
  host_comm_t *c = comm;
  for (size_t i = 0; i < count; i++) {
    int peer = waits[i].peer;
    uint64_t want = c->signals_consumed[peer] + waits[i].op_count;
    _Atomic uint64_t *word = host_signal_word(c, c->rank, peer);
    host_waiter_t w;
    host_waiter_init(&w);
    for (;;) {
      /* Read the count before landing queued puts: a put queued before a
       * signal that this read sees is then landed before we return. */
      uint64_t seen = atomic_load_explicit(word, memory_order_acquire);
      if (host_puts_drain(c) > 0) continue;
      if (seen >= want) break;
      ncore_status_t s = host_waiter_pause(&w, c, "wait_signal from peer %d", peer);
      if (s != NCORE_OK) {
        /* The signal may have come just before the peer failed. */
        host_puts_drain(c);
        if (atomic_load_explicit(word, memory_order_acquire) < want) {
          host_comm_fail_current(c, s);
          return s;
        }
        core_error_clear();  /* that failure did not stop us */
      }
    }
    c->signals_consumed[peer] = want;
  }
  return NCORE_OK;
}
