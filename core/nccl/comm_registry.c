/* core/nccl — the live communicators (comm_registry.h). */
#include "comm_registry.h"

#include <pthread.h>
#include <stdlib.h>

#include "../log.h"
#include "device.h"
#include "peer_work.h"
#include "small_coll.h"
#include "stream.h"

/* Taken before any communicator's own locks, never after. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static nccl_comm_t **registry;
static int registry_count, registry_capacity;

void nccl_comm_registry_add(nccl_comm_t *c) {
  pthread_mutex_lock(&registry_lock);
  if (registry_count == registry_capacity) {
    int capacity = registry_capacity ? 2 * registry_capacity : 8;
    nccl_comm_t **grown = realloc(registry, (size_t)capacity * sizeof *grown);
    if (grown == NULL) {
      pthread_mutex_unlock(&registry_lock);
      core_log(CORE_LOG_WARN, "out of memory listing a communicator: "
               "destroying through ncore a stream it used leaves it naming "
               "the stale handle");
      return;
    }
    registry = grown;
    registry_capacity = capacity;
  }
  registry[registry_count++] = c;
  pthread_mutex_unlock(&registry_lock);
}

void nccl_comm_registry_remove(nccl_comm_t *c) {
  pthread_mutex_lock(&registry_lock);
  for (int i = 0; i < registry_count; i++)
    if (registry[i] == c) {
      registry[i] = registry[--registry_count];
      break;
    }
  pthread_mutex_unlock(&registry_lock);
}

ncore_status_t nccl_comm_registry_stream_destroy(ncore_stream_t handle) {
  /* The events are recorded in the stream's context: make it current. */
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  CUstream stream = (CUstream)handle;
  pthread_mutex_lock(&registry_lock);
  for (int i = 0; i < registry_count; i++) {
    nccl_peer_work_stream_gone(registry[i], stream);
    nccl_small_stream_gone(registry[i], stream);
  }
  pthread_mutex_unlock(&registry_lock);
  return nccl_stream_destroy(handle);
}
