/* core — shared argument checks (core/validate.h). */
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "error.h"
#include "validate.h"

ncore_status_t core_check_not_null(const void *pointer, const char *argument) {
  if (pointer != NULL) return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: must not be NULL",
                    argument);
}

ncore_status_t core_check_dtype_failed(int dtype, const char *argument) {
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: %d is not a data type (valid: 0..%d)", argument, dtype,
                    CORE_DTYPE_COUNT - 1);
}

ncore_status_t core_check_range_failed(int value, int limit,
                                       const char *argument) {
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: %d is out of range [0, %d)", argument, value, limit);
}

ncore_status_t core_check_team(const ncore_team_t *team, const char *argument) {
  ncore_status_t status = core_check_not_null(team, argument);
  if (status != NCORE_OK) return status;
  if (team->n_ranks < 1 || team->stride < 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: n_ranks %d and stride %d must both be >= 1 (pass a "
                      "team from an ncore_comm_team_* call)",
                      argument, (int)team->n_ranks, (int)team->stride);
  if (team->rank >= 0 && team->rank < team->n_ranks) return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s.rank: %d is out of range [0, %d)", argument,
                    (int)team->rank, (int)team->n_ranks);
}

ncore_status_t core_check_window_offset(size_t offset, size_t size,
                                        const char *who, int index) {
  if (offset <= size) return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "offset: %zu is beyond %s %d's part of the window (%zu "
                    "bytes)", offset, who, index, size);
}

ncore_status_t core_check_buffer_failed(size_t count, const char *argument) {
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: is NULL but holds %zu elements", argument, count);
}

ncore_status_t core_check_registration(const void *ptr, size_t size) {
  ncore_status_t status = core_check_not_null(ptr, "ptr");
  if (status == NCORE_OK) status = core_check_size(size, "size");
  if (status == NCORE_OK) status = core_check_span(ptr, size, "size");
  return status;
}

ncore_status_t core_check_elements_failed(size_t count, size_t factor,
                                          const char *argument) {
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: %zu elements times %zu are more than the largest "
                    "object", argument, count, factor);
}

ncore_status_t core_check_size(size_t size, const char *argument) {
  if (size == 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: must be > 0", argument);
  if (size > (size_t)PTRDIFF_MAX)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %zu bytes is more than the largest object (%zu "
                      "bytes)", argument, size, (size_t)PTRDIFF_MAX);
  return NCORE_OK;
}

ncore_status_t core_check_span(const void *ptr, size_t bytes,
                               const char *argument) {
  if (bytes <= (size_t)PTRDIFF_MAX && (uintptr_t)ptr <= UINTPTR_MAX - bytes)
    return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: %zu bytes from the pointer run past the end of the "
                    "address space", argument, bytes);
}

ncore_status_t core_check_zero(long long value, const char *argument) {
  if (value == 0) return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: must be 0 (got %lld)",
                    argument, value);
}

ncore_status_t core_check_stream(const core_backend_ops_t *ops,
                                 ncore_stream_t stream) {
  return ops->stream_check(stream, "stream");
}

