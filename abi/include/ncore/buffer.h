/* ncore — data-type tables and resolution of framework buffers (DLPack,
 * CUDA Array Interface) into (ptr, count, dtype, device), as nccl.core's
 * resolve_tensor / resolve_array do. Bindings call these so that every
 * language accepts and rejects the same buffers with the same messages. */
#ifndef NCORE_BUFFER_H
#define NCORE_BUFFER_H

#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* DLPack's DLTensor (dlpack.h, any version since 0.5: the layout of DLTensor
 * has not changed). Include <dlpack/dlpack.h> to build one. */
struct DLTensor;

/* A resolved buffer. Versioned: the library fills as many fields as the
 * caller's struct_size holds. */
typedef struct ncore_buffer_desc {
  uint32_t struct_size;
  /* First element (data + byte_offset). */
  void *ptr;
  /* Number of elements. */
  size_t count;
  /* ncore_dtype_t of the elements. */
  int32_t dtype;
  /* ncore_device_type_t. */
  int32_t device_type;
  /* CUDA device ordinal, or -1 for host memory. */
  int32_t device_id;
} ncore_buffer_desc_t;

#define NCORE_BUFFER_DESC_INIT                                      \
  {                                                                 \
    (uint32_t)sizeof(ncore_buffer_desc_t), /* struct_size */        \
    NULL,                                  /* ptr */                \
    0,                                     /* count */              \
    0,                                     /* dtype */              \
    NCORE_DEVICE_CPU,                      /* device_type */        \
    -1                                     /* device_id */          \
  }

/* Size in bytes of one element of dtype.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, unknown dtype). */
NCORE_API ncore_status_t ncore_dtype_size(ncore_dtype_t dtype, size_t *out);

/* Static lower-case name of dtype ("float32", "bfloat16", "float8_e4m3", ...),
 * the names nccl.core uses. Returns as ncore_dtype_size. */
NCORE_API ncore_status_t ncore_dtype_name(ncore_dtype_t dtype,
                                          const char **out);

/* Maps a DLPack dtype (DLDataTypeCode code, bits, lanes) to an ncore dtype.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, or no equivalent:
 * bool, complex, lanes != 1, unusual widths; the message names the type). */
NCORE_API ncore_status_t ncore_dtype_from_dlpack(uint8_t code, uint8_t bits,
                                                 uint16_t lanes,
                                                 ncore_dtype_t *out);

/* Maps a NumPy array-interface type string ("<f4", "|u1", "<f2", "<V2" is
 * rejected, ...) to an ncore dtype. bfloat16 and the float8s have no standard
 * typestr and are not recognised here.
 * Returns as ncore_dtype_from_dlpack. */
NCORE_API ncore_status_t ncore_dtype_from_typestr(const char *typestr,
                                                  ncore_dtype_t *out);

/* Resolves a DLPack tensor. The tensor must be C-contiguous (strides NULL or
 * row-major compact; dimensions of size 1 may have any stride), have an
 * element type with an ncore equivalent, and live on the CPU (kDLCPU,
 * kDLCUDAHost) or a CUDA device (kDLCUDA, kDLCUDAManaged).
 * out: caller-owned, struct_size set. tensor: borrowed.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL, bad struct_size,
 * unsupported dtype, non-contiguous layout, negative shape, unsupported
 * device type; the message says which). */
NCORE_API ncore_status_t ncore_buffer_resolve_dlpack(
    ncore_buffer_desc_t *out, const struct DLTensor *tensor);

/* Resolves a buffer described by the CUDA Array Interface (or NumPy's array
 * interface when device_id is -1): data pointer, shape, optional strides in
 * bytes (NULL = C-contiguous), typestr.
 * shape: ndim extents, borrowed; may be NULL when ndim is 0 (a scalar).
 * Returns as ncore_buffer_resolve_dlpack. */
NCORE_API ncore_status_t ncore_buffer_resolve_array_interface(
    ncore_buffer_desc_t *out, uintptr_t data, int ndim, const int64_t *shape,
    const int64_t *strides, const char *typestr, int device_id);

/* Checks that a resolved buffer can be used with comm: on the host backend
 * it must be host memory; on NCCL, memory of the communicator's device.
 * argument_name: used in the message ("sendbuf: ..."); may be NULL.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (desc NULL, wrong device: the
 * message names both devices); NCORE_ERR_CLOSED. */
NCORE_API ncore_status_t ncore_comm_check_buffer(ncore_comm_t comm,
                                                 const ncore_buffer_desc_t *desc,
                                                 const char *argument_name);

NCORE_END_DECLS

#endif /* NCORE_BUFFER_H */
