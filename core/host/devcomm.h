/* core/host — device communicators describe the host team (devcomm.c). */
#ifndef NCORE_CORE_HOST_DEVCOMM_H
#define NCORE_CORE_HOST_DEVCOMM_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_dev_comm_create(core_backend_comm_t *comm,
                                    const ncore_dev_comm_requirements_t *req,
                                    struct core_dev_comm_asks *asks,
                                    core_backend_dev_comm_t **out);
void host_dev_comm_destroy(core_backend_comm_t *comm,
                           core_backend_dev_comm_t *dev_comm);
void *host_dev_comm_pointer(core_backend_dev_comm_t *dev_comm);
void host_dev_comm_info(core_backend_dev_comm_t *dev_comm,
                        ncore_dev_comm_info_t *out);

#endif
