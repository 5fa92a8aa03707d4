/* core/nccl — devices and contexts (device.h). */
#include "device.h"

#include <stdint.h>

#include "../error.h"
#include "wait.h"

ncore_status_t nccl_device_enter(int device, int *resolved, CUcontext *ctx) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  CUcontext cur = NULL;
  status = cu_check(cu_fn.CtxGetCurrent(&cur), "cuCtxGetCurrent");
  if (status != NCORE_OK) return status;
  if (device < 0) {
    if (cur != NULL) {
      CUdevice d;
      status = cu_check(cu_fn.CtxGetDevice(&d), "cuCtxGetDevice");
      if (status != NCORE_OK) return status;
      if (resolved) *resolved = (int)d;
      if (ctx) *ctx = cur;
      return NCORE_OK;
    }
    device = 0; /* the runtime's default device */
  }
  int count = 0;
  status = cu_check(cu_fn.DeviceGetCount(&count), "cuDeviceGetCount");
  if (status != NCORE_OK) return status;
  if (device >= count)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "device: %d is out of range [0, %d)", device, count);
  CUdevice dev;
  status = cu_check(cu_fn.DeviceGet(&dev, device), "cuDeviceGet");
  if (status != NCORE_OK) return status;
  /* Retained once per use and never released: the primary context lives
   * as long as the process, as with the runtime. */
  CUcontext primary = NULL;
  status = cu_check(cu_fn.DevicePrimaryCtxRetain(&primary, dev),
                    "cuDevicePrimaryCtxRetain");
  if (status != NCORE_OK) return status;
  if (primary != cur) {
    status = cu_check(cu_fn.CtxSetCurrent(primary), "cuCtxSetCurrent");
    if (status != NCORE_OK) return status;
  }
  if (resolved) *resolved = device;
  if (ctx) *ctx = primary;
  return NCORE_OK;
}

ncore_status_t nccl_comm_enter(nccl_comm_t *c) {
  ncore_status_t status = nccl_comm_check_live(c);
  if (status != NCORE_OK) return status;
  CUcontext cur = NULL;
  status = cu_check(cu_fn.CtxGetCurrent(&cur), "cuCtxGetCurrent");
  if (status == NCORE_OK && cur != c->ctx)
    status = cu_check(cu_fn.CtxSetCurrent(c->ctx), "cuCtxSetCurrent");
  return status;
}

ncore_status_t nccl_context_ensure(void) {
  return nccl_device_enter(-1, NULL, NULL);
}

ncore_status_t nccl_device_count(int *out) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  return cu_check(cu_fn.DeviceGetCount(out), "cuDeviceGetCount");
}

ncore_status_t nccl_device_set(int device) {
  return nccl_device_enter(device, NULL, NULL);
}

ncore_status_t nccl_device_get(int *out) {
  return nccl_device_enter(-1, out, NULL);
}

int nccl_is_device_pointer(const void *p) {
  /* Host memory (pageable or pinned) and unknown pointers read by a kernel
   * on the device would fault or be slow: those go to the copy engine. */
  CUmemorytype type = 0;
  return cu_fn.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_DEVICE;
}
