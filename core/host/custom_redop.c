/* core/host — PreMulSum operators (custom_redop.h). */
#include "custom_redop.h"

#include <stdlib.h>
#include <string.h>

#include "../dtype.h"
#include "../error.h"

/* PreMulSum: a host-immediate scalar is copied now; a device-resident one is
 * read through its pointer each time a collective runs. */
ncore_status_t host_redop_create_pre_mul_sum(core_backend_comm_t *comm,
                                             const void *scalar,
                                             ncore_dtype_t dtype,
                                             ncore_scalar_residence_t residence,
                                             core_backend_redop_t **out) {
  (void)comm;
  host_premul_t *pm = calloc(1, sizeof *pm);
  if (!pm) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  pm->dtype = dtype;
  pm->residence = residence;
  pm->scalar_ptr = scalar;
  if (residence == NCORE_SCALAR_HOST_IMMEDIATE)
    memcpy(pm->scalar, scalar, core_dtype_size(dtype));
  *out = pm;
  return NCORE_OK;
}

void host_redop_destroy(core_backend_comm_t *comm, core_backend_redop_t *op) {
  (void)comm;
  free(op);
}
