/* ncore — status codes and the thread-local error message.
 *
 * Every ncore function (but the few documented otherwise) returns an
 * ncore_status_t. When it is not NCORE_OK, ncore_last_error_message() on the
 * same thread says exactly what was wrong, naming the offending argument, e.g.
 * "ncore_send: peer: 7 is out of range [0, 4)". This is libgit2's model
 * (git_error_last): one status channel, one detailed message.
 *
 * The numeric values 0..7 equal NCCL's ncclResult_t so that NCCL results map
 * one to one; 8 and up are ncore's own. Values never change. */
#ifndef NCORE_ERRORS_H
#define NCORE_ERRORS_H

#include "export.h"

NCORE_BEGIN_DECLS

typedef enum ncore_status {
  /* The call succeeded. */
  NCORE_OK = 0,
  /* A CUDA call failed underneath (NCCL backend). */
  NCORE_ERR_UNHANDLED_CUDA = 1,
  /* A system call failed (shared memory, mapping, out of host memory). */
  NCORE_ERR_SYSTEM = 2,
  /* An internal invariant broke; a bug in ncore or NCCL. */
  NCORE_ERR_INTERNAL = 3,
  /* An argument is invalid: NULL where a value is needed, out of range,
   * unknown enum value, bad struct_size, wrong handle type, buffer too small.
   * Python raises NcclInvalid. */
  NCORE_ERR_INVALID_ARGUMENT = 4,
  /* The call is valid in itself but not now or not in this combination
   * (mismatched send/recv sizes, finalize twice, a collective call order
   * that differs between ranks). */
  NCORE_ERR_INVALID_USAGE = 5,
  /* A peer failed: it died, aborted, or reported an error. */
  NCORE_ERR_REMOTE = 6,
  /* A non-blocking operation is still in progress (non-blocking
   * communicators of the NCCL backend); poll ncore_comm_async_error. */
  NCORE_IN_PROGRESS = 7,
  /* The backend cannot do this (a feature NCCL or the hardware lacks). */
  NCORE_ERR_NOT_SUPPORTED = 8,
  /* The requested backend cannot be used: its library (libnccl.so.2,
   * libcuda.so.1) or device is missing. The message names what is missing. */
  NCORE_ERR_UNAVAILABLE = 9,
  /* The handle was closed, or its communicator was destroyed or aborted. */
  NCORE_ERR_CLOSED = 10,
  /* A peer did not answer within the communicator's timeout. */
  NCORE_ERR_TIMEOUT = 11
} ncore_status_t;

/* Returns a static, human-readable name for a status, e.g.
 * "NCORE_ERR_INVALID_ARGUMENT" for 4. An unknown value gives
 * "NCORE_ERR_UNKNOWN". Owned by the library; cannot fail. */
NCORE_API const char *ncore_status_string(ncore_status_t status);

/* Returns the message of the last failed ncore call on the calling thread,
 * or "" if the last call succeeded or none was made. The string is owned by
 * the library and stays valid until the next ncore call on this thread.
 * Successful calls clear it. Cannot fail. */
NCORE_API const char *ncore_last_error_message(void);

/* Returns the status of the last ncore call on the calling thread (NCORE_OK
 * if it succeeded or none was made). With ncore_last_error_message() it lets a
 * binding read both halves of an error after the fact. Cannot fail. */
NCORE_API ncore_status_t ncore_last_error_status(void);

NCORE_END_DECLS

#endif /* NCORE_ERRORS_H */
