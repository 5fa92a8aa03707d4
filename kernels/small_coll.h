/* kernels/small_coll.h — what ncore's small-message collectives (the
 * latency path) and the NCCL backend that launches them agree on: the
 * area each rank keeps for them in its signal window, and the kernels'
 * argument. Plain C, included by kernels/small_coll.cu and
 * core/nccl/small_coll.c, so both read one description.
 *
 * The area lies at the same offset in every rank's signal window (a
 * COLL_SYMMETRIC window of one size on every rank), so a rank reaches a
 * peer's area through the peer's base pointer plus that offset:
 *   flags[0][q][b]  round-1 flag that rank q set in this rank's area for
 *                   block b: the last call (epoch) whose input q staged
 *   flags[1][q][b]  round-2 flag (two-shot): q's reduced slice is ready
 *   epoch, done     this rank's count of calls made, and the blocks of the
 *                   running call that ended (only this rank uses them)
 *   data[2]         the staged input of calls with odd / even epochs
 *   result[2]       two-shot: this rank's reduced slice, by parity
 * Flags only grow (an epoch per call, counted on the device, so a CUDA
 * graph's replays count too), and a call reuses a parity's buffers only
 * two calls later, when every peer has ended the call between: a peer's
 * flag for epoch e + 1 means its kernel of epoch e ended. */
#ifndef NCORE_KERNELS_SMALL_COLL_H
#define NCORE_KERNELS_SMALL_COLL_H

#define NCORE_SMALL_MAX_RANKS 8
#define NCORE_SMALL_MAX_BLOCKS 32
#define NCORE_SMALL_THREADS 512

/* Byte offsets inside the area. */
#define NCORE_SMALL_FLAGS_BYTES (8 * NCORE_SMALL_MAX_RANKS * NCORE_SMALL_MAX_BLOCKS)
#define NCORE_SMALL_FLAGS_OFFSET(round) ((round) * NCORE_SMALL_FLAGS_BYTES)
#define NCORE_SMALL_EPOCH_OFFSET (2 * NCORE_SMALL_FLAGS_BYTES)
#define NCORE_SMALL_DONE_OFFSET (NCORE_SMALL_EPOCH_OFFSET + 8)
#define NCORE_SMALL_DATA_OFFSET 8192
#define NCORE_SMALL_DATA(parity, staging) \
  (NCORE_SMALL_DATA_OFFSET + (unsigned long long)(parity) * (staging))
#define NCORE_SMALL_RESULT(parity, staging) \
  (NCORE_SMALL_DATA_OFFSET + (2ull + (parity)) * (staging))
/* The whole area for staging bytes per call (a multiple of 16). */
#define NCORE_SMALL_AREA_BYTES(staging) \
  (NCORE_SMALL_DATA_OFFSET + 4ull * (staging))

/* The kernels' one argument (by value). areas[q]: rank q's area as this
 * rank reaches it (its own: the local address). */
typedef struct ncore_small_args {
  const void *input;
  void *output;
  unsigned long long count;      /* elements */
  unsigned long long staging;    /* bytes of one data buffer */
  int dtype, op;                 /* ncore's (= NCCL's) values */
  int rank, nranks, blocks;
  int reserved;
  char *areas[NCORE_SMALL_MAX_RANKS];
} ncore_small_args_t;

/* The kernels, by name (core/nccl/kernels.c's table). */
#define NCORE_SMALL_ONESHOT_KERNEL "ncore_allreduce_oneshot"
#define NCORE_SMALL_TWOSHOT_KERNEL "ncore_allreduce_twoshot"

#endif
