/* core — making communicators: ncore_get_unique_id, ncore_comm_init_rank
 * (and _scalable), ncore_comm_init_all, ncore_comm_split, ncore_comm_shrink,
 * ncore_comm_grow, and ncore_comm_init_from_env. Every argument is
 * checked here, before the backend sees the call. */
#include <stdlib.h>
#include <string.h>

#include "comm_call.h"
#include "comm_object.h"
#include "config.h"
#include "error.h"
#include "group.h"
#include "launch.h"

/* The most ranks ncore_comm_init_all makes in one process. */
#define CORE_MAX_RANKS_IN_PROCESS 4096

#define CHECK_NOT_NULL(pointer, name)                                    \
  do {                                                                   \
    if ((pointer) == NULL)                                               \
      return core_error(NCORE_ERR_INVALID_ARGUMENT, name ": must not be NULL"); \
  } while (0)

/* Publishes the communicator impl that the backend made on made's state
 * (made: from core_comm_object_new, freed when nothing was made).
 * NCORE_IN_PROGRESS (a non-blocking NCCL communicator still initialising)
 * is a success that the caller polls with ncore_comm_async_error, so the
 * handle is made then too. */
static ncore_status_t publish_created(core_comm_object_t *made,
                                      const core_backend_ops_t *ops,
                                      ncore_status_t created,
                                      core_backend_comm_t *impl,
                                      const core_config_t *config,
                                      ncore_comm_t *out) {
  if ((created != NCORE_OK && created != NCORE_IN_PROGRESS) || impl == NULL) {
    core_comm_unpublished_free(made);
    return created;
  }
  ncore_status_t status = core_comm_publish(made, ops, impl, config,
                                            created == NCORE_IN_PROGRESS, out);
  if (status != NCORE_OK) return status;
  if (created == NCORE_IN_PROGRESS && core_error_current() != created)
    core_error(created, "out: the communicator is still initialising; poll "
                        "ncore_comm_async_error until it is not "
                        "NCORE_IN_PROGRESS");
  return created;
}

NCORE_API ncore_status_t ncore_get_unique_id(ncore_unique_id_t *out,
                                             ncore_backend_t backend) {
  CORE_ENTER("ncore_get_unique_id");
  CHECK_NOT_NULL(out, "out");
  const core_backend_ops_t *ops = NULL;
  ncore_status_t status = core_backend_select(backend, &ops);
  if (status != NCORE_OK) return status;
  return ops->get_unique_id(out);
}

/* The launcher's device rule (ncore/launch.h): a rank that names no device
 * gets GPU local_rank % visible devices, so that one rank per GPU is what a
 * launched program gets without a device call. Backends without devices
 * (the host's: caps.devices 0) keep -1. */
static ncore_status_t apply_launch_device(const core_backend_ops_t *ops,
                                          int local_rank,
                                          core_config_t *resolved) {
  if (resolved->user.device != -1 || !ops->caps.devices) return NCORE_OK;
  int count = 0;
  ncore_status_t status = ops->device_count(&count);
  if (status != NCORE_OK) return status;
  if (count < 1)
    return core_error(NCORE_ERR_UNAVAILABLE, "no visible device for local "
                      "rank %d (CUDA_VISIBLE_DEVICES?)", local_rank);
  resolved->user.device = local_rank % count;
  return NCORE_OK;
}

/* ncore_comm_init_rank and _scalable: nids ids (checked non-NULL);
 * local_rank >= 0 applies the launcher's device rule, -1 keeps the
 * thread's current device where the config names none. */
static ncore_status_t init_rank(ncore_comm_t *out, int nranks,
                                const ncore_unique_id_t *ids, int nids,
                                int rank, int local_rank,
                                const ncore_comm_config_t *config) {
  *out = NCORE_NULL_HANDLE;
  if (nranks < 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "nranks: %d is invalid (expected >= 1)", nranks);
  if (rank < 0 || rank >= nranks)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "rank: %d is out of range [0, %d)", rank, nranks);
  core_config_t resolved;
  ncore_status_t status = core_config_read(config, &resolved);
  if (status != NCORE_OK) return status;
  const core_backend_ops_t *ops = NULL;
  status = core_config_select_backend(&resolved, &ops);
  if (status != NCORE_OK) return status;
  if (local_rank >= 0) {
    status = apply_launch_device(ops, local_rank, &resolved);
    if (status != NCORE_OK) return status;
  }
  status = core_group_join(ops, NULL, 0);
  if (status != NCORE_OK) return status;
  core_comm_object_t *made = core_comm_object_new();
  if (made == NULL) return core_error_current();
  core_backend_comm_t *impl = NULL;
  status = ops->comm_init_rank(&made->state, &impl, nranks, ids, nids, rank,
                               &resolved);
  return publish_created(made, ops, status, impl, &resolved, out);
}

NCORE_API ncore_status_t ncore_comm_init_rank(ncore_comm_t *out, int nranks,
                                              const ncore_unique_id_t *id,
                                              int rank,
                                              const ncore_comm_config_t *config) {
  CORE_ENTER("ncore_comm_init_rank");
  CHECK_NOT_NULL(out, "out");
  *out = NCORE_NULL_HANDLE;
  CHECK_NOT_NULL(id, "id");
  return init_rank(out, nranks, id, 1, rank, -1, config);
}

NCORE_API ncore_status_t ncore_comm_init_from_env(
    ncore_comm_t *out, const ncore_comm_config_t *config) {
  CORE_ENTER("ncore_comm_init_from_env");
  CHECK_NOT_NULL(out, "out");
  *out = NCORE_NULL_HANDLE;
  /* Which launcher, and this rank's place in its job (launch_env.c). */
  core_launch_t launch;
  ncore_status_t status = core_launch_detect(&launch);
  if (status != NCORE_OK) return status;
  core_config_t resolved;
  status = core_config_read(config, &resolved);
  if (status != NCORE_OK) return status;
  const core_backend_ops_t *ops = NULL;
  status = core_config_select_backend(&resolved, &ops);
  if (status != NCORE_OK) return status;
  /* Rank 0's id, through the launcher's own service (launch_share.c). */
  ncore_unique_id_t id;
  status = core_launch_share_id(&launch, ops, resolved.timeout_ms, &id);
  if (status != NCORE_OK) return status;
  return init_rank(out, launch.nranks, &id, 1, launch.rank, launch.local_rank,
                   config);
}

/* The most bootstrap roots one scalable init takes: NCCL spreads its
 * bootstrap over them; more than one per rank is a garbage count. */
#define CORE_MAX_SCALABLE_IDS 65536

NCORE_API ncore_status_t ncore_comm_init_rank_scalable(
    ncore_comm_t *out, int nranks, int rank, int id_count,
    const ncore_unique_id_t *ids, const ncore_comm_config_t *config) {
  CORE_ENTER("ncore_comm_init_rank_scalable");
  CHECK_NOT_NULL(out, "out");
  *out = NCORE_NULL_HANDLE;
  if (id_count < 1 || id_count > CORE_MAX_SCALABLE_IDS ||
      (nranks >= 1 && id_count > nranks))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "id_count: %d is invalid (expected 1..nranks)",
                      id_count);
  CHECK_NOT_NULL(ids, "ids");
  return init_rank(out, nranks, ids, id_count, rank, -1, config);
}

/* Checks devlist for ncore_comm_init_all on ops (NULL is always fine). */
static ncore_status_t check_devlist(const core_backend_ops_t *ops,
                                    const int *devlist, int ndev) {
  if (devlist == NULL) return NCORE_OK;
  for (int i = 0; i < ndev; i++) {
    if (!ops->caps.devices && devlist[i] != -1)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "devlist: devlist[%d] is %d; the %s backend needs -1",
                        i, devlist[i], ops->name);
    if (ops->caps.devices && devlist[i] < 0)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "devlist: devlist[%d] is %d (expected a CUDA device "
                        "ordinal >= 0)", i, devlist[i]);
  }
  return NCORE_OK;
}

NCORE_API ncore_status_t ncore_comm_init_all(ncore_comm_t *comms, int ndev,
                                             const int *devlist,
                                             const ncore_comm_config_t *config) {
  CORE_ENTER("ncore_comm_init_all");
  CHECK_NOT_NULL(comms, "comms");
  /* Every rank is a thread or a device of this process: more than a few
   * thousand is a garbage count, refused before anything is sized by it. */
  if (ndev < 1 || ndev > CORE_MAX_RANKS_IN_PROCESS)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "ndev: %d is invalid (expected 1..%d)", ndev,
                      CORE_MAX_RANKS_IN_PROCESS);
  core_config_t resolved;
  ncore_status_t status = core_config_read(config, &resolved);
  if (status != NCORE_OK) return status;
  if (resolved.user.device != -1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config: device: must be -1 for ncore_comm_init_all "
                      "(got %d); pass the devices in devlist",
                      (int)resolved.user.device);
  const core_backend_ops_t *ops = NULL;
  status = core_config_select_backend(&resolved, &ops);
  if (status != NCORE_OK) return status;
  status = check_devlist(ops, devlist, ndev);
  if (status != NCORE_OK) return status;
  core_backend_comm_t **impls = calloc((size_t)ndev, sizeof *impls);
  core_comm_object_t **made = calloc((size_t)ndev, sizeof *made);
  core_comm_state_t **states = calloc((size_t)ndev, sizeof *states);
  status = impls && made && states
               ? NCORE_OK
               : core_error(NCORE_ERR_SYSTEM,
                            "out of memory for %d communicators", ndev);
  for (int i = 0; i < ndev && status == NCORE_OK; i++) {
    made[i] = core_comm_object_new();
    if (made[i] == NULL) status = core_error_current();
    else states[i] = &made[i]->state;
  }
  if (status == NCORE_OK) status = core_group_join(ops, NULL, 0);
  if (status == NCORE_OK)
    status = ops->comm_init_all(states, impls, ndev, devlist, &resolved);
  int created = status == NCORE_OK; /* the backend made all ndev */
  /* Publish all or none: on a failure, undo what was published and destroy
   * the impls that were not (a failed publish destroyed its own). */
  int published = 0;
  while (status == NCORE_OK && published < ndev) {
    status = core_comm_publish(made[published], ops, impls[published],
                               &resolved, 0, &comms[published]);
    if (status == NCORE_OK) published++;
  }
  if (status != NCORE_OK) {
    for (int i = created ? published + 1 : 0; made != NULL && i < ndev; i++) {
      if (created) ops->comm_destroy(impls[i], 1);
      core_comm_unpublished_free(made[i]);
    }
    for (int i = 0; i < published; i++) {
      core_comm_close(comms[i], 1);
      comms[i] = NCORE_NULL_HANDLE;
    }
    /* Closing live handles records nothing: the publish error stands. */
  }
  free(impls);
  free(made);
  free(states);
  return status;
}

/* The configuration of a child communicator of parent: the parent's when
 * user is NULL, else user's, whose backend must be AUTO or the parent's. */
static ncore_status_t child_config(const core_comm_object_t *parent,
                                   const ncore_comm_config_t *user,
                                   core_config_t *out) {
  if (user == NULL) {
    *out = parent->config;
    return NCORE_OK;
  }
  ncore_status_t status = core_config_read(user, out);
  if (status != NCORE_OK) return status;
  ncore_backend_t parent_kind = parent->ops->kind;
  if (out->backend != NCORE_BACKEND_AUTO && out->backend != parent_kind)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config: backend: %d differs from the parent "
                      "communicator's backend (%s)", (int)out->backend,
                      parent->ops->name);
  out->backend = parent_kind;
  out->user.backend = (int32_t)parent_kind;
  if (!parent->ops->caps.devices && out->user.device != -1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "config: device: must be -1 on the %s backend (got %d)",
                      parent->ops->name, (int)out->user.device);
  return NCORE_OK;
}

/* The setup every child of a communicator shares (split, shrink, a grow
 * by an existing rank), after the caller acquired parent and made its own
 * checks (status: their result): the child's config (child_config), the
 * call joined to this thread's open group where the group defers it
 * (deferred_by_group), and the child's object. On NCORE_OK *made is for
 * publish_created; on failure nothing is left to free. */
static ncore_status_t child_setup(core_comm_object_t *parent,
                                  ncore_status_t status,
                                  const ncore_comm_config_t *user,
                                  int deferred_by_group, core_config_t *config,
                                  core_comm_object_t **made) {
  *made = NULL;
  if (status == NCORE_OK) status = child_config(parent, user, config);
  if (status == NCORE_OK && deferred_by_group)
    status = core_group_join(parent->ops,
                             (core_object_t *[]){&parent->header}, 1);
  if (status == NCORE_OK && (*made = core_comm_object_new()) == NULL)
    status = core_error_current();
  return status;
}

NCORE_API ncore_status_t ncore_comm_split(ncore_comm_t comm, int color, int key,
                                          ncore_comm_t *out,
                                          const ncore_comm_config_t *config) {
  CORE_ENTER("ncore_comm_split");
  CHECK_NOT_NULL(out, "out");
  *out = NCORE_NULL_HANDLE;
  if (color < NCORE_SPLIT_NOCOLOR)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "color: %d is invalid (expected >= 0 or "
                      "NCORE_SPLIT_NOCOLOR)", color);
  core_comm_object_t *parent = NULL;
  /* A revoked communicator may still be split (as in NCCL). */
  ncore_status_t status =
      core_comm_acquire(comm, CORE_COMM_ALLOW_REVOKED, &parent);
  if (status != NCORE_OK) return status;
  core_config_t resolved;
  core_comm_object_t *made = NULL;
  status = child_setup(parent, NCORE_OK, config, 1, &resolved, &made);
  core_backend_comm_t *impl = NULL;
  if (status == NCORE_OK) {
    status = parent->ops->comm_split(parent->impl, color, key, &made->state,
                                     &impl, &resolved);
    status = publish_created(made, parent->ops, status, impl, &resolved, out);
  }
  core_comm_release(parent);
  return status;
}

/* Checks exclude_ranks against parent: in range, distinct, not this rank. */
static ncore_status_t check_exclude(const core_comm_info_t *info,
                                    const int *exclude, int count) {
  unsigned char *seen = calloc((size_t)info->nranks, 1);
  if (seen == NULL)
    return core_error(NCORE_ERR_SYSTEM, "out of memory checking exclude_ranks");
  ncore_status_t status = NCORE_OK;
  for (int i = 0; i < count && status == NCORE_OK; i++) {
    int r = exclude[i];
    if (r < 0 || r >= info->nranks)
      status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "exclude_ranks: exclude_ranks[%d] = %d is out of "
                          "range [0, %d)", i, r, info->nranks);
    else if (seen[r])
      status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "exclude_ranks: rank %d is listed twice", r);
    else if (r == info->rank)
      status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "exclude_ranks: this rank (%d) is excluded; excluded "
                          "ranks do not call ncore_comm_shrink", r);
    else
      seen[r] = 1;
  }
  free(seen);
  return status;
}

NCORE_API ncore_status_t ncore_comm_shrink(ncore_comm_t comm,
                                           const int *exclude_ranks,
                                           int exclude_count, ncore_comm_t *out,
                                           const ncore_comm_config_t *config,
                                           uint32_t flags) {
  CORE_ENTER("ncore_comm_shrink");
  CHECK_NOT_NULL(out, "out");
  *out = NCORE_NULL_HANDLE;
  if (exclude_count < 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "exclude_count: %d is invalid (expected >= 0)",
                      exclude_count);
  if (exclude_ranks == NULL && exclude_count > 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "exclude_ranks: must not be NULL when exclude_count is "
                      "%d", exclude_count);
  if ((flags & ~NCORE_SHRINK_ABORT) != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "flags: 0x%x has unknown bits (expected "
                      "NCORE_SHRINK_DEFAULT or NCORE_SHRINK_ABORT)", flags);
  /* Shrinking is how a failed or revoked communicator's survivors go on. */
  core_comm_object_t *parent = NULL;
  ncore_status_t status = core_comm_acquire(
      comm, CORE_COMM_ALLOW_FAILED | CORE_COMM_ALLOW_REVOKED, &parent);
  if (status != NCORE_OK) return status;
  status = check_exclude(&parent->info, exclude_ranks, exclude_count);
  core_config_t resolved;
  core_comm_object_t *made = NULL;
  /* Not deferred by a group: ncore has always run shrink at once, inside a
   * group or not, and this change keeps that. */
  status = child_setup(parent, status, config, 0, &resolved, &made);
  core_backend_comm_t *impl = NULL;
  if (status == NCORE_OK) {
    status = parent->ops->comm_shrink(parent->impl, exclude_ranks,
                                      exclude_count, &made->state, &impl,
                                      &resolved, flags);
    status = publish_created(made, parent->ops, status, impl, &resolved, out);
  }
  core_comm_release(parent);
  return status;
}

/* ncore_comm_grow's rules for an existing rank (comm given). */
static ncore_status_t check_grow_existing(const core_comm_object_t *parent,
                                          int nranks, int rank) {
  if (rank != -1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "rank: %d is invalid for an existing rank (expected -1: "
                      "existing ranks keep theirs)", rank);
  if (nranks <= parent->info.nranks)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "nranks: %d is invalid (expected more than comm's %d "
                      "ranks)", nranks, parent->info.nranks);
  return NCORE_OK;
}

/* A new rank joining through ncore_comm_grow (comm is NCORE_NULL_HANDLE). */
static ncore_status_t grow_new_rank(int nranks, const ncore_unique_id_t *id,
                                    int rank, ncore_comm_t *out,
                                    const ncore_comm_config_t *config) {
  CHECK_NOT_NULL(id, "id");
  if (nranks < 2)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "nranks: %d is invalid (expected >= 2: the existing "
                      "ranks and this one)", nranks);
  if (rank < 1 || rank >= nranks)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "rank: %d is out of range [1, %d) (a new rank takes "
                      "one after the existing ranks)", rank, nranks);
  core_config_t resolved;
  ncore_status_t status = core_config_read(config, &resolved);
  if (status != NCORE_OK) return status;
  const core_backend_ops_t *ops = NULL;
  status = core_config_select_backend(&resolved, &ops);
  if (status == NCORE_OK) status = core_group_join(ops, NULL, 0);
  if (status != NCORE_OK) return status;
  core_comm_object_t *made = core_comm_object_new();
  if (made == NULL) return core_error_current();
  core_backend_comm_t *impl = NULL;
  status = ops->comm_grow(NULL, nranks, id, rank, &made->state, &impl,
                          &resolved);
  return publish_created(made, ops, status, impl, &resolved, out);
}

NCORE_API ncore_status_t ncore_comm_grow(ncore_comm_t comm, int nranks,
                                         const ncore_unique_id_t *id, int rank,
                                         ncore_comm_t *out,
                                         const ncore_comm_config_t *config) {
  CORE_ENTER("ncore_comm_grow");
  CHECK_NOT_NULL(out, "out");
  *out = NCORE_NULL_HANDLE;
  if (comm == NCORE_NULL_HANDLE)
    return grow_new_rank(nranks, id, rank, out, config);
  core_comm_object_t *parent = NULL;
  ncore_status_t status = core_comm_acquire(comm, 0, &parent);
  if (status != NCORE_OK) return status;
  status = check_grow_existing(parent, nranks, rank);
  core_config_t resolved;
  core_comm_object_t *made = NULL;
  status = child_setup(parent, status, config, 1, &resolved, &made);
  core_backend_comm_t *impl = NULL;
  if (status == NCORE_OK) {
    status = parent->ops->comm_grow(parent->impl, nranks, id, -1,
                                    &made->state, &impl, &resolved);
    status = publish_created(made, parent->ops, status, impl, &resolved, out);
    /* The root's id is consumed by its grow. */
    if (id != NULL && (status == NCORE_OK || status == NCORE_IN_PROGRESS))
      atomic_store(&parent->grow_id_outstanding, 0);
  }
  core_comm_release(parent);
  return status;
}
