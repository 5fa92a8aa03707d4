/* core — the thread-local error channel behind ncore_last_error_message.
 *
 * Each public entry point begins with CORE_ENTER("ncore_xxx"), which clears
 * the thread's error and remembers the function's name; core_error() then
 * records "<function>: <message>" so that backends never format the prefix
 * themselves and every language sees the same text. */
#ifndef NCORE_CORE_ERROR_H
#define NCORE_CORE_ERROR_H

#include <ncore.h>

#include "thread_state.h"

/* Starts a public call: clears the last error, remembers the function name
 * (NULL: "ncore"). The message is read only while a status is recorded, so
 * clearing the status clears it. */
static inline void core_error_enter(const char *function) {
  core_thread.error_status = NCORE_OK;
  core_thread.error_function = function != NULL ? function : "ncore";
}
#define CORE_ENTER(name) core_error_enter(name)

/* Records status and a printf-style message for the current call; returns
 * status so callers can write `return core_error(NCORE_ERR_..., "...")`.
 * Messages name the argument first: "peer: 7 is out of range [0, 4)".
 * Cold: the compiler moves every path that ends in an error out of the
 * calls' straight line, so a call that succeeds runs through less code. */
ncore_status_t core_error(ncore_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), cold));

/* Returns the status recorded for the current call (NCORE_OK if none). */
ncore_status_t core_error_current(void);

/* The name CORE_ENTER gave the thread's running public call ("ncore" before
 * any): what a long wait names as the call waiting (core/log.h). */
static inline const char *core_error_call(void) {
  return core_thread.error_function;
}

/* The running call's message without its "<function>: " prefix ("" when
 * none is recorded): for a message quoted inside another (a reason). */
const char *core_error_detail(void);

#endif
