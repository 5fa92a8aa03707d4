/* core — resolving framework buffers into (ptr, count, dtype, device):
 * ncore_buffer_resolve_dlpack and ncore_buffer_resolve_array_interface
 * (ncore/buffer.h), as nccl.core's resolve_tensor / resolve_array do. */
#include <stddef.h>
#include <stdint.h>

#include "buffer_dtype.h"
#include "dtype.h"
#include "error.h"
#include "versioned.h"

/* DLTensor's layout, unchanged since DLPack 0.5 (dlpack.h): mirrored here
 * because dlpack.h's DLTensor is an anonymous struct, while the public
 * header forward-declares `struct DLTensor`. */
struct DLTensor {
  void *data;
  struct {
    int32_t device_type;
    int32_t device_id;
  } device;
  int32_t ndim;
  struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
  } dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};

/* DLDeviceType values we accept. */
enum {
  DL_CPU = 1,
  DL_CUDA = 2,
  DL_CUDA_HOST = 3,
  DL_CUDA_MANAGED = 13
};

/* Checks the caller's output struct and starts a full-size local one. */
static ncore_status_t begin_resolve(ncore_buffer_desc_t *out,
                                    uint32_t *their_size,
                                    ncore_buffer_desc_t *desc) {
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  ncore_buffer_desc_t defaults = NCORE_BUFFER_DESC_INIT;
  *desc = defaults;
  return core_versioned_check_out(
      out, CORE_MIN_SIZE_BUFFER_DESC,
      sizeof(ncore_buffer_desc_t), "out", their_size);
}

/* Counts the elements of shape[0..ndim) (checked: not negative, no
 * overflow). shape may be NULL only when ndim is 0. */
static ncore_status_t count_elements(int ndim, const int64_t *shape,
                                     const char *argument, size_t *count) {
  if (ndim < 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: ndim %d is negative",
                      argument, ndim);
  if (ndim > 0 && shape == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: shape is NULL but ndim is %d", argument, ndim);
  size_t total = 1;
  int zero = 0;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: shape[%d] is %lld (negative)", argument, i,
                        (long long)shape[i]);
    if (shape[i] == 0) zero = 1;
  }
  if (zero) {
    *count = 0;
    return NCORE_OK;
  }
  for (int i = 0; i < ndim; i++) {
    if ((uint64_t)shape[i] > SIZE_MAX / total)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: the shape's element count overflows", argument);
    total *= (size_t)shape[i];
  }
  *count = total;
  return NCORE_OK;
}

/* A tensor of count elements of dtype must fit in the address space (no
 * object exceeds PTRDIFF_MAX bytes); this also bounds the strides'
 * arithmetic of check_contiguous, which multiplies up to count * unit. */
static ncore_status_t check_bytes(size_t count, ncore_dtype_t dtype,
                                  const char *argument) {
  if (count <= (size_t)PTRDIFF_MAX / core_dtype_size(dtype)) return NCORE_OK;
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: %zu elements of %zu bytes are more than the largest "
                    "object", argument, count, core_dtype_size(dtype));
}

/* C-contiguity: strides (in units of `unit`) row-major compact; dimensions
 * of extent 1 may have any stride; an empty tensor is always fine. */
static ncore_status_t check_contiguous(int ndim, const int64_t *shape,
                                       const int64_t *strides, int64_t unit,
                                       size_t count, const char *argument) {
  if (strides == NULL || count == 0) return NCORE_OK;
  int64_t expected = unit;
  for (int i = ndim - 1; i >= 0; i--) {
    if (shape[i] != 1 && strides[i] != expected)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "%s: not C-contiguous (strides[%d] is %lld, expected "
                        "%lld)", argument, i, (long long)strides[i],
                        (long long)expected);
    expected *= shape[i];
  }
  return NCORE_OK;
}

/* Names DLPack device types in messages. */
static const char *dl_device_name(int32_t type) {
  switch (type) {
    case 4: return "OpenCL";
    case 7: return "Vulkan";
    case 8: return "Metal";
    case 9: return "VPI";
    case 10: return "ROCm";
    case 11: return "ROCmHost";
    case 12: return "ExtDev";
    case 14: return "OneAPI";
    case 15: return "WebGPU";
    case 16: return "Hexagon";
    case 17: return "MAIA";
    case 18: return "Trn";
  }
  return "unknown";
}

NCORE_API ncore_status_t ncore_buffer_resolve_dlpack(
    ncore_buffer_desc_t *out, const struct DLTensor *tensor) {
  CORE_ENTER("ncore_buffer_resolve_dlpack");
  uint32_t their_size = 0;
  ncore_buffer_desc_t desc;
  ncore_status_t status = begin_resolve(out, &their_size, &desc);
  if (status != NCORE_OK) return status;
  if (tensor == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "tensor: must not be NULL");
  ncore_dtype_t dtype;
  status = core_dtype_from_dlpack(tensor->dtype.code, tensor->dtype.bits,
                                  tensor->dtype.lanes, "tensor", &dtype);
  size_t count = 0;
  if (status == NCORE_OK)
    status = count_elements(tensor->ndim, tensor->shape, "tensor", &count);
  if (status == NCORE_OK) status = check_bytes(count, dtype, "tensor");
  if (status == NCORE_OK)
    status = check_contiguous(tensor->ndim, tensor->shape, tensor->strides, 1,
                              count, "tensor");
  if (status != NCORE_OK) return status;
  switch (tensor->device.device_type) {
    case DL_CPU:
    case DL_CUDA_HOST: /* pinned host memory: a CPU pointer */
      desc.device_type = NCORE_DEVICE_CPU;
      desc.device_id = -1;
      break;
    case DL_CUDA:
    case DL_CUDA_MANAGED:
      desc.device_type = NCORE_DEVICE_CUDA;
      desc.device_id = tensor->device.device_id;
      break;
    default:
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "tensor: device type %d (%s) is not supported "
                        "(expected CPU, CUDA, CUDAHost or CUDAManaged)",
                        (int)tensor->device.device_type,
                        dl_device_name(tensor->device.device_type));
  }
  desc.ptr = (void *)((uintptr_t)tensor->data + (uintptr_t)tensor->byte_offset);
  desc.count = count;
  desc.dtype = (int32_t)dtype;
  core_versioned_write(out, their_size, &desc, sizeof desc);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_buffer_resolve_array_interface(
    ncore_buffer_desc_t *out, uintptr_t data, int ndim, const int64_t *shape,
    const int64_t *strides, const char *typestr, int device_id) {
  CORE_ENTER("ncore_buffer_resolve_array_interface");
  uint32_t their_size = 0;
  ncore_buffer_desc_t desc;
  ncore_status_t status = begin_resolve(out, &their_size, &desc);
  if (status != NCORE_OK) return status;
  ncore_dtype_t dtype;
  status = core_dtype_from_typestr(typestr, "typestr", &dtype);
  size_t count = 0;
  if (status == NCORE_OK) status = count_elements(ndim, shape, "shape", &count);
  if (status == NCORE_OK) status = check_bytes(count, dtype, "shape");
  if (status == NCORE_OK)
    status = check_contiguous(ndim, shape, strides,
                              (int64_t)core_dtype_size(dtype), count,
                              "strides");
  if (status == NCORE_OK && device_id < -1)
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "device_id: %d is invalid (expected -1 for host "
                        "memory or a CUDA device ordinal)", device_id);
  if (status != NCORE_OK) return status;
  desc.ptr = (void *)data;
  desc.count = count;
  desc.dtype = (int32_t)dtype;
  desc.device_type = device_id < 0 ? NCORE_DEVICE_CPU : NCORE_DEVICE_CUDA;
  desc.device_id = device_id;
  core_versioned_write(out, their_size, &desc, sizeof desc);
  return NCORE_OK;
}
