/* core — internal additions to the error channel of core/error.h. */
#ifndef NCORE_CORE_ERROR_CLEAR_H
#define NCORE_CORE_ERROR_CLEAR_H

/* Forgets an error recorded earlier in the running call, keeping the
 * function name: for a failure the call recovers from (a probe that fails
 * before AUTO falls back to the host backend). */
void core_error_clear(void);

#endif
