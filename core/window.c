/* core — registered windows (ncore/window.h, ncclCommWindowRegister):
 * registration, queries, and the LSA / peer / multimem pointer getters with
 * their range checks (rank in range, offset <= that part's size). */
#include "resource_entry.h"
#include "validate.h"
#include "versioned.h"

NCORE_API ncore_status_t ncore_register_window(ncore_window_t *out,
                                               ncore_comm_t comm, void *ptr,
                                               size_t size, uint32_t flags) {
  CORE_ENTER("ncore_register_window");
  core_comm_object_t *c = NULL;
  ncore_status_t status = core_resource_create_begin(out, comm, &c);
  if (status != NCORE_OK) return status;
  status = core_check_registration(ptr, size);
  if (status == NCORE_OK &&
      (flags & ~(NCORE_WINDOW_COLL_SYMMETRIC | NCORE_WINDOW_STRICT_ORDERING |
                 NCORE_WINDOW_GIN_ONLY | NCORE_WINDOW_CFT_COUNTED)) != 0)
    status = core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "flags: 0x%x has unknown bits (expected "
                        "NCORE_WINDOW_DEFAULT or NCORE_WINDOW_COLL_SYMMETRIC, "
                        "NCORE_WINDOW_STRICT_ORDERING, NCORE_WINDOW_GIN_ONLY, "
                        "NCORE_WINDOW_CFT_COUNTED or'ed)",
                        flags);
  core_resource_t fields = {.ptr = ptr, .size = size, .flags = flags};
  if (status == NCORE_OK)
    status = c->ops->window_register(c->impl, ptr, size, flags, &fields.impl.window,
                                     &fields.native);
  return core_resource_create_end(c, status, CORE_HANDLE_WINDOW, &fields, out);
}

/* Acquires window for a query with a non-NULL out. */
static ncore_status_t begin_query(ncore_window_t window, const void *out,
                                  core_resource_t **res) {
  return core_resource_query_begin(window, CORE_HANDLE_WINDOW, "window", out,
                                   res);
}

CORE_RESOURCE_QUERY(ncore_window_size, ncore_window_t, window,
                    CORE_HANDLE_WINDOW, size_t, res->size)
CORE_RESOURCE_QUERY(ncore_window_user_pointer, ncore_window_t, window,
                    CORE_HANDLE_WINDOW, void *, res->ptr)
CORE_RESOURCE_QUERY(ncore_window_flags, ncore_window_t, window,
                    CORE_HANDLE_WINDOW, uint32_t, res->flags)
CORE_RESOURCE_QUERY(ncore_window_native_handle, ncore_window_t, window,
                    CORE_HANDLE_WINDOW, uintptr_t, res->native)

NCORE_API ncore_status_t ncore_window_peer_size(ncore_window_t window, int peer,
                                                size_t *out) {
  CORE_ENTER("ncore_window_peer_size");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(window, out, &res);
  if (status != NCORE_OK) return status;
  status = core_check_range(peer, res->comm->info.nranks, "peer");
  if (status == NCORE_OK)
    *out = res->comm->ops->window_peer_size(res->impl.window, peer);
  core_resource_release(res);
  return status;
}

NCORE_API ncore_status_t ncore_window_lsa_device_pointer(ncore_window_t window,
                                                         int lsa_rank,
                                                         size_t offset,
                                                         void **out) {
  CORE_ENTER("ncore_window_lsa_device_pointer");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(window, out, &res);
  if (status != NCORE_OK) return status;
  *out = NULL;
  const core_comm_info_t *info = &res->comm->info;
  status = core_check_range(lsa_rank, info->lsa_size, "lsa_rank");
  if (status == NCORE_OK) {
    /* The LSA team is a contiguous block of world ranks (NCCL's
     * ncclTeamLsa, stride 1), so member lsa_rank is this world rank. */
    int world = info->rank - info->lsa_rank + lsa_rank;
    size_t part = res->comm->ops->window_peer_size(res->impl.window, world);
    status = core_check_window_offset(offset, part, "lsa_rank", lsa_rank);
  }
  if (status == NCORE_OK)
    status = res->comm->ops->window_lsa_pointer(res->comm->impl, res->impl.window,
                                                lsa_rank, offset, out);
  core_resource_release(res);
  return status;
}

NCORE_API ncore_status_t ncore_window_peer_device_pointer(ncore_window_t window,
                                                          int peer,
                                                          size_t offset,
                                                          void **out) {
  CORE_ENTER("ncore_window_peer_device_pointer");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(window, out, &res);
  if (status != NCORE_OK) return status;
  *out = NULL;
  status = core_check_range(peer, res->comm->info.nranks, "peer");
  if (status == NCORE_OK)
    status = core_check_window_offset(offset,
                          res->comm->ops->window_peer_size(res->impl.window, peer),
                          "peer", peer);
  if (status == NCORE_OK)
    status = res->comm->ops->window_peer_pointer(res->comm->impl, res->impl.window,
                                                 peer, offset, out);
  core_resource_release(res);
  return status;
}

NCORE_API ncore_status_t ncore_window_lsa_multimem_device_pointer(
    ncore_window_t window, size_t offset, void **out) {
  CORE_ENTER("ncore_window_lsa_multimem_device_pointer");
  core_resource_t *res = NULL;
  ncore_status_t status = begin_query(window, out, &res);
  if (status != NCORE_OK) return status;
  *out = NULL;
  status = core_check_window_offset(offset, res->size, "rank", res->comm->info.rank);
  if (status == NCORE_OK)
    status = res->comm->ops->window_multimem_pointer(res->comm->impl, res->impl.window,
                                                     offset, out);
  core_resource_release(res);
  return status;
}

NCORE_API ncore_status_t ncore_window_multimem_device_pointer(
    ncore_window_t window, const ncore_multimem_handle_t *multimem,
    size_t offset, void **out) {
  CORE_ENTER("ncore_window_multimem_device_pointer");
  ncore_multimem_handle_t handle = NCORE_MULTIMEM_HANDLE_INIT;
  ncore_status_t status = core_check_not_null(multimem, "multimem");
  if (status == NCORE_OK)
    status = core_versioned_read(
        &handle, sizeof handle, multimem,
        CORE_VERSIONED_MIN_SIZE(ncore_multimem_handle_t, mc_base_pointer),
        "multimem");
  if (status != NCORE_OK) return status;
  core_resource_t *res = NULL;
  status = begin_query(window, out, &res);
  if (status != NCORE_OK) return status;
  *out = NULL;
  status = core_check_window_offset(offset, res->size, "rank", res->comm->info.rank);
  /* No multicast base: the team has no multimem, so there is no address. */
  if (status == NCORE_OK && handle.mc_base_pointer != NULL &&
      res->comm->ops->window_team_multimem_pointer != NULL)
    status = res->comm->ops->window_team_multimem_pointer(
        res->comm->impl, res->impl.window, handle.mc_base_pointer, offset, out);
  core_resource_release(res);
  return status;
}

CORE_RESOURCE_CLOSE_AND_IS_VALID(ncore_window_close, ncore_window_is_valid,
                                 ncore_window_t, window, CORE_HANDLE_WINDOW)
