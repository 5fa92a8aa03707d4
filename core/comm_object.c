/* core — a communicator object's life: made, published with its
 * backend's communicator, closed with its resources, and destroyed at its
 * last reference (core/comm_object.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "comm_object.h"
#include "error.h"
#include "error_clear.h"
#include "log.h"
#include "process.h"

/* Runs at the communicator's last reference: every resource is gone (each
 * held a reference), and no call is running. */
static void comm_object_destroy(core_object_t *obj) {
  core_comm_object_t *comm = (core_comm_object_t *)obj;
  /* A fork() child's copy is not the rank: tearing the backend state down
   * would act on the parent's (NCCL's and CUDA's do not survive fork), so
   * the child only lets go of its own memory. */
  if (comm->owner != core_process_id())
    comm->ops->comm_forget(comm->impl);
  else
    comm->ops->comm_destroy(comm->impl,
                            core_comm_state_aborted(&comm->state));
  core_comm_unpublished_free(comm);
}

/* A communicating call's reads end with the state's flags: its first two
 * lines (comm_object_types.h). */
_Static_assert(offsetof(core_comm_object_t, state.call_ready) + sizeof(atomic_int) <= 128,
               "a call's fields of the communicator object must fit its first two lines");

core_comm_object_t *core_comm_object_new(void) {
  /* Aligned as its type says: what a call reads is its first two lines. */
  core_comm_object_t *comm = aligned_alloc(_Alignof(core_comm_object_t), sizeof *comm);
  if (comm != NULL) memset(comm, 0, sizeof *comm);
  if (comm == NULL) {
    core_error(NCORE_ERR_SYSTEM, "out of memory for a communicator");
    return NULL;
  }
  core_comm_state_init(&comm->state);
  pthread_mutex_init(&comm->lock, NULL);
  return comm;
}

void core_comm_unpublished_free(core_comm_object_t *comm) {
  if (comm == NULL) return;
  pthread_mutex_destroy(&comm->lock);
  free(comm->closed_redops);
  free(comm);
}

ncore_status_t core_comm_publish(core_comm_object_t *comm,
                                 const core_backend_ops_t *ops,
                                 core_backend_comm_t *impl,
                                 const core_config_t *config, int pending,
                                 ncore_comm_t *out) {
  comm->ops = ops;
  comm->impl = impl;
  comm->config = *config;
  /* net_name and comm_name are borrowed for the init call only: never keep
   * them, or a split inheriting this config would pass dangling pointers. */
  comm->config.user.net_name = NULL;
  comm->config.user.comm_name = NULL;
  atomic_init(&comm->finalized, 0);
  atomic_init(&comm->pending, pending != 0);
  atomic_init(&comm->revoked, 0);
  atomic_init(&comm->suspended, 0);
  atomic_init(&comm->grow_id_outstanding, 0);
  comm->owner = core_process_id();
  ops->comm_info(impl, &comm->info);
  uint64_t handle = core_handle_insert(&comm->header, CORE_HANDLE_COMM,
                                       comm_object_destroy);
  if (handle == NCORE_NULL_HANDLE) {
    comm_object_destroy(&comm->header);
    return core_error_current();
  }
  *out = handle;
  core_log(CORE_LOG_INFO,
           "comm %#llx: rank %d of %d, %s backend, device %d, timeout %lld ms%s",
           (unsigned long long)handle, comm->info.rank, comm->info.nranks,
           ops->name, comm->info.device, (long long)config->timeout_ms,
           pending ? " (still initialising)" : "");
  return NCORE_OK;
}

ncore_status_t core_comm_properties(core_comm_object_t *comm,
                                    ncore_comm_properties_t *out) {
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  props.rank = comm->info.rank;
  props.nranks = comm->info.nranks;
  props.cuda_device = comm->info.device;
  props.n_lsa_teams = 1;
  ncore_status_t status = comm->ops->comm_properties(comm->impl, &props);
  if (status == NCORE_OK) *out = props;
  return status;
}

ncore_status_t core_comm_close(ncore_comm_t handle, int aborted) {
  core_object_t *obj = NULL;
  ncore_status_t status =
      core_handle_acquire(handle, CORE_HANDLE_COMM, "comm", &obj);
  if (status == NCORE_ERR_CLOSED) {
    core_error_clear(); /* idempotent: already destroyed or aborted */
    return NCORE_OK;
  }
  if (status != NCORE_OK) return status;
  core_comm_object_t *comm = (core_comm_object_t *)obj;
  if (core_handle_close(obj)) {
    if (aborted) {
      core_log(CORE_LOG_WARN, "comm %#llx: rank %d of %d aborted",
               (unsigned long long)handle, comm->info.rank, comm->info.nranks);
      core_comm_state_abort(&comm->state);
      /* Wakes a call blocked on this communicator in another thread; it
       * still holds its reference, so the impl stays valid meanwhile. A
       * fork() child has no such call, and must not tell the peers its
       * parent aborted. */
      if (comm->owner == core_process_id())
        comm->ops->comm_abort_signal(comm->impl);
    }
    pthread_mutex_lock(&comm->lock);
    comm->tearing_down = 1;
    core_resource_t *list = comm->resources;
    comm->resources = NULL;
    for (core_resource_t *r = list; r != NULL; r = r->next) r->linked = 0;
    pthread_mutex_unlock(&comm->lock);
    /* Closing drops the table's reference; each resource's backend release
     * runs now or when a call still using it finishes. */
    core_resource_t *next = NULL;
    for (core_resource_t *r = list; r != NULL; r = next) {
      next = r->next;
      core_handle_close(&r->header);
    }
  }
  core_handle_release(obj);
  return NCORE_OK;
}
