/* core — communicator queries: rank, size, device, backend, LSA team,
 * asynchronous error, GIN types. Queries stay valid after finalize. */
#include "comm_call.h"
#include "comm_object.h"
#include "error.h"

/* A query that reads one value of the acquired communicator `c`;
 * PENDING: it answers while the backend is still creating the communicator. */
#define DEFINE_COMM_QUERY(FUNCTION, PENDING, OUT_T, VALUE)                \
  NCORE_API ncore_status_t FUNCTION(ncore_comm_t comm, OUT_T *out) {      \
    CORE_ENTER(#FUNCTION);                                                \
    core_comm_object_t *c = NULL;                                         \
    ncore_status_t status = core_comm_query_begin(comm, PENDING, out, &c); \
    if (status != NCORE_OK) return status;                                \
    *out = (VALUE);                                                       \
    core_comm_release(c);                                                 \
    return NCORE_OK;                                                      \
  }

DEFINE_COMM_QUERY(ncore_comm_rank, 0, int, c->info.rank)
DEFINE_COMM_QUERY(ncore_comm_size, 0, int, c->info.nranks)
DEFINE_COMM_QUERY(ncore_comm_device, 0, int, c->info.device)
DEFINE_COMM_QUERY(ncore_comm_lsa_rank, 0, int, c->info.lsa_rank)
DEFINE_COMM_QUERY(ncore_comm_lsa_size, 0, int, c->info.lsa_size)
DEFINE_COMM_QUERY(ncore_comm_backend, 1, ncore_backend_t, c->ops->kind)

NCORE_API ncore_status_t ncore_comm_async_error(ncore_comm_t comm,
                                                ncore_status_t *out) {
  CORE_ENTER("ncore_comm_async_error");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_query_begin(comm, 1, out, &c);
  if (status != NCORE_OK) return status;
  status = core_comm_async_error(c, out);
  core_comm_release(c);
  return status;
}

/* Both GIN queries read the communicator's properties and keep one. */
static ncore_status_t gin_query(ncore_comm_t comm, ncore_gin_type_t *out,
                                int railed) {
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_query_begin(comm, 0, out, &c);
  if (status != NCORE_OK) return status;
  ncore_comm_properties_t props = NCORE_COMM_PROPERTIES_INIT;
  status = core_comm_properties(c, &props);
  if (status == NCORE_OK)
    *out = (ncore_gin_type_t)(railed ? props.railed_gin_type : props.gin_type);
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
