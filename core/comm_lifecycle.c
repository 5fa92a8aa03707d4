/* core — the end of a communicator's life and of its work:
 * ncore_comm_finalize, ncore_comm_destroy, ncore_comm_abort,
 * ncore_comm_synchronize and ncore_comm_is_valid. */
#include "comm_call.h"
#include "comm_object.h"
#include "error.h"
#include "error_clear.h"
#include "validate.h"

NCORE_API ncore_status_t ncore_comm_finalize(ncore_comm_t comm) {
  CORE_ENTER("ncore_comm_finalize");
  core_comm_object_t *c = NULL;
  ncore_status_t status =
      core_comm_acquire(comm, CORE_COMM_ALLOW_FINALIZED, &c);
  if (status != NCORE_OK) return status;
  if (atomic_load(&c->finalized)) {
    core_comm_release(c);
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "comm: the communicator was already finalized");
  }
  status = c->ops->comm_finalize(c->impl);
  if (status == NCORE_OK) atomic_store(&c->finalized, 1);
  return core_comm_finish(c, status);
}

NCORE_API ncore_status_t ncore_comm_destroy(ncore_comm_t comm) {
  CORE_ENTER("ncore_comm_destroy");
  return core_comm_close(comm, 0);
}

NCORE_API ncore_status_t ncore_comm_abort(ncore_comm_t comm) {
  CORE_ENTER("ncore_comm_abort");
  return core_comm_close(comm, 1);
}

NCORE_API ncore_status_t ncore_comm_synchronize(ncore_comm_t comm,
                                                ncore_stream_t stream) {
  CORE_ENTER("ncore_comm_synchronize");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(
      comm, CORE_COMM_ALLOW_FINALIZED | CORE_COMM_ALLOW_REVOKED, &c);
  if (status != NCORE_OK) return status;
  status = core_check_comm_stream(c->ops, c->impl, stream);
  if (status == NCORE_OK)
    status = c->ops->comm_synchronize(c->impl, stream, c->config.timeout_ms);
  /* A peer failure or a timeout seen here ends the communicator. */
  return core_comm_finish(c, status);
}

NCORE_API int ncore_comm_is_valid(ncore_comm_t comm) {
  CORE_ENTER("ncore_comm_is_valid");
  int valid = core_handle_classify(comm, CORE_HANDLE_COMM, "comm") == 1;
  core_error_clear(); /* cannot fail: a "no" is not an error */
  return valid;
}
