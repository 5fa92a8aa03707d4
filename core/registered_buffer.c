/* core — registered buffers (ncore/resources.h, ncclCommRegister). */
#include "resource_entry.h"
#include "validate.h"

NCORE_API ncore_status_t ncore_register_buffer(ncore_registered_buffer_t *out,
                                               ncore_comm_t comm, void *ptr,
                                               size_t size) {
  CORE_ENTER("ncore_register_buffer");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_resource_create_begin(out, comm, &c);
  if (status != NCORE_OK) return status;
  status = core_check_registration(ptr, size);
  core_resource_t fields = {.ptr = ptr, .size = size};
  if (status == NCORE_OK)
    status = c->ops->buffer_register(c->impl, ptr, size, &fields.impl.buffer,
                                     &fields.native);
  return core_resource_create_end(c, status, CORE_HANDLE_REGISTERED_BUFFER,
                                  &fields, out);
}

CORE_RESOURCE_QUERY(ncore_registered_buffer_size, ncore_registered_buffer_t,
                    buffer, CORE_HANDLE_REGISTERED_BUFFER, size_t, res->size)
CORE_RESOURCE_QUERY(ncore_registered_buffer_pointer, ncore_registered_buffer_t,
                    buffer, CORE_HANDLE_REGISTERED_BUFFER, void *, res->ptr)
CORE_RESOURCE_QUERY(ncore_registered_buffer_native_handle,
                    ncore_registered_buffer_t, buffer,
                    CORE_HANDLE_REGISTERED_BUFFER, uintptr_t, res->native)
CORE_RESOURCE_CLOSE_AND_IS_VALID(ncore_registered_buffer_close,
                                 ncore_registered_buffer_is_valid,
                                 ncore_registered_buffer_t, buffer,
                                 CORE_HANDLE_REGISTERED_BUFFER)
