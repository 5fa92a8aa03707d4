/* core — registered buffers (ncore/resources.h, ncclCommRegister). */
#include "comm_object.h"
#include "error.h"
#include "validate.h"

NCORE_API ncore_status_t ncore_register_buffer(ncore_registered_buffer_t *out,
                                               ncore_comm_t comm, void *ptr,
                                               size_t size) {
  CORE_ENTER("ncore_register_buffer");
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  *out = NCORE_NULL_HANDLE;
  core_comm_object_t *c = NULL;
  status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  status = core_check_not_null(ptr, "ptr");
  if (status == NCORE_OK) status = core_check_size(size, "size");
  if (status == NCORE_OK) status = core_check_span(ptr, size, "size");
  core_resource_t fields = {0};
  if (status == NCORE_OK)
    status = c->ops->buffer_register(c->impl, ptr, size, &fields.impl,
                                     &fields.native);
  if (status == NCORE_OK) {
    fields.ptr = ptr;
    fields.size = size;
    status = core_resource_publish(c, CORE_HANDLE_REGISTERED_BUFFER, &fields,
                                   out);
  }
  core_comm_release(c);
  return status;
}

/* Acquires buffer for a query with a non-NULL out. */
static ncore_status_t begin_query(ncore_registered_buffer_t buffer,
                                  const void *out, core_resource_t **res) {
  ncore_status_t status = core_check_not_null(out, "out");
  if (status != NCORE_OK) return status;
  return core_resource_acquire(buffer, CORE_HANDLE_REGISTERED_BUFFER, "buffer",
                               res);
}

NCORE_API ncore_status_t ncore_registered_buffer_size(
    ncore_registered_buffer_t buffer, size_t *out) {
  CORE_ENTER("ncore_registered_buffer_size");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(buffer, out, &res);
  if (status != NCORE_OK) return status;
  *out = res->size;
  core_resource_release(res);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_registered_buffer_pointer(
    ncore_registered_buffer_t buffer, void **out) {
  CORE_ENTER("ncore_registered_buffer_pointer");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(buffer, out, &res);
  if (status != NCORE_OK) return status;
  *out = res->ptr;
  core_resource_release(res);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_registered_buffer_native_handle(
    ncore_registered_buffer_t buffer, uintptr_t *out) {
  CORE_ENTER("ncore_registered_buffer_native_handle");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(buffer, out, &res);
  if (status != NCORE_OK) return status;
  *out = res->native;
  core_resource_release(res);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_registered_buffer_close(
    ncore_registered_buffer_t buffer) {
  CORE_ENTER("ncore_registered_buffer_close");
  return core_resource_close(buffer, CORE_HANDLE_REGISTERED_BUFFER, "buffer");
}

NCORE_API int ncore_registered_buffer_is_valid(
    ncore_registered_buffer_t buffer) {
  CORE_ENTER("ncore_registered_buffer_is_valid");
  return core_resource_is_valid(buffer, CORE_HANDLE_REGISTERED_BUFFER);
}
