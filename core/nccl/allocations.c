/* core/nccl — the pointers ncore_mem_alloc handed out, so that freeing
 * anything else (or freeing twice) is an argument error naming the pointer,
 * not an "unhandled cuda error" from ncclMemFree. */
#include "allocations.h"

#include <pthread.h>
#include <stdlib.h>

#include "../error.h"

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

/* ---- retired memory ----
 * ncore's own device memory that stream work may still read after its
 * owner is gone: the signal slots of a communicator destroyed after a
 * failure, where a stream wait enqueued earlier may not have reached the
 * slots yet. Freeing them at once would make that wait read unmapped
 * memory (a sticky fault that kills the context), so they are freed after
 * the next synchronisation of their context (nccl_retired_release). */
typedef struct retired {
  void *ptr;
  CUcontext ctx;
} retired_t;
static retired_t *retired;
static size_t retired_count, retired_capacity;

void nccl_retire(void *ptr, CUcontext ctx) {
  pthread_mutex_lock(&allocations_lock);
  if (retired_count == retired_capacity) {
    size_t capacity = retired_capacity ? 2 * retired_capacity : 16;
    retired_t *grown = realloc(retired, capacity * sizeof *grown);
    if (grown == NULL) { /* kept mapped for good: a small, bounded leak */
      pthread_mutex_unlock(&allocations_lock);
      return;
    }
    retired = grown;
    retired_capacity = capacity;
  }
  retired[retired_count++] = (retired_t){ptr, ctx};
  pthread_mutex_unlock(&allocations_lock);
}

void nccl_retired_release(CUcontext ctx) {
  pthread_mutex_lock(&allocations_lock);
  for (size_t i = retired_count; i-- > 0;)
    if (retired[i].ctx == ctx) {
      nccl_fn.ncclMemFree(retired[i].ptr);
      retired[i] = retired[--retired_count];
    }
  pthread_mutex_unlock(&allocations_lock);
}
