/* core — the eight collectives (ncore/coll.h): every argument checked, the
 * operator resolved (built-in, or an open custom operator of this
 * communicator and dtype), then one core_coll_args_t for the backend. */
#include "comm_object.h"
#include "error.h"
#include "group.h"
#include "validate.h"

/* What each kind does with its buffers: reduces (takes op), rooted (takes
 * root), *_factor_is_nranks (the buffer holds nranks * count elements, else
 * count), *_root_only (the buffer is only read or written on root, so it may
 * be NULL elsewhere). */
typedef struct coll_shape {
  const char *function;
  int reduces;
  int rooted;
  int send_factor_is_nranks, recv_factor_is_nranks;
  int send_root_only, recv_root_only;
} coll_shape_t;

static const coll_shape_t shapes[] = {
    [CORE_COLL_ALLREDUCE] = {"ncore_allreduce", 1, 0, 0, 0, 0, 0},
    /* broadcast reads sendbuf on root only (ncclBroadcast). */
    [CORE_COLL_BROADCAST] = {"ncore_broadcast", 0, 1, 0, 0, 1, 0},
    [CORE_COLL_REDUCE] = {"ncore_reduce", 1, 1, 0, 0, 0, 1},
    [CORE_COLL_ALLGATHER] = {"ncore_allgather", 0, 0, 0, 1, 0, 0},
    [CORE_COLL_REDUCE_SCATTER] = {"ncore_reduce_scatter", 1, 0, 1, 0, 0, 0},
    [CORE_COLL_ALLTOALL] = {"ncore_alltoall", 0, 0, 1, 1, 0, 0},
    [CORE_COLL_GATHER] = {"ncore_gather", 0, 1, 0, 1, 0, 1},
    [CORE_COLL_SCATTER] = {"ncore_scatter", 0, 1, 1, 0, 1, 0},
};

/* Checks one buffer of a collective. */
static ncore_status_t check_coll_buffer(const void *buffer, size_t elements,
                                        int root_only, int is_root,
                                        const char *argument) {
  if (root_only && !is_root) return NCORE_OK; /* not read off root */
  return core_check_buffer(buffer, elements, argument);
}

/* Validates args (kind, buffers, count, dtype, op, root, stream) against c and
 * dispatches. Returns the first failing check's status. */
static ncore_status_t run_collective(ncore_comm_t comm, core_coll_args_t *args) {
  const coll_shape_t *shape = &shapes[args->kind];
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  core_resource_t *custom = NULL;
  int nranks = c->info.nranks;
  size_t send_elements = 0, recv_elements = 0;
  const char *count_name = args->kind == CORE_COLL_ALLGATHER ? "sendcount"
                           : args->kind == CORE_COLL_REDUCE_SCATTER
                               ? "recvcount"
                               : "count";
  status = core_check_dtype((int)args->dtype, "dtype");
  if (status == NCORE_OK && shape->rooted)
    status = core_check_range(args->root, nranks, "root");
  if (status == NCORE_OK)
    status = core_check_elements(args->count,
                                 shape->send_factor_is_nranks ? (size_t)nranks : 1,
                                 args->dtype, count_name, &send_elements);
  if (status == NCORE_OK)
    status = core_check_elements(args->count,
                                 shape->recv_factor_is_nranks ? (size_t)nranks : 1,
                                 args->dtype, count_name, &recv_elements);
  int is_root = shape->rooted && args->root == c->info.rank;
  if (status == NCORE_OK)
    status = check_coll_buffer(args->sendbuf, send_elements,
                               shape->send_root_only, is_root, "sendbuf");
  if (status == NCORE_OK)
    status = check_coll_buffer(args->recvbuf, recv_elements,
                               shape->recv_root_only, is_root, "recvbuf");
  if (status == NCORE_OK && args->kind == CORE_COLL_ALLTOALL &&
      args->count > 0 && args->sendbuf == args->recvbuf)
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "recvbuf: alltoall cannot run in place (sendbuf == "
                        "recvbuf)");
  if (status == NCORE_OK && shape->reduces) {
    status = core_comm_resolve_op(c, args->op, args->dtype, &custom);
    if (status == NCORE_OK && custom != NULL) args->custom_op = custom->impl.redop;
  }
  if (status == NCORE_OK) status = core_check_comm_stream(c->ops, c->impl, args->stream);
  if (status == NCORE_OK)
    status = core_group_join(
        c->ops, (core_object_t *[]){&c->header, custom ? &custom->header : NULL},
        2);
  if (status == NCORE_OK) status = c->ops->collective(c->impl, args);
  core_resource_release(custom);
  return core_comm_finish(c, status);
}

/* Fills the common fields and runs. */
static ncore_status_t collective(core_coll_kind_t kind, ncore_comm_t comm,
                                 const void *sendbuf, void *recvbuf,
                                 size_t count, ncore_dtype_t dtype,
                                 ncore_redop_t op, int root,
                                 ncore_stream_t stream) {
  CORE_ENTER(shapes[kind].function);
  core_coll_args_t args = {kind,  sendbuf, recvbuf, count, dtype,
                           op,    NULL,    root,    stream};
  return run_collective(comm, &args);
}

NCORE_API ncore_status_t ncore_allreduce(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t count,
                                         ncore_dtype_t dtype, ncore_redop_t op,
                                         ncore_stream_t stream) {
  return collective(CORE_COLL_ALLREDUCE, comm, sendbuf, recvbuf, count, dtype,
                    op, 0, stream);
}

NCORE_API ncore_status_t ncore_broadcast(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t count,
                                         ncore_dtype_t dtype, int root,
                                         ncore_stream_t stream) {
  return collective(CORE_COLL_BROADCAST, comm, sendbuf, recvbuf, count, dtype,
                    NCORE_SUM, root, stream);
}

NCORE_API ncore_status_t ncore_reduce(ncore_comm_t comm, const void *sendbuf,
                                      void *recvbuf, size_t count,
                                      ncore_dtype_t dtype, ncore_redop_t op,
                                      int root, ncore_stream_t stream) {
  return collective(CORE_COLL_REDUCE, comm, sendbuf, recvbuf, count, dtype, op,
                    root, stream);
}

NCORE_API ncore_status_t ncore_allgather(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t sendcount,
                                         ncore_dtype_t dtype,
                                         ncore_stream_t stream) {
  return collective(CORE_COLL_ALLGATHER, comm, sendbuf, recvbuf, sendcount,
                    dtype, NCORE_SUM, 0, stream);
}

NCORE_API ncore_status_t ncore_reduce_scatter(ncore_comm_t comm,
                                              const void *sendbuf,
                                              void *recvbuf, size_t recvcount,
                                              ncore_dtype_t dtype,
                                              ncore_redop_t op,
                                              ncore_stream_t stream) {
  return collective(CORE_COLL_REDUCE_SCATTER, comm, sendbuf, recvbuf,
                    recvcount, dtype, op, 0, stream);
}

NCORE_API ncore_status_t ncore_alltoall(ncore_comm_t comm, const void *sendbuf,
                                        void *recvbuf, size_t count,
                                        ncore_dtype_t dtype,
                                        ncore_stream_t stream) {
  return collective(CORE_COLL_ALLTOALL, comm, sendbuf, recvbuf, count, dtype,
                    NCORE_SUM, 0, stream);
}

NCORE_API ncore_status_t ncore_gather(ncore_comm_t comm, const void *sendbuf,
                                      void *recvbuf, size_t count,
                                      ncore_dtype_t dtype, int root,
                                      ncore_stream_t stream) {
  return collective(CORE_COLL_GATHER, comm, sendbuf, recvbuf, count, dtype,
                    NCORE_SUM, root, stream);
}

NCORE_API ncore_status_t ncore_scatter(ncore_comm_t comm, const void *sendbuf,
                                       void *recvbuf, size_t count,
                                       ncore_dtype_t dtype, int root,
                                       ncore_stream_t stream) {
  return collective(CORE_COLL_SCATTER, comm, sendbuf, recvbuf, count, dtype,
                    NCORE_SUM, root, stream);
}
