/* ncore — communicator-owned resources: registered buffers and custom
 * reduction operators (nccl.core's RegisteredBufferHandle and CustomRedOp).
 *
 * Every resource shares one lifecycle (nccl.core CommResource): it is released
 * by its close function, or automatically when its communicator is destroyed
 * or aborted. close is idempotent; afterwards every call on the handle answers
 * NCORE_ERR_CLOSED, and is_valid answers 0. */
#ifndef NCORE_RESOURCES_H
#define NCORE_RESOURCES_H

#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* ---- registered buffers (ncclCommRegister) ---- */

/* Registers [ptr, ptr + size) with the communicator for zero-copy transfers.
 * Local. The memory stays owned by the caller and must outlive the
 * registration. On the host backend it is consent, as on NCCL: the
 * communicator's ranks of other processes may map the pages of the range
 * that lie in an ncore_mem_alloc allocation, read-only, while it stays
 * registered, and receive what is sent from there with one copy. Large
 * messages from memory not registered take two copies (through shared
 * memory), and no peer maps any of it.
 * out: receives the handle. ptr: not NULL. size: > 0, at most PTRDIFF_MAX.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out or ptr NULL, size 0 or
 * too large, a range past the end of the address space); NCORE_ERR_CLOSED;
 * NCORE_ERR_INVALID_USAGE, NCORE_ERR_TIMEOUT, NCORE_ERR_REMOTE (comm not
 * fit for a communicating call: ncore/comm.h); NCORE_ERR_SYSTEM;
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_register_buffer(ncore_registered_buffer_t *out,
                                               ncore_comm_t comm, void *ptr,
                                               size_t size);

/* Size of the registered range in bytes.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, wrong handle type);
 * NCORE_ERR_CLOSED. */
NCORE_API ncore_status_t ncore_registered_buffer_size(
    ncore_registered_buffer_t buffer, size_t *out);

/* Start of the registered range, as given to ncore_register_buffer.
 * Returns as ncore_registered_buffer_size. */
NCORE_API ncore_status_t ncore_registered_buffer_pointer(
    ncore_registered_buffer_t buffer, void **out);

/* The backend's own registration handle (NCCL: the void* from
 * ncclCommRegister; host: a non-zero token), for the `handle` property.
 * Returns as ncore_registered_buffer_size. */
NCORE_API ncore_status_t ncore_registered_buffer_native_handle(
    ncore_registered_buffer_t buffer, uintptr_t *out);

/* Deregisters (ncclCommDeregister). Idempotent: NCORE_OK on a handle that is
 * already closed. Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL or not a
 * registered-buffer handle). */
NCORE_API ncore_status_t ncore_registered_buffer_close(
    ncore_registered_buffer_t buffer);

/* 1 if the handle is open, else 0. Cannot fail. */
NCORE_API int ncore_registered_buffer_is_valid(ncore_registered_buffer_t buffer);

/* ---- custom reduction operators (ncclRedOpCreatePreMulSum) ---- */

/* Where the PreMulSum scalar lives (ncclScalarResidence_t values). */
typedef enum ncore_scalar_residence {
  /* The scalar is in device-accessible memory (host backend: any memory) and
   * is read when each collective using the operator runs. It must stay
   * valid while the operator is open. */
  NCORE_SCALAR_DEVICE = 0,
  /* The scalar is in host memory and is copied before the create call
   * returns. */
  NCORE_SCALAR_HOST_IMMEDIATE = 1
} ncore_scalar_residence_t;

/* Creates a PreMulSum operator: output = scalar * sum(inputs), for use with
 * this communicator and dtype only.
 * out: receives the operator. scalar: one element of dtype, not NULL.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out or scalar NULL, unknown
 * dtype or residence); NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE,
 * NCORE_ERR_TIMEOUT, NCORE_ERR_REMOTE (comm not fit for a communicating
 * call: ncore/comm.h); NCORE_ERR_SYSTEM; NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_create_pre_mul_sum(
    ncore_custom_redop_t *out, ncore_comm_t comm, const void *scalar,
    ncore_dtype_t dtype, ncore_scalar_residence_t residence);

/* The ncore_redop_t value to pass to collectives (nccl.core CustomRedOp.op).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, wrong handle
 * type); NCORE_ERR_CLOSED. */
NCORE_API ncore_status_t ncore_custom_redop_value(ncore_custom_redop_t op,
                                                  ncore_redop_t *out);

/* The data type the operator was made for.
 * Returns as ncore_custom_redop_value. */
NCORE_API ncore_status_t ncore_custom_redop_dtype(ncore_custom_redop_t op,
                                                  ncore_dtype_t *out);

/* Destroys the operator (ncclRedOpDestroy). Idempotent. Returns NCORE_OK;
 * NCORE_ERR_INVALID_ARGUMENT (NULL or not a custom-operator handle). */
NCORE_API ncore_status_t ncore_custom_redop_close(ncore_custom_redop_t op);

/* 1 if the operator is open, else 0. Cannot fail. */
NCORE_API int ncore_custom_redop_is_valid(ncore_custom_redop_t op);

NCORE_END_DECLS

#endif /* NCORE_RESOURCES_H */
