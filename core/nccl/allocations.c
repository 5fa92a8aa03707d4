/* core/nccl — the pointers ncore_mem_alloc handed out, so that freeing
 * anything else (or freeing twice) is an argument error naming the pointer,
 * not an "unhandled cuda error" from ncclMemFree. */
#include <pthread.h>
#include <stdlib.h>
#include "../error.h"
#include "nccl_internal.h"

static pthread_mutex_t allocations_lock = PTHREAD_MUTEX_INITIALIZER;
static void **allocations;
static size_t allocations_count, allocations_capacity;

ncore_status_t nccl_allocation_add(void *ptr) {
  pthread_mutex_lock(&allocations_lock);
  if (allocations_count == allocations_capacity) {
    size_t capacity = allocations_capacity ? 2 * allocations_capacity : 64;
    void **grown = realloc(allocations, capacity * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&allocations_lock);
      return core_error(NCORE_ERR_SYSTEM, "out of memory");
    }
    allocations = grown;
    allocations_capacity = capacity;
  }
  allocations[allocations_count++] = ptr;
  pthread_mutex_unlock(&allocations_lock);
  return NCORE_OK;
}

int nccl_allocation_remove(void *ptr) {
  int found = 0;
  pthread_mutex_lock(&allocations_lock);
  for (size_t i = allocations_count; i-- > 0;)
    if (allocations[i] == ptr) {
      allocations[i] = allocations[--allocations_count];
      found = 1;
      break;
    }
  pthread_mutex_unlock(&allocations_lock);
  return found;
}
