/* core — memory, devices and streams without a communicator
 * (ncore/memory.h). Each call names its backend, resolved with
 * core_backend_select (AUTO as for communicators). */
#include <stdint.h>

#include "backend.h"
#include "error.h"
#include "resource_object.h"
#include "validate.h"

NCORE_API ncore_status_t ncore_mem_alloc(void **out, size_t size,
                                         ncore_backend_t backend) {
  CORE_ENTER("ncore_mem_alloc");
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  *out = NULL;
  status = core_check_size(size, "size");
  if (status != NCORE_OK) return status;
  const core_backend_ops_t *ops = NULL;
  status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  return ops->mem_alloc(out, size);
}

NCORE_API ncore_status_t ncore_mem_free(void *ptr, ncore_backend_t backend) {
  CORE_ENTER("ncore_mem_free");
  const core_backend_ops_t *ops = NULL;
  ncore_status_t status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  if (ptr == NULL) return NCORE_OK;
  /* A symmetric allocation's part is the backend's memory too, but peers
   * map it: only ncore_symmetric_free may let it go. */
  if (core_resource_owns_pointer(CORE_HANDLE_SYMMETRIC, ptr))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "ptr: is the local part of a symmetric allocation; "
                      "release it with ncore_symmetric_free");
  return ops->mem_free(ptr);
}

NCORE_API ncore_status_t ncore_device_count(ncore_backend_t backend, int *out) {
  CORE_ENTER("ncore_device_count");
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  const core_backend_ops_t *ops = NULL;
  status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  return ops->device_count(out);
}

NCORE_API ncore_status_t ncore_device_set(ncore_backend_t backend, int device) {
  CORE_ENTER("ncore_device_set");
  const core_backend_ops_t *ops = NULL;
  ncore_status_t status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  /* Without devices: -1 (none) or 0 (the one device_count counts). */
  int lowest = ops->caps.devices ? 0 : -1;
  int highest = ops->caps.devices ? INT32_MAX : 0;
  if (device < lowest || device > highest)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "device: %d is out of range (the %s backend accepts %s)",
                      device, ops->name,
                      ops->caps.devices ? "a device ordinal" : "-1 or 0");
  return ops->device_set(device);
}

NCORE_API ncore_status_t ncore_device_get(ncore_backend_t backend, int *out) {
  CORE_ENTER("ncore_device_get");
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  const core_backend_ops_t *ops = NULL;
  status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  return ops->device_get(out);
}

NCORE_API ncore_status_t ncore_stream_create(ncore_stream_t *out,
                                             ncore_backend_t backend) {
  CORE_ENTER("ncore_stream_create");
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  *out = NULL;
  const core_backend_ops_t *ops = NULL;
  status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  return ops->stream_create(out);
}

NCORE_API ncore_status_t ncore_stream_destroy(ncore_stream_t stream,
                                              ncore_backend_t backend) {
  CORE_ENTER("ncore_stream_destroy");
  const core_backend_ops_t *ops = NULL;
  ncore_status_t status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  if (stream == NULL) return NCORE_OK;
  status = core_check_stream(ops, stream);
  if (status != NCORE_OK) return status;
  return ops->stream_destroy(stream);
}

NCORE_API ncore_status_t ncore_stream_synchronize(ncore_stream_t stream,
                                                  ncore_backend_t backend) {
  CORE_ENTER("ncore_stream_synchronize");
  const core_backend_ops_t *ops = NULL;
  ncore_status_t status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  status = core_check_stream(ops, stream);
  if (status != NCORE_OK) return status;
  return ops->stream_synchronize(stream);
}

NCORE_API ncore_status_t ncore_memcpy(void *dst, const void *src, size_t bytes,
                                      ncore_memcpy_kind_t kind,
                                      ncore_stream_t stream,
                                      ncore_backend_t backend) {
  CORE_ENTER("ncore_memcpy");
  ncore_status_t status = core_check_buffer(dst, bytes, "dst");
  if (status == NCORE_OK) status = core_check_buffer(src, bytes, "src");
  if (status == NCORE_OK) status = core_check_span(dst, bytes, "dst");
  if (status == NCORE_OK) status = core_check_span(src, bytes, "src");
  if (status == NCORE_OK &&
      (kind < NCORE_MEMCPY_DEFAULT || kind > NCORE_MEMCPY_HOST_TO_HOST))
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "kind: %d is not a copy kind (0..4)", (int)kind);
  if (status != NCORE_OK) return status;
  const core_backend_ops_t *ops = NULL;
  status = core_backend_select(backend, &ops);
  if (status == NCORE_OK) status = core_check_stream(ops, stream);
  if (status != NCORE_OK) return status;
  if (bytes == 0) return NCORE_OK;
  return ops->memcpy_async(dst, src, bytes, kind, stream);
}

NCORE_API ncore_status_t ncore_memset(void *dst, int value, size_t bytes,
                                      ncore_stream_t stream,
                                      ncore_backend_t backend) {
  CORE_ENTER("ncore_memset");
  ncore_status_t status = core_check_buffer(dst, bytes, "dst");
  if (status == NCORE_OK) status = core_check_span(dst, bytes, "dst");
  if (status != NCORE_OK) return status;
  const core_backend_ops_t *ops = NULL;
  status = core_backend_select(backend, &ops);
  if (status == NCORE_OK) status = core_check_stream(ops, stream);
  if (status != NCORE_OK) return status;
  if (bytes == 0) return NCORE_OK;
  return ops->memset_async(dst, value, bytes, stream);
}
