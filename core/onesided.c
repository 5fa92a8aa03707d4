/* core — one-sided calls (ncore/onesided.h): signal, wait_signal (with its
 * array of versioned descriptors) and put_signal (with its window bounds). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_call.h"
#include "dtype.h"
#include "error.h"
#include "group.h"
#include "resource_object.h"
#include "validate.h"
#include "versioned.h"

/* signal_index, context and flags are reserved and must be 0 (nccl.core). */
static ncore_status_t check_reserved(int signal_index, int context,
                                     uint32_t flags) {
  ncore_status_t status = core_check_zero(signal_index, "signal_index");
  if (status == NCORE_OK) status = core_check_zero(context, "context");
  if (status == NCORE_OK) status = core_check_zero((long long)flags, "flags");
  return status;
}

NCORE_API ncore_status_t ncore_signal(ncore_comm_t comm, int peer,
                                      int signal_index, int context,
                                      uint32_t flags, ncore_stream_t stream) {
  CORE_ENTER("ncore_signal");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  status = core_check_range(peer, c->info.nranks, "peer");
  if (status == NCORE_OK) status = check_reserved(signal_index, context, flags);
  if (status == NCORE_OK)
    status = core_check_comm_stream(c->ops, c->impl, stream);
  if (status == NCORE_OK)
    status = core_group_join(c->ops, (core_object_t *[]){&c->header}, 1);
  if (status == NCORE_OK) status = c->ops->signal(c->impl, peer, stream);
  return core_comm_finish(c, status);
}

/* Reads and checks descriptor i (stride bytes apart) into *wait. */
static ncore_status_t read_wait_desc(const ncore_wait_signal_desc_t *descs,
                                     size_t i, uint32_t stride, int nranks,
                                     core_wait_t *wait) {
  const void *raw = (const unsigned char *)descs + i * stride;
  char name[48];
  snprintf(name, sizeof name, "descs[%zu]", i);
  uint32_t size;
  memcpy(&size, raw, sizeof size); /* stride may leave raw unaligned */
  if (size != stride)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: struct_size %u differs from descs[0].struct_size %u",
                      name, size, stride);
  ncore_wait_signal_desc_t desc = NCORE_WAIT_SIGNAL_DESC_INIT;
  ncore_status_t status = core_versioned_read(
      &desc, sizeof desc, raw, CORE_MIN_SIZE_WAIT_SIGNAL_DESC, name);
  if (status != NCORE_OK) return status;
  if (desc.peer < 0 || desc.peer >= nranks)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s.peer: %d is out of range [0, %d)", name,
                      (int)desc.peer, nranks);
  if (desc.op_count < 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s.op_count: must be >= 1 (got 0)", name);
  if (desc.signal_index != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s.signal_index: must be 0 (got %d)", name,
                      (int)desc.signal_index);
  if (desc.context != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s.context: must be 0 (got %d)", name,
                      (int)desc.context);
  wait->peer = desc.peer;
  wait->op_count = desc.op_count;
  return NCORE_OK;
}

/* Checks every descriptor; *out receives a malloc'd array for the backend. */
static ncore_status_t read_wait_descs(const ncore_wait_signal_desc_t *descs,
                                      size_t ndescs, int nranks,
                                      core_wait_t **out) {
  if (descs == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "descs: must not be NULL");
  if (ndescs == 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "ndescs: must be >= 1");
  /* The caller's element size is descs[0].struct_size: an older or newer
   * binding lays its array out with its own struct size. */
  uint32_t stride = descs[0].struct_size;
  size_t min_size = CORE_MIN_SIZE_WAIT_SIGNAL_DESC;
  if (stride < min_size)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "descs[0]: struct_size %u is invalid (expected %zu..%zu)",
                      stride, min_size, sizeof(ncore_wait_signal_desc_t));
  if (ndescs > SIZE_MAX / stride || ndescs > SIZE_MAX / sizeof(core_wait_t))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "ndescs: %zu descriptors overflow the address space",
                      ndescs);
  core_wait_t *waits = malloc(ndescs * sizeof *waits);
  if (waits == NULL)
    return core_error(NCORE_ERR_SYSTEM, "out of memory for %zu descriptors",
                      ndescs);
  for (size_t i = 0; i < ndescs; i++) {
    ncore_status_t status = read_wait_desc(descs, i, stride, nranks, &waits[i]);
    if (status != NCORE_OK) {
      free(waits);
      return status;
    }
  }
  *out = waits;
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_wait_signal(ncore_comm_t comm,
                                           const ncore_wait_signal_desc_t *descs,
                                           size_t ndescs,
                                           ncore_stream_t stream) {
  CORE_ENTER("ncore_wait_signal");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  core_wait_t *waits = NULL;
  status = read_wait_descs(descs, ndescs, c->info.nranks, &waits);
  if (status == NCORE_OK)
    status = core_check_comm_stream(c->ops, c->impl, stream);
  if (status == NCORE_OK)
    status = core_group_join(c->ops, (core_object_t *[]){&c->header}, 1);
  if (status == NCORE_OK)
    status = c->ops->wait_signal(c->impl, waits, ndescs, stream);
  free(waits);
  return core_comm_finish(c, status);
}

/* The put [byte_offset, byte_offset + bytes) must fit in peer's part of
 * window; computed without overflow. */
static ncore_status_t check_put_bounds(const core_resource_t *window, int peer,
                                       size_t count, size_t offset,
                                       ncore_dtype_t dtype, size_t *bytes,
                                       size_t *byte_offset) {
  size_t size = core_dtype_size(dtype);
  size_t part = window->comm->ops->window_peer_size(window->impl.window, peer);
  if (count > SIZE_MAX / size || offset > SIZE_MAX / size)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "peer_window: put of %zu elements at element offset %zu "
                      "overflows the address space", count, offset);
  *bytes = count * size;
  *byte_offset = offset * size;
  if (*byte_offset > part || *bytes > part - *byte_offset)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "peer_window: put of %zu bytes at byte offset %zu "
                      "exceeds peer %d's window of %zu bytes", *bytes,
                      *byte_offset, peer, part);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_put_signal(ncore_comm_t comm,
                                          const void *local_buf, size_t count,
                                          ncore_dtype_t dtype, int peer,
                                          ncore_window_t peer_window,
                                          size_t peer_window_offset,
                                          int signal_index, int context,
                                          uint32_t flags,
                                          ncore_stream_t stream) {
  CORE_ENTER("ncore_put_signal");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  core_resource_t *window = NULL;
  size_t bytes = 0, byte_offset = 0;
  status = core_check_dtype((int)dtype, "dtype");
  if (status == NCORE_OK)
    status = core_check_buffer(local_buf, count, "local_buf");
  if (status == NCORE_OK)
    status = core_check_range(peer, c->info.nranks, "peer");
  if (status == NCORE_OK) status = check_reserved(signal_index, context, flags);
  if (status == NCORE_OK)
    status = core_resource_acquire(peer_window, CORE_HANDLE_WINDOW,
                                   "peer_window", &window);
  if (status == NCORE_OK && window->comm != c)
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "peer_window: the window belongs to another "
                        "communicator");
  if (status == NCORE_OK)
    status = check_put_bounds(window, peer, count, peer_window_offset, dtype,
                              &bytes, &byte_offset);
  if (status == NCORE_OK)
    status = core_check_comm_stream(c->ops, c->impl, stream);
  if (status == NCORE_OK)
    status = core_group_join(c->ops,
                             (core_object_t *[]){&c->header, &window->header}, 2);
  if (status == NCORE_OK)
    status = c->ops->put_signal(c->impl, local_buf, bytes, peer, window->impl.window,
                                byte_offset, stream);
  core_resource_release(window);
  return core_comm_finish(c, status);
}
