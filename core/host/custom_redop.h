/* core/host — custom reduction operators: PreMulSum (custom_redop.c); the
 * collectives apply them (coll.c). */
#ifndef NCORE_CORE_HOST_CUSTOM_REDOP_H
#define NCORE_CORE_HOST_CUSTOM_REDOP_H

#include "../backend.h"

/* ---- custom ops (coll.c) ---- */
typedef struct host_premul {
  ncore_dtype_t dtype;
  ncore_scalar_residence_t residence;
  const void *scalar_ptr;
  unsigned char scalar[8];
} host_premul_t;

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_redop_create_pre_mul_sum(void *comm, const void *scalar,
                                             ncore_dtype_t dtype,
                                             ncore_scalar_residence_t residence,
                                             void **out);
void host_redop_destroy(void *comm, void *op);

#endif
