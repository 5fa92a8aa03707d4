/* Unit tests: DLPack and array-interface resolution into
 * (ptr, count, dtype, device), and ncore_comm_check_buffer. DLTensors are
 * built by hand with <dlpack/dlpack.h> (strides there are in elements;
 * array-interface strides are in bytes). */
#include <dlpack/dlpack.h>

#include "harness.h"
#include "unit_comm.h"

/* dlpack.h declares DLTensor as an anonymous struct (typedef struct {...}
 * DLTensor), so it is not the `struct DLTensor` that ncore/buffer.h
 * forward-declares: C callers must cast. (Reported to the lead.) */
#define AS_DL(t) ((const struct DLTensor *)(const void *)(t))

static float storage[64];

/* A float32 CPU tensor over storage with the given shape and strides. */
static DLTensor make_tensor(int ndim, int64_t *shape, int64_t *strides) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = storage;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = 0;
  return t;
}

TEST(dlpack_contiguous_resolves) {
  int64_t shape[2] = {3, 4};
  DLTensor t = make_tensor(2, shape, NULL);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_PTR_EQ(d.ptr, storage);
  CHECK_EQ(d.count, 12);
  CHECK_EQ(d.dtype, NCORE_FLOAT32);
  CHECK_EQ(d.device_type, NCORE_DEVICE_CPU);
  CHECK_EQ(d.device_id, -1);
  /* Explicit compact row-major strides are the same thing. */
  int64_t strides[2] = {4, 1};
  t.strides = strides;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_EQ(d.count, 12);
}

TEST(dlpack_strided_rejected) {
  int64_t shape[2] = {3, 4};
  int64_t strides[2] = {8, 1}; /* every other row */
  DLTensor t = make_tensor(2, shape, strides);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_buffer_resolve_dlpack: tensor");
  CHECK_MESSAGE_CONTAINS("contiguous");
  int64_t transposed[2] = {1, 3}; /* column-major */
  t.strides = transposed;
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("contiguous");
}

TEST(dlpack_size_one_dims_may_have_any_stride) {
  int64_t shape[3] = {1, 5, 1};
  int64_t strides[3] = {999, 1, 77};
  DLTensor t = make_tensor(3, shape, strides);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_EQ(d.count, 5);
}

TEST(dlpack_scalar_and_empty) {
  DLTensor t = make_tensor(0, NULL, NULL);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_EQ(d.count, 1);
  int64_t shape[2] = {0, 4};
  t = make_tensor(2, shape, NULL);
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_EQ(d.count, 0);
  int64_t negative[1] = {-2};
  t = make_tensor(1, negative, NULL);
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("negative");
}

TEST(dlpack_unsupported_dtypes_rejected_with_message) {
  int64_t shape[1] = {4};
  DLTensor t = make_tensor(1, shape, NULL);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  t.dtype.code = 6; /* kDLBool (DLPack 1.0) */
  t.dtype.bits = 8;
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("bool");
  t.dtype.code = kDLComplex;
  t.dtype.bits = 64;
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("complex");
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 2;
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("lanes");
}

TEST(dlpack_byte_offset_moves_pointer) {
  int64_t shape[1] = {6};
  DLTensor t = make_tensor(1, shape, NULL);
  t.byte_offset = 8;
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_PTR_EQ(d.ptr, (char *)storage + 8);
  CHECK_EQ(d.count, 6);
}

TEST(dlpack_devices) {
  int64_t shape[1] = {4};
  DLTensor t = make_tensor(1, shape, NULL);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  t.device.device_type = kDLCUDA;
  t.device.device_id = 3;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_EQ(d.device_type, NCORE_DEVICE_CUDA);
  CHECK_EQ(d.device_id, 3);
  t.device.device_type = kDLCUDAManaged;
  t.device.device_id = 1;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_EQ(d.device_type, NCORE_DEVICE_CUDA);
  CHECK_EQ(d.device_id, 1);
  t.device.device_type = kDLCUDAHost;
  t.device.device_id = 0;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_EQ(d.device_type, NCORE_DEVICE_CPU);
  CHECK_EQ(d.device_id, -1);
  t.device.device_type = kDLCPU;
  CHECK_OK(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)));
  CHECK_EQ(d.device_type, NCORE_DEVICE_CPU);
  CHECK_EQ(d.device_id, -1);
  t.device.device_type = kDLROCM;
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("device");
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("tensor");
  CHECK_STATUS(ncore_buffer_resolve_dlpack(NULL, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
}

TEST(array_interface_resolves) {
  int64_t shape[2] = {2, 8};
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  CHECK_OK(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, shape,
                                                NULL, "<f4", -1));
  CHECK_PTR_EQ(d.ptr, storage);
  CHECK_EQ(d.count, 16);
  CHECK_EQ(d.dtype, NCORE_FLOAT32);
  CHECK_EQ(d.device_type, NCORE_DEVICE_CPU);
  CHECK_EQ(d.device_id, -1);
  int64_t bytes_strides[2] = {32, 4}; /* compact, in bytes */
  CHECK_OK(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, shape,
                                                bytes_strides, "<f4", 0));
  CHECK_EQ(d.device_type, NCORE_DEVICE_CUDA);
  CHECK_EQ(d.device_id, 0);
  CHECK_OK(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, shape,
                                                NULL, "|u1", -1));
  CHECK_EQ(d.dtype, NCORE_UINT8);
  CHECK_OK(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 0, NULL,
                                                NULL, "<f8", -1));
  CHECK_EQ(d.count, 1);
  CHECK_EQ(d.dtype, NCORE_FLOAT64);
}

TEST(array_interface_rejections) {
  int64_t shape[2] = {2, 8};
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  int64_t strided[2] = {64, 4};
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, shape,
                                                    strided, "<f4", -1),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("contiguous");
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, shape,
                                                    NULL, "<V2", -1),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("typestr");
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, shape,
                                                    NULL, "|b1", -1),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, shape,
                                                    NULL, "<c8", -1),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, NULL,
                                                    NULL, "<f4", -1),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("shape");
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, -1, shape,
                                                    NULL, "<f4", -1),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, shape,
                                                    NULL, "<f4", -7),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("device_id");
  int64_t size_one[2] = {1, 8};
  int64_t odd[2] = {12345, 4};
  CHECK_OK(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, size_one,
                                                odd, "<f4", -1));
  CHECK_EQ(d.count, 8);
}

TEST(check_buffer_device_must_match_comm) {
  UNIT_COMM(comm);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  d.ptr = storage;
  d.count = 4;
  d.dtype = NCORE_FLOAT32;
  if (harness_is_host()) {
    CHECK_OK(ncore_comm_check_buffer(comm, &d, "sendbuf"));
    d.device_type = NCORE_DEVICE_CUDA;
    d.device_id = 0;
  } else {
    /* Host memory is the wrong device for an NCCL communicator. */
    d.device_type = NCORE_DEVICE_CPU;
    d.device_id = -1;
  }
  CHECK_STATUS(ncore_comm_check_buffer(comm, &d, "sendbuf"), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("ncore_comm_check_buffer: sendbuf");
  CHECK_STATUS(ncore_comm_check_buffer(comm, &d, NULL), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(ncore_comm_check_buffer(comm, NULL, "x"), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_OK(ncore_comm_destroy(comm));
  CHECK_STATUS(ncore_comm_check_buffer(comm, &d, "x"), NCORE_ERR_CLOSED);
}

/* A shape whose bytes exceed any object is rejected; computing its strides
 * must not overflow (signed overflow under UBSan). */
TEST(dlpack_shape_beyond_the_address_space_rejected) {
  int64_t shape[2] = {INT64_C(1) << 62, 2};
  int64_t strides[2] = {2, 1};
  DLTensor t = make_tensor(2, shape, strides);
  ncore_buffer_desc_t d = NCORE_BUFFER_DESC_INIT;
  CHECK_STATUS(ncore_buffer_resolve_dlpack(&d, AS_DL(&t)), NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("tensor: ");
  CHECK_MESSAGE_CONTAINS("more than the largest object");
  int64_t ai_shape[2] = {INT64_C(1) << 61, 4};
  int64_t ai_strides[2] = {16, 4};
  CHECK_STATUS(ncore_buffer_resolve_array_interface(&d, (uintptr_t)storage, 2, ai_shape,
                                                    ai_strides, "<f4", -1),
               NCORE_ERR_INVALID_ARGUMENT);
  CHECK_MESSAGE_CONTAINS("shape: ");
}

HARNESS_MAIN
