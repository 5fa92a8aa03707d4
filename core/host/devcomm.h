/* core/host — device communicators describe the host team (devcomm.c). */
#ifndef NCORE_CORE_HOST_DEVCOMM_H
#define NCORE_CORE_HOST_DEVCOMM_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_dev_comm_create(void *comm,
                                    const ncore_dev_comm_requirements_t *req,
                                    void **out);
void host_dev_comm_destroy(void *comm, void *dev_comm);
void *host_dev_comm_pointer(void *dev_comm);
void host_dev_comm_info(void *dev_comm, ncore_dev_comm_info_t *out);

#endif
