/* core/host — custom reduction operators: PreMulSum (custom_redop.c); the
 * collectives apply them (coll.c). */
#ifndef NCORE_CORE_HOST_CUSTOM_REDOP_H
#define NCORE_CORE_HOST_CUSTOM_REDOP_H

#include "../backend.h"

/* ---- custom ops (coll.c) ---- */
/* A PreMulSum operator: the host backend's core_backend_redop_t. */
typedef struct core_backend_redop {
  ncore_dtype_t dtype;
  ncore_scalar_residence_t residence;
  const void *scalar_ptr;
  unsigned char scalar[8];
} host_premul_t;

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_redop_create_pre_mul_sum(core_backend_comm_t *comm,
                                             const void *scalar,
                                             ncore_dtype_t dtype,
                                             ncore_scalar_residence_t residence,
                                             core_backend_redop_t **out);
void host_redop_destroy(core_backend_comm_t *comm, core_backend_redop_t *op);

#endif
