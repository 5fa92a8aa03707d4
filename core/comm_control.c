/* core — communicator control (ncore/comm_control.h): properties, revoke,
 * the unique id for a grow, suspend and resume, memory statistics. The
 * revoked and suspended states live here (core_comm_object_t), so every
 * backend refuses the same calls with the same message (core_comm_usable);
 * ncore_comm_grow and ncore_comm_init_rank_scalable make communicators and
 * live with their kind in comm_create.c. */
#include <string.h>

#include "comm_call.h"
#include "comm_object.h"
#include "error.h"
#include "versioned.h"

NCORE_API ncore_status_t ncore_comm_properties(ncore_comm_t comm,
                                               ncore_comm_properties_t *out) {
  CORE_ENTER("ncore_comm_properties");
  uint32_t their_size = 0;
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_query_begin(comm, 0, out, &c);
  if (status != NCORE_OK) return status;
  status = core_versioned_check_out(
      out, CORE_MIN_SIZE_COMM_PROPERTIES, sizeof(ncore_comm_properties_t),
      "out", &their_size);
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  if (status == NCORE_OK) status = core_comm_properties(c, &props);
  if (status == NCORE_OK)
    core_versioned_write(out, their_size, &props, sizeof props);
  core_comm_release(c);
  return status;
}

NCORE_API ncore_status_t ncore_comm_revoke(ncore_comm_t comm, uint32_t flags) {
  CORE_ENTER("ncore_comm_revoke");
  if (flags != NCORE_REVOKE_DEFAULT)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "flags: 0x%x is invalid (expected NCORE_REVOKE_DEFAULT)",
                      flags);
  /* A failed communicator may be revoked: it is the first step of recovery
   * (revoke, then shrink); a suspended one too, since it stops nothing. */
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(
      comm, CORE_COMM_ALLOW_FAILED | CORE_COMM_ALLOW_SUSPENDED, &c);
  if (status != NCORE_OK) return status;
  status = c->ops->comm_revoke(c->impl, flags);
  if (status == NCORE_OK || status == NCORE_IN_PROGRESS)
    atomic_store(&c->revoked, 1);
  core_comm_release(c);
  return status == NCORE_IN_PROGRESS ? NCORE_OK : status;
}

NCORE_API ncore_status_t ncore_comm_get_unique_id(ncore_comm_t comm,
                                                  ncore_unique_id_t *out) {
  CORE_ENTER("ncore_comm_get_unique_id");
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  if (atomic_load(&c->grow_id_outstanding))
    status = core_error(NCORE_ERR_INVALID_USAGE,
                        "comm: a unique id made earlier was not consumed by "
                        "ncore_comm_grow yet (one at a time)");
  else
    status = c->ops->comm_get_unique_id(c->impl, out);
  if (status == NCORE_OK) atomic_store(&c->grow_id_outstanding, 1);
  core_comm_release(c);
  return status;
}

NCORE_API ncore_status_t ncore_comm_suspend(ncore_comm_t comm,
                                            uint32_t flags) {
  CORE_ENTER("ncore_comm_suspend");
  if ((flags & ~NCORE_SUSPEND_MEM) != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "flags: 0x%x has unknown bits (expected "
                      "NCORE_SUSPEND_MEM)", flags);
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  status = c->ops->comm_suspend(c->impl, flags);
  if (status == NCORE_OK) atomic_store(&c->suspended, 1);
  return core_comm_finish(c, status);
}

NCORE_API ncore_status_t ncore_comm_resume(ncore_comm_t comm) {
  CORE_ENTER("ncore_comm_resume");
  core_comm_object_t *c = NULL;
  ncore_status_t status =
      core_comm_acquire(comm, CORE_COMM_ALLOW_SUSPENDED, &c);
  if (status != NCORE_OK) return status;
  if (!atomic_load(&c->suspended)) {
    core_comm_release(c);
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "comm: the communicator is not suspended");
  }
  status = c->ops->comm_resume(c->impl);
  if (status == NCORE_OK) atomic_store(&c->suspended, 0);
  return core_comm_finish(c, status);
}

NCORE_API ncore_status_t ncore_comm_mem_stat(ncore_comm_t comm,
                                             ncore_comm_mem_stat_t stat,
                                             uint64_t *out) {
  CORE_ENTER("ncore_comm_mem_stat");
  if ((int)stat < NCORE_COMM_MEM_STAT_GPU_MEM_SUSPEND ||
      (int)stat > NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "stat: %d is not an ncore_comm_mem_stat_t", (int)stat);
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_query_begin(comm, 0, out, &c);
  if (status != NCORE_OK) return status;
  status = c->ops->comm_mem_stat(c->impl, stat, out);
  core_comm_release(c);
  return status;
}
