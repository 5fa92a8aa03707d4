/* core — the table of operations: one row per collective,
 * point-to-point and one-sided call, holding the facts that define it, so
 * that nothing else writes them down again.
 *
 * The C library reads the rows through CORE_OPERATIONS: the collective
 * kinds (backend.h), the argument checks of the collectives (coll.c), the
 * host backend's collective algorithm (host/coll.c), NCCL's calls and the
 * symbols they need (nccl/coll.c, nccl/nccl_lib.h). tools/gen-op-table.py
 * reads this file (through tools/op_table.py) and writes what follows from
 * the rows elsewhere: the collectives' entry points (coll_gen.c), each
 * binding's collective methods and buffer-size checks (Rust, Go, Python),
 * the conformance runners' calls of every collective; the conformance
 * cases derive from it (conformance/tools/make_cases.py). Run make
 * regenerate after changing a row (docs/architecture.md, "Adding an
 * operation").
 *
 * CORE_OPERATIONS(COLL, P2P, ONESIDED) expands every row with the macro of
 * its kind; pass CORE_OP_NONE for the kinds a use does not need. The rows
 * are data for a parser too: one row per line, arguments are names and
 * numbers only.
 *
 * COLL(name, KIND, nccl, go, reduces, rooted, send, recv, count, in_place)
 *   name      the public function is ncore_<name> (ncore/coll.h); the
 *             conformance step, the Python and Rust method (and Rust's
 *             <name>_in_place where it runs in place) have this name
 *   KIND      its core_coll_kind_t is CORE_COLL_<KIND>
 *   nccl      the NCCL function the NCCL backend calls; its arguments
 *             follow from reduces and rooted, as every NCCL collective's do:
 *             (sendbuff, recvbuff, count, datatype[, op][, root], comm, stream)
 *   go        the Go binding's method name
 *   reduces   1: takes an ncore_redop_t after dtype, and reduces over ranks
 *   rooted    1: takes a root after the op (every kind with a ROOT_ buffer)
 *   send,     what the buffer holds and where it is used:
 *   recv        ALL_1   count elements, on every rank
 *               ALL_N   nranks * count elements (block r: rank r's part)
 *               ROOT_1  count elements, on root only (may be NULL elsewhere)
 *               ROOT_N  nranks * count elements, on root only
 *   count     the name of the public count parameter (in messages)
 *   in_place  SAME   sendbuf == recvbuf runs in place
 *             BLOCK  in place when the count buffer is block `rank` of the
 *                    nranks * count one (NCCL's rule for each of these)
 *             NONE   sendbuf == recvbuf is refused (NCCL has no in-place form)
 * What it computes follows from the shape: rank r's recv is, from every
 * rank (or from root, where sendbuf is root's only), the sender's sendbuf
 * (or its block r, for an _N sendbuf), reduced over ranks when it reduces,
 * else placed in block `sender` of an _N recvbuf (or copied whole, from
 * root). The host backend's algorithm and the conformance cases' expected
 * results are that rule, so a collective that fits it needs no code there.
 *
 * P2P(name, nccl, go, buffer)
 *   name      ncore_<name> (ncore/p2p.h): (comm, buf, count, dtype, peer,
 *             stream); `buf` holds count elements; peer in [0, nranks)
 *   nccl      the NCCL function (the same arguments)
 *   go        the Go binding's method name
 *   buffer    READ (the call reads buf) or WRITTEN (it writes buf)
 *
 * ONESIDED(name, lsa)
 *   name      ncore_<name> (ncore/onesided.h, ncore/symmetric.h); each has
 *             arguments of its own, checked in onesided.c / symmetric.c
 *   lsa       1: it reaches a peer (peer, pe, or a descriptor's peer) that
 *             must be in the caller's LSA team where the backend has no
 *             other path: NCORE_ERR_NOT_SUPPORTED naming the LSA team
 *             otherwise (every conformance step of it says what such a
 *             peer gives: conformance/driver/selftest.py) */
#ifndef NCORE_CORE_OP_TABLE_H
#define NCORE_CORE_OP_TABLE_H

/* clang-format off */
#define CORE_OPERATIONS(COLL, P2P, ONESIDED)                                                          \
  COLL(allreduce,      ALLREDUCE,      ncclAllReduce,     AllReduce,     1, 0, ALL_1,  ALL_1,  count,     SAME)  \
  COLL(broadcast,      BROADCAST,      ncclBroadcast,     Broadcast,     0, 1, ROOT_1, ALL_1,  count,     SAME)  \
  COLL(reduce,         REDUCE,         ncclReduce,        Reduce,        1, 1, ALL_1,  ROOT_1, count,     SAME)  \
  COLL(allgather,      ALLGATHER,      ncclAllGather,     AllGather,     0, 0, ALL_1,  ALL_N,  sendcount, BLOCK) \
  COLL(reduce_scatter, REDUCE_SCATTER, ncclReduceScatter, ReduceScatter, 1, 0, ALL_N,  ALL_1,  recvcount, BLOCK) \
  COLL(alltoall,       ALLTOALL,       ncclAlltoAll,      AllToAll,      0, 0, ALL_N,  ALL_N,  count,     NONE)  \
  COLL(gather,         GATHER,         ncclGather,        Gather,        0, 1, ALL_1,  ROOT_N, count,     BLOCK) \
  COLL(scatter,        SCATTER,        ncclScatter,       Scatter,       0, 1, ROOT_N, ALL_1,  count,     BLOCK) \
  P2P(send, ncclSend, Send, READ)                                                                     \
  P2P(recv, ncclRecv, Recv, WRITTEN)                                                                  \
  ONESIDED(signal,        1)                                                                          \
  ONESIDED(wait_signal,   1)                                                                          \
  ONESIDED(put_signal,    1)                                                                          \
  ONESIDED(symmetric_put, 1)                                                                          \
  ONESIDED(symmetric_get, 1)
/* clang-format on */

/* For the kinds a use of CORE_OPERATIONS leaves out. */
#define CORE_OP_NONE(...)

/* A buffer column, as {per_rank, root_only}: per_rank 1 when it holds
 * nranks * count elements, root_only 1 when only root uses it. */
#define CORE_PART_ALL_1 {0, 0}
#define CORE_PART_ALL_N {1, 0}
#define CORE_PART_ROOT_1 {0, 1}
#define CORE_PART_ROOT_N {1, 1}
#define CORE_PART_ROOT_ONLY_ALL_1 0
#define CORE_PART_ROOT_ONLY_ALL_N 0
#define CORE_PART_ROOT_ONLY_ROOT_1 1
#define CORE_PART_ROOT_ONLY_ROOT_N 1

/* The collectives, one per COLL row, in the table's order. */
#define CORE_COLL_KIND(name, KIND, ...) CORE_COLL_##KIND,
typedef enum core_coll_kind {
  CORE_OPERATIONS(CORE_COLL_KIND, CORE_OP_NONE, CORE_OP_NONE)
  CORE_COLL_KINDS /* how many */
} core_coll_kind_t;
#undef CORE_COLL_KIND

typedef struct core_coll_part {
  unsigned char per_rank;  /* holds nranks * count elements, else count */
  unsigned char root_only; /* used on root only (may be NULL elsewhere) */
} core_coll_part_t;

typedef enum core_in_place {
  CORE_IN_PLACE_SAME,
  CORE_IN_PLACE_BLOCK,
  CORE_IN_PLACE_NONE
} core_in_place_t;

/* A COLL row as data (op_table.c): its public function and _config twin,
 * whether it reduces (takes op) or is rooted (takes root), what its two
 * buffers hold and where they are used, its count parameter's name, its
 * in-place rule. */
typedef struct core_coll_shape {
  /* One cache line per row (64-byte aligned), which is all a call reads. */
  _Alignas(64) const char *function;
  const char *config_function; /* its _config twin: "ncore_allreduce_config" */
  const char *name; /* the row's name: "allreduce" */
  unsigned char reduces, rooted;
  core_coll_part_t send, recv;
  const char *count_name;
  core_in_place_t in_place;
} core_coll_shape_t;

/* The rows, indexed by kind. In the header (static: each file that reads
 * it has the same constant table), so that a collective's entry point,
 * whose kind is a constant, reads its row's fields as constants
 * (coll.h). */
#define CORE_COLL_SHAPE(name, KIND, nccl, go, reduces, rooted, send, recv,   \
                        count, in_place)                                    \
  [CORE_COLL_##KIND] = {"ncore_" #name,   "ncore_" #name "_config",         \
                        #name,            reduces,          rooted,         \
                        CORE_PART_##send, CORE_PART_##recv, #count,         \
                        CORE_IN_PLACE_##in_place},
static const core_coll_shape_t core_coll_shapes[CORE_COLL_KINDS]
    __attribute__((unused)) = {
        CORE_OPERATIONS(CORE_COLL_SHAPE, CORE_OP_NONE, CORE_OP_NONE)};
#undef CORE_COLL_SHAPE

#endif
