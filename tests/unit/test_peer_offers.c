/* Unit tests of what a host-backend receiver does with a peer's one-copy
 * offer (core/host/p2p_direct.c), built from the library's sources
 * (//:ncore_core, see tests/BUILD): rank 0 of a two-rank communicator whose
 * segment is a buffer of this process receives, and the test writes what a
 * hostile rank 1 would write into the segment — a message header flagged
 * one-copy, a descriptor, the offer word.
 *
 * A peer must never make a rank read memory the rank did not hand to ncore:
 * e340640 took a descriptor saying "same process, at
 * address X" at its word and copied from X — a secret of the receiver's
 * into its receive buffer with NCORE_OK, or SIGSEGV for an unmapped X. A
 * corrupt offer is NCORE_ERR_REMOTE naming the peer, and fails the
 * communicator for every rank, as a corrupt put does. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "../../core/error.h"
#include "../../core/host/comm.h"
#include "../../core/host/memory.h"
#include "../../core/host/p2p.h"
#include "../../core/host/ring.h"
#include "../../core/host/segment.h"

/* The ring's message header (core/host/p2p.c): the length word with its
 * flags, then the tag word, then (one-copy) the descriptor. */
#define MSG_HEADER 16u
/* The offer word of offer seq in state OFFERED (p2p_direct.c). */
#define OFFERED_WORD(seq) ((uint64_t)(seq) << 3 | 1u)

enum { MESSAGE = 64 * 1024 };

static const char secret[] = "the receiver's secret, never handed to ncore";

/* Rank 0's communicator over a segment in a buffer of this process, rank 1
 * "of another process" (its slot's pid is our parent's). */
static host_comm_t *receiver(char **segment_out) {
  host_layout_t layout;
  if (host_segment_layout(2, &layout) != NCORE_OK) return NULL;
  char *segment = aligned_alloc(4096, layout.total);
  if (!segment) return NULL;
  memset(segment, 0, layout.total);
  /* The communicator's liveness, which the core owns (comm_state.h). */
  static core_comm_state_t state;
  core_comm_state_init(&state);
  host_comm_t *c = NULL;
  if (host_comm_new(&c, &state, 0, 2, 1000) != NCORE_OK) return NULL;
  c->base = segment;
  memcpy(host_header(c)->magic, HOST_MAGIC, 8);
  host_header(c)->nranks = 2;
  for (int r = 0; r < 2; r++) atomic_store(&host_rank_slot(c, r)->joined, 1);
  atomic_store(&host_rank_slot(c, 0)->pid, (int64_t)getpid());
  atomic_store(&host_rank_slot(c, 1)->pid, (int64_t)getppid());
  *segment_out = segment;
  return c;
}

static void release(host_comm_t *c, char *segment) {
  c->base = NULL; /* ours, not a mapping */
  host_segment_leave(c);
  free(segment);
}

/* Writes rank 1's forged one-copy message into its ring to rank 0 and
 * publishes the offer word, as a peer's send would. */
static void forge_offer(host_comm_t *c, const host_direct_desc_t *d) {
  uint64_t len = MESSAGE | HOST_DIRECT_FLAG, tag = 0;
  char *ring = host_ring_bytes(c, 1, 0);
  host_ring_write(ring, 0, &len, 8);
  host_ring_write(ring, 8, &tag, 8);
  host_ring_write(ring, MSG_HEADER, d, sizeof *d);
  atomic_store(host_offer_word(c, 1, 0), OFFERED_WORD(d->seq));
  atomic_store(&host_ring_ctl(c, 1, 0)->head.value, MSG_HEADER + sizeof *d);
}

/* Receives the forged message into a fresh buffer: the receive must fail
 * with REMOTE naming peer 1 and "corrupt", publish the failure, and leave
 * the buffer untouched. */
static void receive_refused(host_comm_t *c) {
  char *buf = calloc(1, MESSAGE);
  CHECK(buf);
  host_op_t op;
  core_error_enter("test");
  host_p2p_init_recv(&op, c, buf, MESSAGE, 1);
  int r = op.progress(&op);
  CHECK_EQ(r, -1);
  CHECK_EQ(op.status, NCORE_ERR_REMOTE);
  const char *m = ncore_last_error_message();
  CHECK(strstr(m, "peer 1") != NULL);
  CHECK(strstr(m, "corrupt") != NULL);
  for (size_t i = 0; i < MESSAGE; i++)
    if (buf[i] != 0) {
      harness_fail(__FILE__, __LINE__, "byte %zu of the receive buffer was written", i);
      break;
    }
  uint64_t failure = atomic_load(&host_header(c)->failure);
  CHECK(failure & HOST_STATE_FAILED);
  CHECK_EQ(host_state_status(failure), NCORE_ERR_REMOTE);
  free(buf);
}

/* A descriptor of offer 1 from pid: fd, and the message at where in the
 * span [span, span + span_size) (fd -1: "a rank of your own process"). */
static host_direct_desc_t offer(int64_t pid, int fd, uint64_t where, uint64_t span,
                                uint64_t span_size) {
  host_direct_desc_t d;
  memset(&d, 0, sizeof d);
  d.seq = 1;
  d.pid = pid;
  d.fd = fd;
  d.where = where;
  d.span = span;
  d.span_size = span_size;
  return d;
}

/* Rank 1 writes d; rank 0's receive must refuse it. */
static void offer_refused(host_direct_desc_t d) {
  char *segment = NULL;
  host_comm_t *c = receiver(&segment);
  CHECK(c);
  forge_offer(c, &d);
  receive_refused(c);
  release(c, segment);
}

TEST(offer_naming_an_address_of_the_receivers_process_is_refused) {
  char *mine = malloc(MESSAGE);
  CHECK(mine);
  memcpy(mine, secret, sizeof secret);
  /* e340640 copied from here. */
  offer_refused(offer(getpid(), -1, (uint64_t)(uintptr_t)mine, 0, 0));
  free(mine);
}

TEST(offer_naming_an_unmapped_address_is_refused) {
  offer_refused(offer(getpid(), -1, 4096, 0, 0)); /* e340640: SIGSEGV */
}

/* fd >= 0 and the receiver's own pid: a memfd of the receiver's process
 * (its own ncore_mem_alloc allocation, holding a secret). */
TEST(offer_naming_a_memfd_of_the_receivers_process_is_refused) {
  void *mine = NULL;
  core_error_enter("test");
  CHECK_EQ(host_mem_alloc(&mine, MESSAGE), NCORE_OK);
  memcpy(mine, secret, sizeof secret);
  host_allocation_t a;
  CHECK_EQ(host_memory_lookup(mine, &a), 0);
  host_direct_desc_t d = offer(getpid(), a.fd, 0, 0, a.mapped);
  d.ino = a.ino;
  offer_refused(d);
  host_mem_free(mine);
}

/* A descriptor of the peer's own process whose message lies outside the
 * span it names (where before it, or running past its end), or whose span
 * is not whole pages or wraps. */
TEST(offer_outside_its_registered_span_is_refused) {
  const uint64_t cases[][3] = {/* where, span, span_size */
                               {0, 4096, 1 << 20},
                               {(1 << 20) - 4096, 0, 1 << 20},
                               {UINT64_MAX - 8, 0, 1 << 20},
                               {0, UINT64_MAX & ~UINT64_C(4095), 1 << 20},
                               {0, 100, 1 << 20}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !harness_failed(); i++)
    offer_refused(offer(getppid(), 3, cases[i][0], cases[i][1], cases[i][2]));
}

HARNESS_MAIN
