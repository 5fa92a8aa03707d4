/* core/nccl — device communicators (ncclDevCommCreate / ncclDevCommDestroy).
 * The ncclDevComm lives in host memory owned here (DevCommResource.ptr is
 * its address, as nccl.core passes it by value to kernels). */
#ifndef NCORE_CORE_NCCL_DEVCOMM_H
#define NCORE_CORE_NCCL_DEVCOMM_H

#include "comm.h"

/* Host storage reserved for one ncclDevComm: 240 bytes in 2.30.7 (every
 * layout's devcomm_size fits; nccl_layouts.h), with room for a newer NCCL
 * that grows it at its end. */
#define NCORE_DEVCOMM_STORAGE 1024

/* One device communicator: the NCCL backend's core_backend_dev_comm_t. */
typedef struct core_backend_dev_comm {
  nccl_comm_t *comm;
  int lsa_multimem;
  _Alignas(16) unsigned char storage[NCORE_DEVCOMM_STORAGE];
} nccl_devcomm_t;

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_dev_comm_create(core_backend_comm_t *comm,
                                    const ncore_dev_comm_requirements_t *req,
                                    struct core_dev_comm_asks *asks,
                                    core_backend_dev_comm_t **out);
void nccl_dev_comm_destroy(core_backend_comm_t *comm,
                           core_backend_dev_comm_t *dev_comm);
void *nccl_dev_comm_pointer(core_backend_dev_comm_t *dev_comm);
void nccl_dev_comm_info(core_backend_dev_comm_t *dev_comm,
                        ncore_dev_comm_info_t *out);

#endif
