/* core — what the collectives' entry points (coll_gen.c, generated from the
 * table of operations) call: one function for every collective, inline in
 * each entry point, where the kind is a constant and its row of the table
 * (op_table.h) folds into the code; a call with a config goes on out of
 * line (coll.c). Every argument is checked against the row's shape, the
 * operator resolved (built-in, or an open custom operator of this
 * communicator and dtype), then one core_coll_args_t goes to the
 * backend. */
#ifndef NCORE_CORE_COLL_H
#define NCORE_CORE_COLL_H

#include <ncore/coll.h>

#include "comm_call.h"
#include "error.h"
#include "group.h"
#include "op_table.h"
#include "redop_lookup.h"
#include "resource_object.h"
#include "validate.h"

/* The body of a call with a config (the _config twins, coll.c): the
 * config read into args->config, then as core_collective. Out of line, so
 * that the common call's frame holds no config. */
ncore_status_t core_collective_configured(ncore_comm_t comm,
                                         core_coll_args_t *args,
                                         const ncore_coll_config_t *config);

/* Checks one buffer of a collective. */
static inline ncore_status_t check_coll_buffer(const void *buffer,
                                               size_t elements, int root_only,
                                               int is_root,
                                               const char *argument) {
  if (root_only && !is_root) return NCORE_OK; /* not read off root */
  return core_check_buffer(buffer, elements, argument);
}

/* Validates args (kind, buffers, count, dtype, op, root, stream) against c and
 * dispatches. Returns the first failing check's status. Inlined into both
 * callers: the common call's frame holds no config. */
static inline __attribute__((always_inline)) ncore_status_t run_collective(
    ncore_comm_t comm, core_coll_args_t *args) {
  const core_coll_shape_t *shape = &core_coll_shapes[args->kind];
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &c);
  if (status != NCORE_OK) return status;
  core_resource_t *custom = NULL;
  int nranks = c->info.nranks;
  size_t send_elements = 0, recv_elements = 0;
  const char *count_name = shape->count_name;
  status = core_check_dtype((int)args->dtype, "dtype");
  if (status == NCORE_OK && shape->rooted)
    status = core_check_range(args->root, nranks, "root");
  if (status == NCORE_OK)
    status = core_check_elements(args->count,
                                 shape->send.per_rank ? (size_t)nranks : 1,
                                 args->dtype, count_name, &send_elements);
  if (status == NCORE_OK)
    status = core_check_elements(args->count,
                                 shape->recv.per_rank ? (size_t)nranks : 1,
                                 args->dtype, count_name, &recv_elements);
  int is_root = shape->rooted && args->root == c->info.rank;
  if (status == NCORE_OK)
    status = check_coll_buffer(args->sendbuf, send_elements,
                               shape->send.root_only, is_root, "sendbuf");
  if (status == NCORE_OK)
    status = check_coll_buffer(args->recvbuf, recv_elements,
                               shape->recv.root_only, is_root, "recvbuf");
  if (status == NCORE_OK && shape->in_place == CORE_IN_PLACE_NONE &&
      args->count > 0 && args->sendbuf == args->recvbuf)
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "recvbuf: %s cannot run in place (sendbuf == "
                        "recvbuf)", shape->name);
  if (status == NCORE_OK && shape->reduces) {
    status = core_comm_resolve_op(c, args->op, args->dtype, &custom);
    if (status == NCORE_OK && custom != NULL)
      args->custom_op = custom->impl.redop;
  }
  if (status == NCORE_OK)
    status = core_check_comm_stream(c->ops, c->impl, args->stream);
  if (status == NCORE_OK)
    status = core_group_join(
        c->ops, (core_object_t *[]){&c->header, custom ? &custom->header : NULL},
        2);
  if (status == NCORE_OK) status = c->ops->collective(c->impl, args);
  core_resource_release(custom);
  return core_comm_finish(c, status);
}

/* Runs collective `kind` (a COLL row of op_table.h) as ncore_<name> (or
 * its _config twin, config non-NULL) was called: records the call for
 * messages (CORE_ENTER), checks every argument against the row (buffers, count, dtype, root where the row is rooted, op
 * where it reduces, stream, the in-place rule, the config where given:
 * coll_config.h), resolves the operator and
 * hands the call to the communicator's backend (or queues it in the open
 * group). op is ignored where the row does not reduce, root where it is not
 * rooted. Returns NCORE_OK or the first failing check's status, as
 * ncore/coll.h documents for every collective. The buffers are borrowed as
 * the public call says, config and what it points to for the call;
 * nothing is owned after return. */
static inline __attribute__((always_inline)) ncore_status_t core_collective(
    core_coll_kind_t kind, ncore_comm_t comm, const void *sendbuf,
    void *recvbuf, size_t count, ncore_dtype_t dtype, ncore_redop_t op,
    int root, ncore_stream_t stream, const ncore_coll_config_t *config) {
  CORE_ENTER(config != NULL ? core_coll_shapes[kind].config_function
                             : core_coll_shapes[kind].function);
  core_coll_args_t args = {kind, sendbuf, recvbuf, count, dtype,
                           op,   NULL,    root,    stream, NULL};
  if (config != NULL) return core_collective_configured(comm, &args, config);
  return run_collective(comm, &args);
}

#endif
