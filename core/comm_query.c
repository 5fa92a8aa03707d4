/* core — communicator queries: rank, size, device, backend, LSA team,
 * asynchronous error, GIN types. Queries stay valid after finalize. */
#include "comm_object.h"
#include "error.h"

/* Acquires comm for a query with a non-NULL out. */
static ncore_status_t begin_query(ncore_comm_t comm, const void *out,
                                  core_comm_object_t **c) {
  if (out == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "out: must not be NULL");
  return core_comm_acquire(comm, CORE_COMM_QUERY, c);
}

/* One cached-info query. */
#define DEFINE_INFO_QUERY(FUNCTION, FIELD)                                \
  NCORE_API ncore_status_t FUNCTION(ncore_comm_t comm, int *out) {        \
    CORE_ENTER(#FUNCTION);                                                \
    core_comm_object_t *c = NULL;                                         \
    ncore_status_t status = begin_query(comm, out, &c);                   \
    if (status != NCORE_OK) return status;                                \
    *out = c->info.FIELD;                                                 \
    core_comm_release(c);                                                 \
    return NCORE_OK;                                                      \
  }

DEFINE_INFO_QUERY(ncore_comm_rank, rank)
DEFINE_INFO_QUERY(ncore_comm_size, nranks)
DEFINE_INFO_QUERY(ncore_comm_device, device)
DEFINE_INFO_QUERY(ncore_comm_lsa_rank, lsa_rank)
DEFINE_INFO_QUERY(ncore_comm_lsa_size, lsa_size)

NCORE_API ncore_status_t ncore_comm_backend(ncore_comm_t comm,
                                            ncore_backend_t *out) {
  CORE_ENTER("ncore_comm_backend");
  core_comm_object_t *c = NULL;
  ncore_status_t status = begin_query(comm, out, &c);
  if (status != NCORE_OK) return status;
  *out = c->ops->kind;
  core_comm_release(c);
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_comm_async_error(ncore_comm_t comm,
                                                ncore_status_t *out) {
  CORE_ENTER("ncore_comm_async_error");
  core_comm_object_t *c = NULL;
  ncore_status_t status = begin_query(comm, out, &c);
  if (status != NCORE_OK) return status;
  status = core_comm_async_error(c, out);
  core_comm_release(c);
  return status;
}

/* Both GIN queries ask the backend for the pair and keep one. */
static ncore_status_t gin_query(ncore_comm_t comm, ncore_gin_type_t *out,
                                int railed) {
  core_comm_object_t *c = NULL;
  ncore_status_t status = begin_query(comm, out, &c);
  if (status != NCORE_OK) return status;
  ncore_gin_type_t gin = NCORE_GIN_TYPE_NONE, rail = NCORE_GIN_TYPE_NONE;
  status = c->ops->comm_gin_types(c->impl, &gin, &rail);
  if (status == NCORE_OK) *out = railed ? rail : gin;
  core_comm_release(c);
  return status;
}

NCORE_API ncore_status_t ncore_comm_gin_type(ncore_comm_t comm,
                                             ncore_gin_type_t *out) {
  CORE_ENTER("ncore_comm_gin_type");
  return gin_query(comm, out, 0);
}

NCORE_API ncore_status_t ncore_comm_railed_gin_type(ncore_comm_t comm,
                                                    ncore_gin_type_t *out) {
  CORE_ENTER("ncore_comm_railed_gin_type");
  return gin_query(comm, out, 1);
}
