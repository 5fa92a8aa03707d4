/* core — choosing a backend: an explicit HOST / NCCL request is checked with
 * the backend's probe(); AUTO follows NCORE_BACKEND ("host" / "nccl"), else
 * NCCL when it probes OK (libnccl, libcuda and a device present), else HOST.
 * Also the public ncore_backend_resolve (ncore/memory.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "error_clear.h"
#include "log.h"

/* Probes ops and, when usable, lets groups know the backend is in use. */
static ncore_status_t probe_backend(const core_backend_ops_t *ops) {
  ncore_status_t status = ops->probe();
  if (status == NCORE_OK) return NCORE_OK;
  if (core_error_current() == NCORE_OK)
    core_error(status, "backend: the %s backend is not available", ops->name);
  return status;
}

/* Writes printf-style text into reason (when not NULL). */
static void explain(char *reason, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void explain(char *reason, size_t cap, const char *fmt, ...) {
  if (reason == NULL || cap == 0) return;
  va_list args;
  va_start(args, fmt);
  vsnprintf(reason, cap, fmt, args);
  va_end(args);
}

ncore_status_t core_backend_select_why(ncore_backend_t requested,
                                       const core_backend_ops_t **out,
                                       char *reason, size_t cap) {
  const core_backend_ops_t *ops = NULL;
  const char *why = "requested by the caller";
  switch (requested) {
    case NCORE_BACKEND_HOST: ops = &core_host_backend; break;
    case NCORE_BACKEND_NCCL: ops = &core_nccl_backend; break;
    case NCORE_BACKEND_AUTO: {
      const char *env = getenv("NCORE_BACKEND");
      if (env != NULL && env[0] != '\0') {
        if (strcmp(env, "host") == 0)
          ops = &core_host_backend;
        else if (strcmp(env, "nccl") == 0)
          ops = &core_nccl_backend;
        else
          return core_error(NCORE_ERR_INVALID_ARGUMENT,
                            "backend: NCORE_BACKEND=\"%s\" names no backend "
                            "(expected \"host\" or \"nccl\")", env);
        why = ops == &core_host_backend ? "NCORE_BACKEND=host"
                                        : "NCORE_BACKEND=nccl";
        break;
      }
      /* No preference: NCCL when usable. Its probe records why not; that
       * is no error of this call, so clear it before falling back. */
      if (core_nccl_backend.probe() == NCORE_OK) {
        explain(reason, cap, "NCORE_BACKEND is unset and NCCL is usable");
        core_log(CORE_LOG_INFO, "backend: nccl (NCORE_BACKEND is unset and "
                                "NCCL is usable)");
        *out = &core_nccl_backend;
        return NCORE_OK;
      }
      explain(reason, cap, "NCORE_BACKEND is unset and NCCL is not usable: %s",
              core_error_detail());
      core_log(CORE_LOG_INFO, "backend: host (NCORE_BACKEND is unset and NCCL "
                              "is not usable: %s)", core_error_detail());
      core_error_clear();
      *out = &core_host_backend;
      return NCORE_OK;
    }
    default:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "backend: %d is not a backend (AUTO 0, HOST 1, NCCL 2)",
                        (int)requested);
  }
  ncore_status_t status = probe_backend(ops);
  if (status != NCORE_OK) return status;
  explain(reason, cap, "%s", why);
  core_log(CORE_LOG_INFO, "backend: %s (%s)", ops->name, why);
  *out = ops;
  return NCORE_OK;
}

ncore_status_t core_backend_select(ncore_backend_t requested,
                                   const core_backend_ops_t **out) {
  return core_backend_select_why(requested, out, NULL, 0);
}

NCORE_API ncore_status_t ncore_backend_resolve(ncore_backend_t requested,
                                               ncore_backend_t *out) {
  CORE_ENTER("ncore_backend_resolve");
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  const core_backend_ops_t *ops = NULL;
  ncore_status_t status = core_backend_select(requested, &ops);
  if (status == NCORE_OK) *out = ops->kind;
  return status;
}
