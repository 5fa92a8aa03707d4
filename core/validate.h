/* core — argument checks shared by the entry points. Each records the
 * message "<argument>: <what is wrong>" and returns its status, so an entry
 * point reads as a list of checks. The checks every communicating call
 * makes are inline, with their failures out of line (core_check_*_failed):
 * a call that passes runs a compare or two and no call. */
#ifndef NCORE_CORE_VALIDATE_H
#define NCORE_CORE_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "dtype.h"

/* The failures of the inline checks below: each records the message its
 * check documents and returns NCORE_ERR_INVALID_ARGUMENT. */
ncore_status_t core_check_dtype_failed(int dtype, const char *argument)
    __attribute__((cold));
ncore_status_t core_check_range_failed(int value, int limit,
                                       const char *argument)
    __attribute__((cold));
ncore_status_t core_check_buffer_failed(size_t count, const char *argument)
    __attribute__((cold));
ncore_status_t core_check_elements_failed(size_t count, size_t factor,
                                          const char *argument)
    __attribute__((cold));

/* NULL -> INVALID_ARGUMENT "<argument>: must not be NULL". */
ncore_status_t core_check_not_null(const void *pointer, const char *argument);

/* Not one of the twelve dtypes -> INVALID_ARGUMENT. */
static inline ncore_status_t core_check_dtype(int dtype, const char *argument) {
  return core_dtype_is_valid(dtype) ? NCORE_OK
                                    : core_check_dtype_failed(dtype, argument);
}

/* value outside [0, limit) -> INVALID_ARGUMENT "<argument>: v is out of
 * range [0, limit)". */
static inline ncore_status_t core_check_range(int value, int limit,
                                              const char *argument) {
  return value >= 0 && value < limit
             ? NCORE_OK
             : core_check_range_failed(value, limit, argument);
}

/* A team (ncore/team.h) a caller passes: not NULL, n_ranks and stride
 * >= 1, rank in [0, n_ranks); messages name the argument. */
ncore_status_t core_check_team(const ncore_team_t *team, const char *argument);

/* offset beyond the `size` bytes of a window's part that `who` `index`
 * (e.g. "peer" 3) owns -> INVALID_ARGUMENT "offset: ... is beyond <who>
 * <index>'s part of the window (<size> bytes)"; offset == size is the end. */
ncore_status_t core_check_window_offset(size_t offset, size_t size,
                                        const char *who, int index);

/* A buffer of count elements: NULL only when count is 0. */
static inline ncore_status_t core_check_buffer(const void *buffer,
                                               size_t count,
                                               const char *argument) {
  return buffer != NULL || count == 0 ? NCORE_OK
                                      : core_check_buffer_failed(count, argument);
}

/* The memory a registration keeps (registered buffer, window): ptr not
 * NULL ("ptr: must not be NULL"), size as core_check_size, and the span
 * inside the address space (core_check_span), all named "size". */
ncore_status_t core_check_registration(const void *ptr, size_t size);

/* count * factor elements of dtype must fit in PTRDIFF_MAX bytes (the
 * largest object); *elements receives count * factor. No buffer is larger:
 * a larger count is garbage the call must not start reading or writing.
 * Multiplications with an overflow check, not divisions: this runs on
 * every call. */
static inline ncore_status_t core_check_elements(size_t count, size_t factor,
                                                 ncore_dtype_t dtype,
                                                 const char *argument,
                                                 size_t *elements) {
  size_t total = 0, bytes = 0;
  if (__builtin_mul_overflow(count, factor, &total) ||
      __builtin_mul_overflow(total, core_dtype_size(dtype), &bytes) ||
      bytes > (size_t)PTRDIFF_MAX)
    return core_check_elements_failed(count, factor, argument);
  *elements = total;
  return NCORE_OK;
}

/* A byte count the call allocates or registers: > 0 ("<argument>: must be
 * > 0") and at most PTRDIFF_MAX, the largest object C allows, so that no
 * backend's rounding of it can wrap. */
ncore_status_t core_check_size(size_t size, const char *argument);

/* [ptr, ptr + bytes) must be no larger than an object can be and not run
 * past the end of the address space: "<argument>: ...". */
ncore_status_t core_check_span(const void *ptr, size_t bytes,
                               const char *argument);

/* A reserved argument that must be 0: "<argument>: must be 0 (got v)". */
ncore_status_t core_check_zero(long long value, const char *argument);

/* The backend's stream check, argument "stream": for calls without a
 * communicator (memory, copies, streams). */
ncore_status_t core_check_stream(const core_backend_ops_t *ops,
                                 ncore_stream_t stream);

/* The stream check of every call on a communicator (send, recv, the
 * collectives, signal, wait_signal, put_signal, symmetric put and get,
 * ncore_comm_synchronize; impl: its backend state): the backend's
 * comm_stream_check where it has one (NCCL: a stream of the
 * communicator's device, asked once per stream per thread), else
 * stream_check. */
static inline ncore_status_t core_check_comm_stream(
    const core_backend_ops_t *ops, core_backend_comm_t *impl,
    ncore_stream_t stream) {
  if (ops->comm_stream_check != NULL)
    return ops->comm_stream_check(impl, stream, "stream");
  return ops->stream_check(stream, "stream");
}

#endif
