/* kernels/small_coll.h — what ncore's small-message collectives (the
 * latency path) and the NCCL backend that launches them agree on: the
 * area each rank keeps for them in its signal window, and the kernels'
 * argument. Plain C (and CUDA), included by kernels/small_coll.cu and
 * core/nccl/small_coll.c, so both read one description.
 *
 * The area lies at the same offset in every rank's signal window (a
 * COLL_SYMMETRIC window of one size on every rank), so a rank reaches a
 * peer's area through the peer's base pointer plus that offset. Senders
 * write into their receivers' areas (a store over NVLink is one way; a
 * load is a round trip), so every read of a call is local:
 *   flags[round][q][b]  the last call (epoch) for which rank q's block b
 *                       finished writing its round-`round` data here
 *   epoch[b]            this rank's count of calls made, one copy per
 *                       block of a grid (this rank's own; every call's
 *                       blocks write all of them)
 *   in1[parity][q]      one-shot: rank q's whole input
 *   in2[parity][q]      two-shot: rank q's part of this rank's slice
 *   res[parity][q]      two-shot: rank q's reduced slice
 *   ll[parity][q]       one-shot in LL form: rank q's input, each 4 bytes of
 *                       it beside the call's epoch (low 32 bits) in one
 *                       8-byte store, so a reader knows a word arrived by
 *                       the word itself: no flag, no fence, one trip over
 *                       NVLink (NCCL's LL protocol, at half the bandwidth,
 *                       where latency is all that counts)
 * An abort fills this rank's flags with 0x7f bytes (a value no epoch
 * reaches): flag waits end at once, and LL waits read the first flag word
 * now and then to see it.
 * Flags only grow (an epoch per call, counted on the device, so a CUDA
 * graph's replays count too), and a call reuses a parity's buffers only
 * two calls later: a writer's call e + 2 starts after its call e + 1,
 * which waited for the reader's flag of e + 1, set after the reader's
 * call e, which read the buffers, had ended. */
#ifndef NCORE_KERNELS_SMALL_COLL_H
#define NCORE_KERNELS_SMALL_COLL_H

#ifdef __CUDACC__
#define NCORE_SMALL_FN static inline __host__ __device__
#else
#define NCORE_SMALL_FN static inline
#endif

#define NCORE_SMALL_MAX_RANKS 8
#define NCORE_SMALL_MAX_BLOCKS 128
#define NCORE_SMALL_THREADS 512
/* Bytes of all the one-shot inputs of one parity (each rank's input at
 * most this / nranks), and the largest two-shot call. */
#define NCORE_SMALL_ONESHOT_TOTAL (4ull << 20)
#define NCORE_SMALL_TWOSHOT_MAX (1ull << 20)
/* Bytes of all the LL one-shot inputs of one parity (data; the slots hold
 * twice this in LL form). */
#define NCORE_SMALL_LL_TOTAL (1ull << 20)

#define NCORE_SMALL_FLAGS_BYTES (8 * NCORE_SMALL_MAX_RANKS * NCORE_SMALL_MAX_BLOCKS)
#define NCORE_SMALL_FLAGS_OFFSET(round) ((round) * NCORE_SMALL_FLAGS_BYTES)
#define NCORE_SMALL_EPOCH_OFFSET (2 * NCORE_SMALL_FLAGS_BYTES)
#define NCORE_SMALL_DATA_OFFSET (NCORE_SMALL_EPOCH_OFFSET + 4096ull)
/* The epoch's copies (8 bytes a block) fit before the data. */
typedef char ncore_small_epochs_fit[8 * NCORE_SMALL_MAX_BLOCKS <= 4096 ? 1 : -1];

/* The sizes below divide in 32 bits (every figure fits): a kernel computes
 * them on each call, and a 64-bit division is a long subroutine there
 * (these, 64-bit, cost 0.8 us of the 8-byte allreduce on 4 x H200). */
/* The largest one-shot input of a rank of nranks (a multiple of 16). */
NCORE_SMALL_FN unsigned long long ncore_small_oneshot_max(int nranks) {
  return (unsigned)NCORE_SMALL_ONESHOT_TOTAL / (unsigned)nranks / 16 * 16;
}
/* A two-shot slot: one rank's part of one slice (two-shot needs 3 ranks
 * or more: with 2 it moves as much as one-shot, in two rounds). */
NCORE_SMALL_FN unsigned long long ncore_small_twoshot_slot(int nranks) {
  return nranks < 3 ? 0
                    : ((unsigned)NCORE_SMALL_TWOSHOT_MAX / (unsigned)nranks + 15) / 16 * 16;
}
NCORE_SMALL_FN unsigned long long ncore_small_in1(int nranks, int parity, int q) {
  return NCORE_SMALL_DATA_OFFSET +
         ((unsigned long long)parity * nranks + q) * ncore_small_oneshot_max(nranks);
}
NCORE_SMALL_FN unsigned long long ncore_small_in2(int nranks, int parity, int q) {
  return ncore_small_in1(nranks, 2, 0) +
         ((unsigned long long)parity * nranks + q) * ncore_small_twoshot_slot(nranks);
}
NCORE_SMALL_FN unsigned long long ncore_small_res(int nranks, int parity, int q) {
  return ncore_small_in2(nranks, 2, 0) +
         ((unsigned long long)parity * nranks + q) * ncore_small_twoshot_slot(nranks);
}
/* The largest LL one-shot input of a rank of nranks (a multiple of 16),
 * and its slot: a 16-byte line (8 of data, 8 of epoch) for every 8 bytes
 * of input. */
NCORE_SMALL_FN unsigned long long ncore_small_ll_max(int nranks) {
  return (unsigned)NCORE_SMALL_LL_TOTAL / (unsigned)nranks / 16 * 16;
}
NCORE_SMALL_FN unsigned long long ncore_small_ll(int nranks, int parity, int q) {
  return ncore_small_res(nranks, 2, 0) +
         ((unsigned long long)parity * nranks + q) * 2 * ncore_small_ll_max(nranks);
}
/* The grid of a call of `bytes` (1..NCORE_SMALL_MAX_BLOCKS), the host's
 * choice where NCORE_SMALL_BLOCKS does not set it: enough blocks to move
 * the bytes at NVLink speed, few enough that the flag exchange stays cheap
 * (one flag per block and rank). LL form (ll != 0): a thread a line of 8
 * bytes, one pass of the block's threads. Flags (one-shot and two-shot):
 * 8 KiB a block (two-shot on 4 x H200 at 1 MiB: 15.9 us so, 17.3 with 32
 * KiB a block; session 23). */
NCORE_SMALL_FN unsigned ncore_small_grid(unsigned long long bytes, int ll) {
  unsigned long long per_block = ll ? 8ull * NCORE_SMALL_THREADS : 8192;
  unsigned long long blocks = (bytes + per_block - 1) / per_block;
  return blocks == 0 ? 1
         : blocks > NCORE_SMALL_MAX_BLOCKS ? NCORE_SMALL_MAX_BLOCKS
                                           : (unsigned)blocks;
}
/* The whole area of a rank of nranks. */
NCORE_SMALL_FN unsigned long long ncore_small_area_bytes(int nranks) {
  return ncore_small_ll(nranks, 2, 0);
}

/* The kernels' one argument (by value). areas[q]: rank q's area as this
 * rank reaches it (its own: the local address). */
typedef struct ncore_small_args {
  const void *input;
  void *output;
  unsigned long long count; /* elements */
  int dtype, op;            /* ncore's (= NCCL's) values */
  int rank, nranks;
  char *areas[NCORE_SMALL_MAX_RANKS];
} ncore_small_args_t;

#endif
