/* core/host — one-sided puts into window parts a rank cannot map (plain
 * malloc or numpy memory of another process): the pieces that travel
 * through the put ring of an ordered pair, and how the target lands them
 * (put_ring.c). The sender's side is onesided.c. */
#ifndef NCORE_CORE_HOST_PUT_RING_H
#define NCORE_CORE_HOST_PUT_RING_H

#include <stdint.h>
#include "comm.h"

/* Header of one piece; the payload follows, padded to 8 bytes. */
typedef struct put_piece {
  uint64_t window_seq;
  uint64_t offset;  /* bytes into the target's part */
  uint64_t bytes;   /* payload bytes of this piece */
  uint64_t signal;  /* 1 on the last piece of a put_signal */
} put_piece_t;

/* Half a ring per piece, so a piece never waits for the whole ring. */
#define PUT_PIECE_MAX (HOST_RING_BYTES / 2 - sizeof(put_piece_t))

/* Lands every put that peers queued for this rank; returns how many pieces
 * it landed. Called from every wait loop, so puts never wait for a rank
 * that is itself waiting. Returns 0 at once when another thread is landing.
 * A piece that does not fit its ring or its window fails the communicator
 * (NCORE_ERR_REMOTE): a peer wrote what ncore never writes. */
int host_puts_drain(host_comm_t *comm);
/* host_puts_drain for a caller that holds windows_lock. */
int host_puts_drain_locked(host_comm_t *comm);

#endif
