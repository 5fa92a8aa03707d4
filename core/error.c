/* core — the thread-local error channel (core/error.h, ncore/errors.h).
 *
 * One status and one message per thread, as libgit2's git_error_last: every
 * public entry point clears them on entry (CORE_ENTER), and core_error()
 * records "<function>: <message>" so the prefix is written in one place. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "error_clear.h"
#include "log.h"
#include "thread_state.h"

/* Long enough for any message we format; longer ones are truncated. */
#define CORE_ERROR_MESSAGE_BYTES 1024

static __thread char tls_message[CORE_ERROR_MESSAGE_BYTES];


/* 1 for the statuses a correct program can still meet: WARN in the log. */
static int status_is_environmental(ncore_status_t status) {
  switch (status) {
    case NCORE_ERR_UNHANDLED_CUDA:
    case NCORE_ERR_SYSTEM:
    case NCORE_ERR_INTERNAL:
    case NCORE_ERR_REMOTE:
    case NCORE_ERR_TIMEOUT:
      return 1;
    default:
      return 0;
  }
}

/* Records status and "<function>: <formatted>"; returns status. A later
 * error in the same call replaces an earlier one, since the last one
 * recorded is normally the status the call returns. NCORE_OK records
 * nothing. */
ncore_status_t core_error(ncore_status_t status, const char *fmt, ...) {
  if (status == NCORE_OK) return status;
  int prefix = snprintf(tls_message, sizeof tls_message, "%s: ",
                        core_thread.error_function);
  if (prefix < 0) prefix = 0;
  if ((size_t)prefix < sizeof tls_message) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(tls_message + prefix, sizeof tls_message - (size_t)prefix, fmt,
              args);
    va_end(args);
  }
  core_thread.error_status = status;
  /* The debug log sees every recorded error: WARN for those whose cause lies
   * outside the caller's arguments (a peer, the system, CUDA, time). */
  core_log(status_is_environmental(status) ? CORE_LOG_WARN : CORE_LOG_INFO,
           "%s (%s)", tls_message, ncore_status_string(status));
  return status;
}

/* Forgets the running call's error; the function name stays. */
void core_error_clear(void) {
  core_thread.error_status = NCORE_OK;
  tls_message[0] = '\0';
}

void core_error_save(core_error_saved_t *saved) {
  saved->status = core_thread.error_status;
  snprintf(saved->message, sizeof saved->message, "%s", tls_message);
}

void core_error_restore(const core_error_saved_t *saved) {
  core_thread.error_status = saved->status;
  snprintf(tls_message, sizeof tls_message, "%s", saved->message);
}

/* The status recorded for the running call. */
ncore_status_t core_error_current(void) { return core_thread.error_status; }


const char *core_error_detail(void) {
  if (core_thread.error_status == NCORE_OK) return "";
  size_t prefix = strlen(core_thread.error_function);
  if (strncmp(tls_message, core_thread.error_function, prefix) == 0 &&
      strncmp(tls_message + prefix, ": ", 2) == 0)
    return tls_message + prefix + 2;
  return tls_message;
}

NCORE_API const char *ncore_status_string(ncore_status_t status) {
  switch (status) {
    case NCORE_OK: return "NCORE_OK";
    case NCORE_ERR_UNHANDLED_CUDA: return "NCORE_ERR_UNHANDLED_CUDA";
    case NCORE_ERR_SYSTEM: return "NCORE_ERR_SYSTEM";
    case NCORE_ERR_INTERNAL: return "NCORE_ERR_INTERNAL";
    case NCORE_ERR_INVALID_ARGUMENT: return "NCORE_ERR_INVALID_ARGUMENT";
    case NCORE_ERR_INVALID_USAGE: return "NCORE_ERR_INVALID_USAGE";
    case NCORE_ERR_REMOTE: return "NCORE_ERR_REMOTE";
    case NCORE_IN_PROGRESS: return "NCORE_IN_PROGRESS";
    case NCORE_ERR_NOT_SUPPORTED: return "NCORE_ERR_NOT_SUPPORTED";
    case NCORE_ERR_UNAVAILABLE: return "NCORE_ERR_UNAVAILABLE";
    case NCORE_ERR_CLOSED: return "NCORE_ERR_CLOSED";
    case NCORE_ERR_TIMEOUT: return "NCORE_ERR_TIMEOUT";
  }
  return "NCORE_ERR_UNKNOWN";
}

/* The message of the last failed call on this thread, "" after a success.
 * Deliberately does not clear anything: reading the error is not a call. */
NCORE_API const char *ncore_last_error_message(void) {
  return core_thread.error_status == NCORE_OK ? "" : tls_message;
}

NCORE_API ncore_status_t ncore_last_error_status(void) {
  return core_thread.error_status;
}
