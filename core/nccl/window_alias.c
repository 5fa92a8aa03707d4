/* core/nccl — point-to-point buffers kept out of NCCL's registration of
 * windows (window_alias.h says why). */
#include "window_alias.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "../log.h"

/* Grows *array (of *capacity elements of size each) to hold one more. */
static int grow(void **array, int *capacity, int count, size_t size) {
  if (count < *capacity) return 0;
  int wanted = *capacity ? 2 * *capacity : 4;
  void *grown = realloc(*array, (size_t)wanted * size);
  if (grown == NULL) return -1;
  *array = grown;
  *capacity = wanted;
  return 0;
}

/* Why no alias could be made, said once per process: send/recv on such a
 * window keep NCCL's own rule. */
static void no_alias(nccl_comm_t *c, const char *call, CUresult r) {
  static atomic_int said;
  if (atomic_exchange(&said, 1)) return;
  const char *name = "?";
  if (cu_fn.GetErrorName != NULL) cu_fn.GetErrorName(r, &name);
  core_log(CORE_LOG_WARN,
           "rank %d: no second mapping of a window's memory (%s: %s): a "
           "send or recv whose buffer lies in a window then counts as "
           "registered with NCCL, and NCCL hangs when the other side's "
           "buffer is not (register both sides with ncore_register_buffer, "
           "or neither)", c->rank, call, name);
}

/* The mappings that hold [begin, end): the first one's start and the last
 * one's end, each mapping being one physical allocation (cuMem). */
static CUresult mapped_span(CUdeviceptr begin, CUdeviceptr end,
                            CUdeviceptr *first, CUdeviceptr *last) {
  size_t size = 0;
  CUresult r = cu_fn.MemGetAddressRange(first, &size, begin);
  CUdeviceptr at = *first + size;
  while (r == CUDA_SUCCESS && at < end) {
    CUdeviceptr base = 0;
    r = cu_fn.MemGetAddressRange(&base, &size, at);
    at = base + size;
  }
  *last = at;
  return r;
}

/* Maps every allocation of [from, from + span) again at alias + (its
 * start - from), readable and writable by the communicator's device. */
static CUresult map_alias(nccl_comm_t *c, CUdeviceptr from, size_t span,
                          CUdeviceptr alias, const char **call) {
  CUresult r = CUDA_SUCCESS;
  for (CUdeviceptr at = from; r == CUDA_SUCCESS && at < from + span;) {
    CUdeviceptr base = 0;
    size_t size = 0;
    CUmemGenericAllocationHandle handle = 0;
    *call = "cuMemGetAddressRange";
    r = cu_fn.MemGetAddressRange(&base, &size, at);
    if (r == CUDA_SUCCESS) {
      *call = "cuMemRetainAllocationHandle";
      r = cu_fn.MemRetainAllocationHandle(&handle, (void *)(uintptr_t)base);
    }
    if (r == CUDA_SUCCESS) {
      *call = "cuMemMap";
      r = cu_fn.MemMap(alias + (base - from), size, 0, handle, 0);
      /* The mapping holds the memory now; the retained reference goes. */
      (void)cu_fn.MemRelease(handle);
    }
    at = base + size;
  }
  if (r != CUDA_SUCCESS) return r;
  CUmemAccessDesc access = {0};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = c->device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  *call = "cuMemSetAccess";
  return cu_fn.MemSetAccess(alias, span, &access, 1);
}

void nccl_window_alias_add(nccl_comm_t *c, const void *window, void *ptr,
                           size_t size, uint32_t flags) {
  if (cu_fn.MemAddressReserve == NULL || cu_fn.MemMap == NULL ||
      cu_fn.MemSetAccess == NULL || cu_fn.MemRetainAllocationHandle == NULL) {
    no_alias(c, "the driver lacks virtual memory management",
             CUDA_ERROR_NOT_SUPPORTED);
    return;
  }
  nccl_alias_t a = {window, (uintptr_t)ptr, (uintptr_t)ptr + size, flags, 0, 0, 0};
  CUdeviceptr last = 0;
  const char *call = "cuMemGetAddressRange";
  CUresult r = mapped_span((CUdeviceptr)a.begin, (CUdeviceptr)a.end, &a.from, &last);
  a.span = (size_t)(last - a.from);
  if (r == CUDA_SUCCESS) {
    call = "cuMemAddressReserve";
    r = cu_fn.MemAddressReserve(&a.alias, a.span, 0, 0, 0);
  }
  if (r == CUDA_SUCCESS) {
    r = map_alias(c, a.from, a.span, a.alias, &call);
    if (r != CUDA_SUCCESS) {
      (void)cu_fn.MemUnmap(a.alias, a.span);
      (void)cu_fn.MemAddressFree(a.alias, a.span);
    }
  }
  if (r != CUDA_SUCCESS) {
    no_alias(c, call, r);
    return;
  }
  pthread_mutex_lock(&c->alias_lock);
  int listed = grow((void **)&c->alias_windows, &c->alias_window_capacity,
                    c->alias_window_count, sizeof *c->alias_windows) == 0;
  if (listed) {
    c->alias_windows[c->alias_window_count++] = a;
    atomic_store(&c->alias_windows_live, c->alias_window_count);
  }
  pthread_mutex_unlock(&c->alias_lock);
  if (!listed) { /* out of memory: not listed, so not kept */
    (void)cu_fn.MemUnmap(a.alias, a.span);
    (void)cu_fn.MemAddressFree(a.alias, a.span);
  }
}

void nccl_window_alias_remove(nccl_comm_t *c, const void *window) {
  nccl_alias_t gone = {0};
  pthread_mutex_lock(&c->alias_lock);
  for (int i = 0; i < c->alias_window_count; i++) {
    if (c->alias_windows[i].window != window) continue;
    gone = c->alias_windows[i];
    c->alias_windows[i] = c->alias_windows[--c->alias_window_count];
    break;
  }
  atomic_store(&c->alias_windows_live, c->alias_window_count);
  pthread_mutex_unlock(&c->alias_lock);
  if (gone.alias != 0 && !core_comm_state_aborted(c->state)) {
    (void)cu_fn.MemUnmap(gone.alias, gone.span);
    (void)cu_fn.MemAddressFree(gone.alias, gone.span);
  }
}

void nccl_registered_range_add(nccl_comm_t *c, const void *ptr, size_t size) {
  pthread_mutex_lock(&c->alias_lock);
  /* Out of memory: the range is not listed, and a window's buffer inside
   * it goes through the alias, unregistered (slower, never a hang). */
  if (grow((void **)&c->registered_ranges, &c->registered_range_capacity,
           c->registered_range_count, sizeof *c->registered_ranges) == 0) {
    struct nccl_range *range = &c->registered_ranges[c->registered_range_count++];
    range->begin = (uintptr_t)ptr;
    range->end = (uintptr_t)ptr + size;
  }
  pthread_mutex_unlock(&c->alias_lock);
}

void nccl_registered_range_remove(nccl_comm_t *c, const void *ptr,
                                  size_t size) {
  pthread_mutex_lock(&c->alias_lock);
  for (int i = 0; i < c->registered_range_count; i++) {
    struct nccl_range *range = &c->registered_ranges[i];
    if (range->begin != (uintptr_t)ptr || range->end != (uintptr_t)ptr + size)
      continue;
    *range = c->registered_ranges[--c->registered_range_count];
    break;
  }
  pthread_mutex_unlock(&c->alias_lock);
}

/* The window (under alias_lock) whose memory holds [begin, end), or NULL. */
static const nccl_alias_t *window_holding(nccl_comm_t *c, uintptr_t begin,
                                          uintptr_t end) {
  for (int i = 0; i < c->alias_window_count; i++) {
    const nccl_alias_t *w = &c->alias_windows[i];
    if (begin >= w->begin && end <= w->end) return w;
  }
  return NULL;
}

const void *nccl_p2p_address_search(nccl_comm_t *c, const void *buf,
                                    size_t bytes) {
  uintptr_t begin = (uintptr_t)buf, end = begin + bytes;
  const void *address = buf;
  pthread_mutex_lock(&c->alias_lock);
  const nccl_alias_t *w = bytes > 0 ? window_holding(c, begin, end) : NULL;
  int registered = 0;
  for (int i = 0; w != NULL && i < c->registered_range_count; i++)
    registered |= begin >= c->registered_ranges[i].begin &&
                  end <= c->registered_ranges[i].end;
  if (w != NULL && !registered)
    address = (const void *)(uintptr_t)(w->alias + (begin - w->from));
  pthread_mutex_unlock(&c->alias_lock);
  return address;
}

int nccl_in_symmetric_window(nccl_comm_t *c, const void *buf, size_t bytes) {
  if (atomic_load_explicit(&c->alias_windows_live, memory_order_acquire) == 0)
    return 0;
  pthread_mutex_lock(&c->alias_lock);
  const nccl_alias_t *w = window_holding(c, (uintptr_t)buf, (uintptr_t)buf + bytes);
  int symmetric = w != NULL && (w->flags & NCORE_WINDOW_COLL_SYMMETRIC) != 0;
  pthread_mutex_unlock(&c->alias_lock);
  return symmetric;
}

void nccl_window_alias_free(nccl_comm_t *c) {
  pthread_mutex_destroy(&c->alias_lock);
  free(c->alias_windows);
  free(c->registered_ranges);
}
