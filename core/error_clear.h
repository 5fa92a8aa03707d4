/* core — internal additions to the error channel of core/error.h. */
#ifndef NCORE_CORE_ERROR_CLEAR_H
#define NCORE_CORE_ERROR_CLEAR_H

#include <ncore.h>

/* Forgets an error recorded earlier in the running call, keeping the
 * function name: for a failure the call recovers from (a probe that fails
 * before AUTO falls back to the host backend). */
void core_error_clear(void);

/* The thread's recorded status and message, kept aside while the running
 * call asks something that may record its own error (a backend query on a
 * failure path), then put back unchanged. */
typedef struct core_error_saved {
  ncore_status_t status;
  char message[1024];
} core_error_saved_t;
void core_error_save(core_error_saved_t *saved);
void core_error_restore(const core_error_saved_t *saved);

#endif
