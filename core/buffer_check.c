/* core — ncore_comm_check_buffer (ncore/buffer.h): does a resolved buffer
 * live where the communicator's backend needs it? Host backend: host
 * memory. NCCL: memory of the communicator's CUDA device. */
#include <stdio.h>

#include "comm_call.h"
#include "dtype.h"
#include "error.h"
#include "versioned.h"

/* "cpu" or "cuda:N", for messages. */
static const char *describe_device(int device_type, int device_id, char *text,
                                   size_t size) {
  if (device_type == NCORE_DEVICE_CPU)
    snprintf(text, size, "cpu");
  else
    snprintf(text, size, "cuda:%d", device_id);
  return text;
}

NCORE_API ncore_status_t ncore_comm_check_buffer(ncore_comm_t comm,
                                                 const ncore_buffer_desc_t *desc,
                                                 const char *argument_name) {
  CORE_ENTER("ncore_comm_check_buffer");
  const char *name = argument_name != NULL ? argument_name : "buffer";
  if (desc == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "desc: must not be NULL");
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  ncore_status_t status =
      core_versioned_read(&d, sizeof d, desc, CORE_MIN_SIZE_BUFFER_DESC, "desc");
  if (status != NCORE_OK) return status;
  if (d.device_type != NCORE_DEVICE_CPU && d.device_type != NCORE_DEVICE_CUDA)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: device_type %d is not a device type (CPU 1, CUDA 2)",
                      name, (int)d.device_type);
  if (!core_dtype_is_valid(d.dtype))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: dtype %d is not a data type", name, (int)d.dtype);
  core_comm_object_t *c = NULL;
  status = core_comm_acquire(comm, CORE_COMM_QUERY, &c);
  if (status != NCORE_OK) return status;
  int want_type = (int)c->ops->caps.memory;
  int want_id = want_type == NCORE_DEVICE_CPU ? -1 : c->info.device;
  int id = d.device_type == NCORE_DEVICE_CPU ? -1 : d.device_id;
  if (d.device_type != want_type || id != want_id) {
    char have[32], want[32];
    status = core_error(
        NCORE_ERR_INVALID_ARGUMENT,
        "%s: buffer is on %s but the communicator is on %s", name,
        describe_device(d.device_type, id, have, sizeof have),
        describe_device(want_type, want_id, want, sizeof want));
  }
  core_comm_release(c);
  return status;
}
