/* tests/fuzz/fuzz_peer.c — libFuzzer target over what the host backend reads
 * from its peers: put-ring pieces and ring counters, send/recv rings and
 * message headers, collective descriptors, posted counters and the shared
 * step word, the failure word and the reason a peer wrote, window parts a
 * peer publishes, and the segment (size, mode, header) rank 0 hands over.
 * A peer is another process of the same user, so its memory is trusted not
 * to be malicious, but it can be buggy or corrupted: whatever it wrote, the
 * receiving rank must never read or write outside its own buffers, loop
 * forever or crash (ASan, UBSan); a corrupt structure fails the
 * communicator instead.
 *
 * The input's first byte picks the structure, the rest fills it. Rank 0 of
 * a two-rank communicator whose segment is a plain buffer of this process
 * plays the receiver; rank 1's memory is the input. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "host/coll.h"
#include "host/comm_query.h"
#include "host/failure.h"
#include "host/p2p.h"
#include "host/put_ring.h"
#include "host/ring.h"
#include "host/segment.h"
#include "host/wait.h"
#include "host/window.h"

/* The input, consumed front to back; reads past its end give zeros. */
typedef struct input {
  const uint8_t *p;
  size_t n;
} input_t;

static uint64_t take(input_t *in, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; i++) {
    v |= (uint64_t)(in->n ? *in->p : 0) << (8 * i);
    if (in->n) {
      in->p++;
      in->n--;
    }
  }
  return v;
}

/* Copies what is left of the input (at most max bytes) to dst. */
static size_t take_rest(input_t *in, void *dst, size_t max) {
  size_t n = in->n < max ? in->n : max;
  memcpy(dst, in->p, n);
  in->p += n;
  in->n -= n;
  return n;
}

static char *segment;  /* the shared segment of the two ranks */
static host_layout_t layout;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (host_segment_layout(2, &layout) != NCORE_OK) abort();
  segment = aligned_alloc(4096, layout.total);
  if (!segment) abort();
  memset(segment, 0, layout.total);
  return 0;
}

/* A communicator's liveness, which the core owns (comm_state.h): a fresh
 * one for each input. */
static core_comm_state_t state;

/* Rank 0's communicator over the segment, control words cleared. */
static host_comm_t *receiver(void) {
  core_comm_state_init(&state);
  host_comm_t *c = NULL;
  if (host_comm_new(&c, &state, 0, 2, 0) != NCORE_OK) abort();
  memset(segment, 0, layout.ring_data);  /* header .. put ring counters */
  c->base = segment;
  memcpy(host_header(c)->magic, HOST_MAGIC, 8);
  host_header(c)->nranks = 2;
  for (int r = 0; r < 2; r++) atomic_store(&host_rank_slot(c, r)->joined, 1);
  return c;
}

static void release(host_comm_t *c) {
  c->base = NULL;  /* ours, not a mapping */
  host_segment_leave(c);
}

/* Writes input bytes into a ring from stream position tail on. */
static uint64_t fill_ring(input_t *in, char *ring, uint64_t tail, uint64_t avail) {
  static char bytes[HOST_RING_BYTES];
  size_t n = take_rest(in, bytes, avail < HOST_RING_BYTES ? avail : HOST_RING_BYTES);
  host_ring_write(ring, tail, bytes, n);
  return n;
}

/* 0: pieces a peer queued in the put ring, landed into a window whose part
 * is a heap block of exactly its size (ASan sees a byte outside). */
static void put_pieces(input_t *in) {
  host_comm_t *c = receiver();
  size_t size = 1 + take(in, 2) % 4096;
  host_window_t w;
  memset(&w, 0, sizeof w);
  w.seq = take(in, 1) % 3;
  w.local = malloc(size);
  w.local_size = size;
  c->windows = &w;
  uint64_t tail = take(in, 8);
  uint64_t avail = take(in, 1) == 0 ? take(in, 8) : take(in, 3);
  host_ring_t *r = host_put_ring_ctl(c, 1, 0);
  fill_ring(in, host_put_ring_bytes(c, 1, 0), tail, avail);
  atomic_store(&r->tail.value, tail);
  atomic_store(&r->head.value, tail + avail);
  for (int i = 0; i < 3; i++) host_puts_drain(c);
  c->windows = NULL;
  free(w.local);
  release(c);
}

/* 1: a message in the ring from rank 1 (header and payload) received into a
 * buffer of exactly the expected size. */
static void recv_message(input_t *in) {
  host_comm_t *c = receiver();
  size_t bytes = take(in, 3) % (1 << 20);
  char *buf = malloc(bytes ? bytes : 1);
  uint64_t tail = take(in, 8);
  uint64_t avail = take(in, 1) == 0 ? take(in, 8) : take(in, 3);
  host_ring_t *r = host_ring_ctl(c, 1, 0);
  fill_ring(in, host_ring_bytes(c, 1, 0), tail, avail);
  atomic_store(&r->tail.value, tail);
  atomic_store(&r->head.value, tail + avail);
  host_op_t op;
  host_p2p_init_recv(&op, c, buf, bytes, 1);
  for (int i = 0; i < 4 && op.progress(&op) == 2;) i++;
  host_op_release(&op);
  free(buf);
  release(c);
}

/* 2: a send into a ring whose consumer counter (rank 1's) is arbitrary. */
static void send_message(input_t *in) {
  host_comm_t *c = receiver();
  size_t bytes = take(in, 3) % (1 << 20);
  char *buf = calloc(1, bytes ? bytes : 1);
  host_ring_t *r = host_ring_ctl(c, 0, 1);
  uint64_t head = take(in, 8);
  atomic_store(&r->head.value, head);
  atomic_store(&r->tail.value, head - take(in, take(in, 1) ? 3 : 8));
  host_op_t op;
  host_p2p_init_send(&op, c, buf, bytes, 1);
  for (int i = 0; i < 4 && op.progress(&op) == 2;) i++;
  host_op_release(&op);
  free(buf);
  release(c);
}

/* 3: a collective step with rank 1's counters, descriptor, staging and the
 * shared step word as the input says. */
static void collective(input_t *in) {
  host_comm_t *c = receiver();
  host_rank_slot_t *peer = host_rank_slot(c, 1);
  atomic_store(&peer->posted.value, take(in, 1) % 4);
  atomic_store(&peer->consumed.value, take(in, 1) % 4);
  host_coll_desc_t *d = host_coll_desc(c, 1, c->coll_step + 1);
  d->kind = (int32_t)take(in, 4);
  d->dtype = (int32_t)take(in, 4);
  d->op = (int32_t)take(in, 4);
  d->root = (int32_t)take(in, 4);
  d->count = take(in, 8);
  atomic_store(&host_header(c)->coll_state, take(in, 1) ? take(in, 1) % 4 : take(in, 8));
  core_coll_args_t a;
  memset(&a, 0, sizeof a);
  a.kind = (core_coll_kind_t)(take(in, 1) % 8);
  a.dtype = (ncore_dtype_t)(take(in, 1) % 12);
  a.op = (ncore_redop_t)(take(in, 1) % 5);
  a.count = take(in, 1) % 64;
  a.root = (int)(take(in, 1) % 2);
  size_t bytes = 2 * 64 * 8;  /* nranks * count * the widest dtype */
  char *send = calloc(1, bytes), *recv = calloc(1, bytes);
  a.sendbuf = send;
  a.recvbuf = recv;
  take_rest(in, host_stage(c, 1, c->coll_step + 1), HOST_STAGE_BYTES);
  host_op_t op;
  host_coll_init(&op, c, &a);
  for (int i = 0; i < 4; i++) {
    int r = op.progress(&op);
    if (r == 1 || r < 0) break;
  }
  host_op_release(&op);
  free(send);
  free(recv);
  release(c);
}

/* 4: the failure word and the reason rank 1 wrote, read by rank 0. */
static void failure(input_t *in) {
  host_comm_t *c = receiver();
  atomic_store(&host_header(c)->failure, take(in, 8));
  take_rest(in, host_rank_slot(c, 1)->failure_message,
            sizeof host_rank_slot(c, 1)->failure_message);
  host_comm_health(c, 0);
  ncore_status_t async;
  char why[400];
  host_comm_peer_failure(c, atomic_load(&host_header(c)->failure), why, sizeof why);
  if (strlen(why) >= sizeof why) abort();
  host_comm_async_error(c, &async);
  release(c);
}

/* 5: a window part a peer published. */
static void window_part(input_t *in) {
  host_window_part_t p;
  memset(&p, 0, sizeof p);
  p.size = take(in, 8);
  p.offset = take(in, 8);
  p.total = take(in, 8);
  p.shared = (int32_t)take(in, 1) & 1;
  if (host_window_part_is_sane(&p) && p.shared &&
      (p.offset > p.total || p.size > p.total - p.offset))
    abort();
}

/* 6: the segment rank 0 hands a joiner: its size, mode and header. */
static void segment_file(input_t *in) {
  host_comm_t *c = NULL;
  int nranks = 1 + (int)(take(in, 1) % 3);
  core_comm_state_init(&state);
  if (host_comm_new(&c, &state, nranks - 1, nranks, 0) != NCORE_OK) return;
  int fd = memfd_create("fuzz-segment", MFD_CLOEXEC);
  if (fd < 0) abort();
  size_t size = c->layout.total;
  switch (take(in, 1) % 4) {
    case 0: size -= take(in, 2); break;
    case 1: size += take(in, 2); break;
    default: break;
  }
  if (ftruncate(fd, (off_t)size) != 0) abort();
  fchmod(fd, take(in, 1) % 2 ? 0600 : (mode_t)(take(in, 2) & 0777));
  char header[sizeof(host_segment_header_t)];
  memset(header, 0, sizeof header);
  take_rest(in, header, sizeof header);
  if (pwrite(fd, header, sizeof header, 0) < 0) abort();
  host_segment_attach(c, fd);
  close(fd);
  host_segment_leave(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input_t in = {data, size};
  switch (take(&in, 1) % 7) {
    case 0: put_pieces(&in); break;
    case 1: recv_message(&in); break;
    case 2: send_message(&in); break;
    case 3: collective(&in); break;
    case 4: failure(&in); break;
    case 5: window_part(&in); break;
    case 6: segment_file(&in); break;
  }
  return 0;
}
