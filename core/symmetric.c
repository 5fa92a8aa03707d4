/* core — symmetric memory (ncore/symmetric.h, nvshmem.core style):
 * collective allocation, local / peer pointers, put / get with bounds. */
#include <stdint.h>

#include "comm_call.h"
#include "resource_entry.h"
#include "validate.h"

NCORE_API ncore_status_t ncore_symmetric_alloc(ncore_symmetric_t *out,
                                               ncore_comm_t comm, size_t size) {
  CORE_ENTER("ncore_symmetric_alloc");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_resource_create_begin(out, comm, &c);
  if (status != NCORE_OK) return status;
  status = core_check_size(size, "size");
  core_resource_t fields = {.size = size};
  if (status == NCORE_OK)
    status = c->ops->symmetric_alloc(c->impl, size, &fields.impl.symmetric);
  /* ptr names the local part, so ncore_mem_free can refuse it. */
  if (status == NCORE_OK)
    fields.ptr = c->ops->symmetric_local_pointer(fields.impl.symmetric);
  return core_resource_create_end(c, status, CORE_HANDLE_SYMMETRIC, &fields,
                                  out);
}

CORE_RESOURCE_QUERY(ncore_symmetric_size, ncore_symmetric_t, sym,
                    CORE_HANDLE_SYMMETRIC, size_t, res->size)
CORE_RESOURCE_QUERY(ncore_symmetric_local_pointer, ncore_symmetric_t, sym,
                    CORE_HANDLE_SYMMETRIC, void *,
                    res->comm->ops->symmetric_local_pointer(res->impl.symmetric))

NCORE_API ncore_status_t ncore_symmetric_peer_pointer(ncore_symmetric_t sym,
                                                      int pe, void **out) {
  CORE_ENTER("ncore_symmetric_peer_pointer");
  core_resource_t *res = NULL;
  ncore_status_t status =
      core_resource_query_begin(sym, CORE_HANDLE_SYMMETRIC, "sym", out, &res);
  if (status != NCORE_OK) return status;
  status = core_check_range(pe, res->comm->info.nranks, "pe");
  if (status == NCORE_OK)
    *out = res->comm->ops->symmetric_peer_pointer(res->impl.symmetric, pe);
  core_resource_release(res);
  return status;
}

/* Shared checks of put and get: the local buffer, pe, the byte range
 * [offset, offset + bytes) inside the allocation, the communicator fit to
 * communicate, and the stream. */
static ncore_status_t check_transfer(const core_resource_t *res,
                                     const void *local, const char *local_name,
                                     size_t offset, const char *offset_name,
                                     size_t bytes, int pe,
                                     ncore_stream_t stream) {
  ncore_status_t status = core_check_buffer(local, bytes, local_name);
  if (status == NCORE_OK)
    status = core_check_range(pe, res->comm->info.nranks, "pe");
  if (status == NCORE_OK && (offset > res->size || bytes > res->size - offset))
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: %zu bytes at offset %zu are beyond the allocation "
                        "of %zu bytes", offset_name, bytes, offset, res->size);
  if (status == NCORE_OK) status = core_comm_usable(res->comm, 0);
  if (status == NCORE_OK)
    status = core_check_comm_stream(res->comm->ops, res->comm->impl, stream);
  return status;
}

NCORE_API ncore_status_t ncore_symmetric_put(ncore_symmetric_t dst,
                                             size_t dst_offset, const void *src,
                                             size_t bytes, int pe,
                                             ncore_stream_t stream) {
  CORE_ENTER("ncore_symmetric_put");
  core_resource_t *res = NULL;
  ncore_status_t status =
      core_resource_acquire(dst, CORE_HANDLE_SYMMETRIC, "dst", &res);
  if (status != NCORE_OK) return status;
  status = check_transfer(res, src, "src", dst_offset, "dst_offset", bytes, pe,
                          stream);
  /* Nothing to copy (src may be NULL): no backend call. */
  if (status == NCORE_OK && bytes > 0)
    status = res->comm->ops->symmetric_put(res->comm->impl, res->impl.symmetric,
                                           dst_offset, src, bytes, pe, stream);
  core_resource_release(res);
  return status;
}

NCORE_API ncore_status_t ncore_symmetric_get(void *dst, ncore_symmetric_t src,
                                             size_t src_offset, size_t bytes,
                                             int pe, ncore_stream_t stream) {
  CORE_ENTER("ncore_symmetric_get");
  core_resource_t *res = NULL;
  ncore_status_t status =
      core_resource_acquire(src, CORE_HANDLE_SYMMETRIC, "src", &res);
  if (status != NCORE_OK) return status;
  status = check_transfer(res, dst, "dst", src_offset, "src_offset", bytes, pe,
                          stream);
  if (status == NCORE_OK && bytes > 0)
    status = res->comm->ops->symmetric_get(res->comm->impl, dst, res->impl.symmetric,
                                           src_offset, bytes, pe, stream);
  core_resource_release(res);
  return status;
}

CORE_RESOURCE_CLOSE_AND_IS_VALID(ncore_symmetric_free, ncore_symmetric_is_valid,
                                 ncore_symmetric_t, sym, CORE_HANDLE_SYMMETRIC)
