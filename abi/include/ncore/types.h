/* ncore — handles, data types, reduction operators and other shared types.
 *
 * Handles are 64-bit integers, not pointers: each encodes a type tag, a slot
 * of the library's handle table and that slot's generation. A handle that was
 * closed, or whose communicator was destroyed or aborted, can therefore never
 * be mistaken for a live one: every call answers NCORE_ERR_CLOSED for it, never
 * undefined behaviour, whatever order finalizers in Go, Rust or Python run in.
 * (A slot is retired after 2^32 - 1 objects rather than let its generation
 * wrap, so no number of creations brings a closed handle back.) A handle of
 * one type passed as another is NCORE_ERR_INVALID_ARGUMENT; any other value
 * ncore did not make answers NCORE_ERR_INVALID_ARGUMENT or NCORE_ERR_CLOSED.
 * Integers also keep garbage collectors from ever seeing a fake pointer.
 * NCORE_NULL_HANDLE (0) is never a valid handle. */
#ifndef NCORE_TYPES_H
#define NCORE_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"

NCORE_BEGIN_DECLS

/* A communicator: a group of ranks that communicate. */
typedef uint64_t ncore_comm_t;
/* A buffer registered with a communicator (ncore_register_buffer). */
typedef uint64_t ncore_registered_buffer_t;
/* A window registered collectively for one-sided access (ncore_register_window). */
typedef uint64_t ncore_window_t;
/* A user-defined reduction operator (ncore_create_pre_mul_sum). */
typedef uint64_t ncore_custom_redop_t;
/* A device communicator (ncore_create_dev_comm). */
typedef uint64_t ncore_dev_comm_t;
/* A symmetric allocation (ncore_symmetric_alloc). */
typedef uint64_t ncore_symmetric_t;

#define NCORE_NULL_HANDLE ((uint64_t)0)

/* A stream. On the NCCL backend it is a CUstream / cudaStream_t; NULL is the
 * legacy default stream. Work ncore enqueues on a stream being captured
 * into a CUDA graph replays with the graph (the legacy stream is never
 * captured); a call that cannot be replayed is refused during the capture
 * with NCORE_ERR_INVALID_USAGE. On the host backend it is NULL or a stream
 * made by ncore_stream_create; host operations complete in call order. */
typedef void *ncore_stream_t;

/* Which implementation runs a communicator. */
typedef enum ncore_backend {
  /* NCCL when libnccl.so.2, libcuda.so.1 and a CUDA device are present,
   * else HOST. The environment variable NCORE_BACKEND ("host", "nccl")
   * overrides AUTO. */
  NCORE_BACKEND_AUTO = 0,
  /* Ranks are processes (or threads) of one machine, talking through shared
   * memory. Buffers are host memory. */
  NCORE_BACKEND_HOST = 1,
  /* NCCL on CUDA devices; buffers are device memory. */
  NCORE_BACKEND_NCCL = 2
} ncore_backend_t;

/* Element types; the values equal NCCL's ncclDataType_t. */
typedef enum ncore_dtype {
  NCORE_INT8 = 0,
  NCORE_UINT8 = 1,
  NCORE_INT32 = 2,
  NCORE_UINT32 = 3,
  NCORE_INT64 = 4,
  NCORE_UINT64 = 5,
  NCORE_FLOAT16 = 6,
  NCORE_FLOAT32 = 7,
  NCORE_FLOAT64 = 8,
  NCORE_BFLOAT16 = 9,
  NCORE_FLOAT8E4M3 = 10,
  NCORE_FLOAT8E5M2 = 11
} ncore_dtype_t;

/* A reduction operator. The built-in values equal NCCL's ncclRedOp_t.
 * A custom operator's value comes from ncore_custom_redop_value(); it is only
 * valid with the communicator that created it and while the operator is open. */
typedef int32_t ncore_redop_t;
#define NCORE_SUM ((ncore_redop_t)0)
#define NCORE_PROD ((ncore_redop_t)1)
/* MAX and MIN of floating-point dtypes are IEEE 754's maxNum and minNum,
 * as NCCL's kernels compute them (fmaxf / fminf, __hmax / __hmin): a NaN is
 * ignored against a number, whichever rank holds it, and an element is NaN
 * only where every rank's is NaN. Both backends give the same result. (+0
 * and -0 compare equal: which of the two comes out is not specified.) */
#define NCORE_MAX ((ncore_redop_t)2)
#define NCORE_MIN ((ncore_redop_t)3)
/* Sum divided by the number of ranks (integer division for integer types). */
#define NCORE_AVG ((ncore_redop_t)4)

/* Where a device-memory-style buffer lives. */
typedef enum ncore_device_type {
  /* Host memory; device_id is -1. */
  NCORE_DEVICE_CPU = 1,
  /* CUDA device memory (or managed / host-pinned memory a device can access). */
  NCORE_DEVICE_CUDA = 2
} ncore_device_type_t;

/* Size of the opaque unique id that bootstraps a communicator. */
#define NCORE_UNIQUE_ID_BYTES 128

/* Opaque bootstrap token: rank 0 makes it with ncore_get_unique_id and hands
 * the same bytes to every rank (as ncclUniqueId). Plain data; copy freely. */
typedef struct ncore_unique_id {
  char internal[NCORE_UNIQUE_ID_BYTES];
} ncore_unique_id_t;

NCORE_END_DECLS

#endif /* NCORE_TYPES_H */
