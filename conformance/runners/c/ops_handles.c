/* Conformance runner (C): steps about communicators and resources —
 * queries, creation, close, is_valid, lifecycle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops.h"

static ncore_comm_t comm_arg(runner_t *r, const plan_step_t *step) {
  const char *name = plan_arg(step, "comm");
  return name ? objects_handle(name) : r->world;
}

static int what_is(const plan_step_t *step, const char *what) {
  const char *w = plan_arg(step, "what");
  return w && strcmp(w, what) == 0;
}

/* Records *value once the call has run: a macro, because C leaves the order
 * of a function's argument evaluations unspecified (the value must be read
 * after the call that writes it). */
#define SET_VALUE(res, call, result_value)          \
  ({                                         \
    ncore_status_t set_value_status = (call); \
    if (set_value_status == NCORE_OK) {      \
      (res)->has_value = 1;                  \
      (res)->value = (long long)(result_value);     \
    }                                        \
    set_value_status;                        \
  })

static ncore_status_t op_comm_query(runner_t *r, const plan_step_t *step, result_t *res) {
  ncore_comm_t comm = comm_arg(r, step);
  int v = 0;
  if (what_is(step, "rank")) return SET_VALUE(res, ncore_comm_rank(comm, &v), v);
  if (what_is(step, "size")) return SET_VALUE(res, ncore_comm_size(comm, &v), v);
  if (what_is(step, "device")) return SET_VALUE(res, ncore_comm_device(comm, &v), v);
  if (what_is(step, "lsa_rank")) return SET_VALUE(res, ncore_comm_lsa_rank(comm, &v), v);
  if (what_is(step, "lsa_size")) return SET_VALUE(res, ncore_comm_lsa_size(comm, &v), v);
  if (what_is(step, "backend")) {
    ncore_backend_t b = NCORE_BACKEND_AUTO;
    return SET_VALUE(res, ncore_comm_backend(comm, &b), b);
  }
  if (what_is(step, "async_error")) {
    ncore_status_t s = NCORE_OK;
    return SET_VALUE(res, ncore_comm_async_error(comm, &s), s);
  }
  ncore_gin_type_t g = NCORE_GIN_TYPE_NONE;
  if (what_is(step, "gin_type")) return SET_VALUE(res, ncore_comm_gin_type(comm, &g), g);
  if (what_is(step, "railed_gin_type"))
    return SET_VALUE(res, ncore_comm_railed_gin_type(comm, &g), g);
  /* The rest come from ncore_comm_properties. */
  ncore_comm_properties_t p = NCORE_COMM_PROPERTIES_INIT;
  if (what_is(step, "nvml_device"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.nvml_device);
  if (what_is(step, "device_api_support"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.device_api_support);
  if (what_is(step, "multimem_support"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.multimem_support);
  if (what_is(step, "n_lsa_teams"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.n_lsa_teams);
  if (what_is(step, "host_rma_support"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.host_rma_support);
  if (what_is(step, "gin_connection_type"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.gin_connection_type);
  if (what_is(step, "gin_min_stride"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.gin_min_stride);
  if (what_is(step, "available_gin_types"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p),
                     (int64_t)p.available_gin_types);
  if (what_is(step, "dev_comm_runtime_version_size"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p),
                     (int64_t)p.dev_comm_runtime_version_size);
  if (what_is(step, "cft_support"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.cft_support);
  if (what_is(step, "cft_multicast_support"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.cft_multicast_support);
  if (what_is(step, "cft_counted_support"))
    return SET_VALUE(res, ncore_comm_properties(comm, &p), p.cft_counted_support);
  return NCORE_ERR_INTERNAL;
}

/* team: the world / lsa / rail team ("team"), or the one the step gives
 * (team "given": n_ranks, rank, stride); "what" reads one of its fields or
 * converts member team_rank (to_world, to_lsa). */
static ncore_status_t op_team(runner_t *r, const plan_step_t *step, result_t *res) {
  ncore_comm_t comm = comm_arg(r, step);
  const char *which = plan_arg(step, "team");
  ncore_team_t team = {0, 0, 0};
  ncore_status_t status = NCORE_OK;
  if (which && strcmp(which, "world") == 0) status = ncore_comm_team_world(comm, &team);
  else if (which && strcmp(which, "lsa") == 0) status = ncore_comm_team_lsa(comm, &team);
  else if (which && strcmp(which, "rail") == 0) status = ncore_comm_team_rail(comm, &team);
  else if (which && strcmp(which, "cft") == 0)
    status = ncore_comm_team_cft(comm, (int)plan_arg_int(step, "mode", 0), &team);
  else if (which && strcmp(which, "cft_multimem") == 0)
    status = ncore_comm_team_cft_multimem(comm, &team);
  else if (which && strcmp(which, "given") == 0) {
    team.n_ranks = (int32_t)plan_arg_int(step, "n_ranks", 0);
    team.rank = (int32_t)plan_arg_int(step, "rank", 0);
    team.stride = (int32_t)plan_arg_int(step, "stride", 0);
  } else {
    return NCORE_ERR_INTERNAL;
  }
  if (status != NCORE_OK) return status;
  int member = (int)plan_arg_int(step, "team_rank", 0), v = -1;
  if (what_is(step, "n_ranks")) return SET_VALUE(res, NCORE_OK, team.n_ranks);
  if (what_is(step, "rank")) return SET_VALUE(res, NCORE_OK, team.rank);
  if (what_is(step, "stride")) return SET_VALUE(res, NCORE_OK, team.stride);
  if (what_is(step, "to_world"))
    return SET_VALUE(res, ncore_comm_team_rank_to_world(comm, &team, member, &v), v);
  if (what_is(step, "to_lsa"))
    return SET_VALUE(res, ncore_comm_team_rank_to_lsa(comm, &team, member, &v), v);
  return NCORE_ERR_INTERNAL;
}

/* revoke / suspend / resume: a call on the communicator with its flags. */
static ncore_status_t op_comm_control(runner_t *r, const plan_step_t *step,
                                      result_t *res) {
  (void)res;
  ncore_comm_t comm = comm_arg(r, step);
  uint32_t flags = (uint32_t)plan_arg_int(step, "flags", 0);
  if (strcmp(step->op, "revoke") == 0) return ncore_comm_revoke(comm, flags);
  if (strcmp(step->op, "suspend") == 0) return ncore_comm_suspend(comm, flags);
  return ncore_comm_resume(comm);
}

/* mem_stat: one ncore_comm_mem_stat_t value ("stat") as the step's value. */
static ncore_status_t op_mem_stat(runner_t *r, const plan_step_t *step,
                                  result_t *res) {
  uint64_t v = 0;
  ncore_comm_mem_stat_t stat = (ncore_comm_mem_stat_t)plan_arg_int(step, "stat", 0);
  return SET_VALUE(res, ncore_comm_mem_stat(comm_arg(r, step), stat, &v),
                   (int64_t)v);
}

static void *buffer_ptr(const plan_step_t *step, size_t *bytes) {
  object_t *obj = objects_get(plan_arg(step, "buffer"));
  *bytes = obj ? obj->bytes : 0;
  if (plan_arg(step, "size")) *bytes = (size_t)plan_arg_int(step, "size", 0);
  return obj ? obj->ptr : NULL;
}

static ncore_status_t op_register_buffer(runner_t *r, const plan_step_t *step,
                                         result_t *res) {
  (void)res;
  size_t bytes;
  void *ptr = buffer_ptr(step, &bytes);
  ncore_registered_buffer_t h = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_register_buffer(&h, comm_arg(r, step), ptr, bytes);
  if (st == NCORE_OK) objects_put(plan_arg(step, "as"), OBJECT_REGISTERED_BUFFER)->handle = h;
  return st;
}

static ncore_status_t op_register_window(runner_t *r, const plan_step_t *step,
                                         result_t *res) {
  (void)res;
  size_t bytes;
  void *ptr = buffer_ptr(step, &bytes);
  ncore_window_t h = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_register_window(&h, comm_arg(r, step), ptr, bytes,
                                            (uint32_t)plan_arg_int(step, "flags", 0));
  if (st == NCORE_OK) {
    object_t *obj = objects_put(plan_arg(step, "as"), OBJECT_WINDOW);
    obj->handle = h;
    obj->ptr = ptr;
  }
  return st;
}

static ncore_status_t op_window_query(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  object_t *obj = objects_get(plan_arg(step, "window"));
  ncore_window_t w = obj ? obj->handle : NCORE_NULL_HANDLE;
  int peer = (int)plan_arg_int(step, "peer", 0);
  size_t offset = (size_t)plan_arg_int(step, "offset", 0);
  size_t size = 0;
  void *p = NULL;
  if (what_is(step, "size")) return SET_VALUE(res, ncore_window_size(w, &size), (long long)size);
  if (what_is(step, "peer_size"))
    return SET_VALUE(res, ncore_window_peer_size(w, peer, &size), (long long)size);
  if (what_is(step, "flags")) {
    uint32_t flags = 0;
    return SET_VALUE(res, ncore_window_flags(w, &flags), flags);
  }
  if (what_is(step, "user_pointer_matches"))
    return SET_VALUE(res, ncore_window_user_pointer(w, &p), obj && p == obj->ptr);
  if (what_is(step, "peer_pointer_null"))
    return SET_VALUE(res, ncore_window_peer_device_pointer(w, peer, offset, &p), p == NULL);
  if (what_is(step, "lsa_pointer_null"))
    return SET_VALUE(res, ncore_window_lsa_device_pointer(w, peer, offset, &p), p == NULL);
  if (what_is(step, "multimem_pointer_null"))
    return SET_VALUE(res, ncore_window_lsa_multimem_device_pointer(w, offset, &p), p == NULL);
  /* CFT logical endpoint addresses: the value is le_offset; cft_le_offset's
   * team is the step's n_ranks, rank, stride and its member `peer`. */
  ncore_cft_le_info_t le = {0, 0};
  if (what_is(step, "multimem_le_offset"))
    return SET_VALUE(res, ncore_window_multimem_le_info(w, offset, &le), (long long)le.le_offset);
  if (what_is(step, "peer_le_offset"))
    return SET_VALUE(res, ncore_window_peer_le_info(w, offset, peer, &le), (long long)le.le_offset);
  if (what_is(step, "cft_le_offset")) {
    ncore_team_t team = {(int32_t)plan_arg_int(step, "n_ranks", 0),
                         (int32_t)plan_arg_int(step, "rank", 0),
                         (int32_t)plan_arg_int(step, "stride", 0)};
    return SET_VALUE(res, ncore_window_cft_le_info(w, offset, peer, &team, &le),
                     (long long)le.le_offset);
  }
  return NCORE_ERR_INTERNAL;
}

static ncore_status_t op_registered_buffer_query(runner_t *r, const plan_step_t *step,
                                                 result_t *res) {
  (void)r;
  ncore_registered_buffer_t h = objects_handle(plan_arg(step, "handle"));
  size_t size = 0;
  void *p = NULL;
  if (what_is(step, "size"))
    return SET_VALUE(res, ncore_registered_buffer_size(h, &size), (long long)size);
  if (what_is(step, "pointer_matches")) {
    object_t *buf = objects_get(plan_arg(step, "buffer"));
    return SET_VALUE(res, ncore_registered_buffer_pointer(h, &p), buf && p == buf->ptr);
  }
  return NCORE_ERR_INTERNAL;
}

static ncore_status_t op_close(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  (void)res;
  object_t *obj = objects_get(plan_arg(step, "handle"));
  uint64_t h = obj ? obj->handle : NCORE_NULL_HANDLE;
  switch (obj ? obj->kind : OBJECT_WINDOW) {
    case OBJECT_REGISTERED_BUFFER: return ncore_registered_buffer_close(h);
    case OBJECT_CUSTOM_REDOP: return ncore_custom_redop_close(h);
    case OBJECT_DEV_COMM: return ncore_dev_comm_close(h);
    case OBJECT_SYMMETRIC: return ncore_symmetric_free(h);
    case OBJECT_COMM: return ncore_comm_destroy(h);
    default: return ncore_window_close(h);
  }
}

static ncore_status_t op_is_valid(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  object_t *obj = objects_get(plan_arg(step, "handle"));
  uint64_t h = obj ? obj->handle : NCORE_NULL_HANDLE;
  int v;
  switch (obj ? obj->kind : OBJECT_WINDOW) {
    case OBJECT_REGISTERED_BUFFER: v = ncore_registered_buffer_is_valid(h); break;
    case OBJECT_CUSTOM_REDOP: v = ncore_custom_redop_is_valid(h); break;
    case OBJECT_DEV_COMM: v = ncore_dev_comm_is_valid(h); break;
    case OBJECT_SYMMETRIC: v = ncore_symmetric_is_valid(h); break;
    case OBJECT_COMM: v = ncore_comm_is_valid(h); break;
    default: v = ncore_window_is_valid(h); break;
  }
  return SET_VALUE(res, NCORE_OK, v);
}

static ncore_status_t op_create_pre_mul_sum(runner_t *r, const plan_step_t *step,
                                            result_t *res) {
  (void)res;
  ncore_dtype_t dtype = op_dtype(step, "dtype");
  const char *scalar_text = plan_arg(step, "scalar");
  double s = scalar_text ? atof(scalar_text) : 1.0;
  /* The scalar in the operator's own type; 16/8-bit floats take hex bits. */
  unsigned char scalar[8] = {0};
  switch (dtype) {
    case NCORE_FLOAT32: { float f = (float)s; memcpy(scalar, &f, 4); break; }
    case NCORE_FLOAT64: memcpy(scalar, &s, 8); break;
    case NCORE_INT32: case NCORE_UINT32: { int32_t i = (int32_t)s; memcpy(scalar, &i, 4); break; }
    case NCORE_INT64: case NCORE_UINT64: { int64_t i = (int64_t)s; memcpy(scalar, &i, 8); break; }
    case NCORE_INT8: case NCORE_UINT8: scalar[0] = (unsigned char)(int)s; break;
    default: { unsigned v = (unsigned)strtoul(plan_arg(step, "scalar_bits") ?
                                                  plan_arg(step, "scalar_bits") : "0", NULL, 16);
      memcpy(scalar, &v, 2); break; }
  }
  const char *residence = plan_arg(step, "residence");
  int device = residence && strcmp(residence, "device") == 0;
  void *where = scalar;
  if (device) {
    ncore_status_t st = ncore_mem_alloc(&where, 8, r->backend);
    /* Read at every use of the operator: freed with the case. A name no
     * plan can spell (plans have no spaces). */
    if (st == NCORE_OK) objects_put(" scalar", OBJECT_MEMORY)->ptr = where;
    if (st == NCORE_OK)
      st = ncore_memcpy(where, scalar, 8, NCORE_MEMCPY_HOST_TO_DEVICE, NULL, r->backend);
    if (st == NCORE_OK) st = ncore_stream_synchronize(NULL, r->backend);
    if (st != NCORE_OK) return st;
  }
  ncore_custom_redop_t h = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_create_pre_mul_sum(
      &h, comm_arg(r, step), plan_arg(step, "scalar") ? where : NULL, dtype,
      device ? NCORE_SCALAR_DEVICE : NCORE_SCALAR_HOST_IMMEDIATE);
  if (st == NCORE_OK) {
    object_t *obj = objects_put(plan_arg(step, "as"), OBJECT_CUSTOM_REDOP);
    obj->handle = h;
    ncore_redop_t value = 0;
    ncore_custom_redop_value(h, &value);
    obj->bytes = (size_t)value; /* remembered so a closed op can still be named */
  }
  return st;
}

static ncore_status_t op_custom_redop_query(runner_t *r, const plan_step_t *step,
                                            result_t *res) {
  (void)r;
  ncore_dtype_t dtype = NCORE_INT8;
  return SET_VALUE(res, ncore_custom_redop_dtype(objects_handle(plan_arg(step, "handle")),
                                                 &dtype), dtype);
}

/* A named team of comm: world, lsa, rail, or outside (the world team with
 * one member more than the communicator has). */
static ncore_status_t named_team(ncore_comm_t comm, const char *which, ncore_team_t *team) {
  if (strcmp(which, "lsa") == 0) return ncore_comm_team_lsa(comm, team);
  if (strcmp(which, "rail") == 0) return ncore_comm_team_rail(comm, team);
  ncore_status_t status = ncore_comm_team_world(comm, team);
  if (strcmp(which, "outside") == 0) team->n_ranks++;
  return status;
}

static ncore_status_t op_create_dev_comm(runner_t *r, const plan_step_t *step,
                                         result_t *res) {
  (void)res;
  const char *text = plan_arg(step, "requirements");
  ncore_dev_comm_requirements_t req;
  ncore_dev_comm_requirements_init(&req, sizeof req);
  ncore_team_requirement_t team = NCORE_TEAM_REQUIREMENT_INIT;
  ncore_dev_resource_requirement_t resource = NCORE_DEV_RESOURCE_REQUIREMENT_INIT;
  const ncore_dev_comm_requirements_t *use = NULL;
  if (text && strcmp(text, "null") != 0) {
    char buf[32];
    if (plan_object_field(text, "struct_size", buf, sizeof buf)) req.struct_size = (uint32_t)atoi(buf);
    if (plan_object_field(text, "lsa_multimem", buf, sizeof buf)) req.lsa_multimem = atoi(buf);
    if (plan_object_field(text, "barrier_count", buf, sizeof buf)) req.barrier_count = atoi(buf);
    if (plan_object_field(text, "lsa_barrier_count", buf, sizeof buf)) req.lsa_barrier_count = atoi(buf);
    if (plan_object_field(text, "gin_force_enable", buf, sizeof buf)) req.gin_force_enable = atoi(buf);
    if (plan_object_field(text, "gin_signal_count", buf, sizeof buf)) req.gin_signal_count = atoi(buf);
    if (plan_object_field(text, "gin_counter_count", buf, sizeof buf)) req.gin_counter_count = atoi(buf);
    if (plan_object_field(text, "gin_connection_type", buf, sizeof buf)) req.gin_connection_type = atoi(buf);
    if (plan_object_field(text, "gin_custom_stride", buf, sizeof buf)) req.gin_custom_stride = atoi(buf);
    if (plan_object_field(text, "cft_caps", buf, sizeof buf)) req.cft_caps = atoi(buf);
    if (plan_object_field(text, "cft_barrier_count", buf, sizeof buf)) req.cft_barrier_count = atoi(buf);
    /* One team requirement and one resource requirement at most. */
    if (plan_object_field(text, "team_requirement", buf, sizeof buf)) {
      ncore_status_t st = named_team(comm_arg(r, step), buf, &team.team);
      if (st != NCORE_OK) return st;
      if (plan_object_field(text, "team_multimem", buf, sizeof buf)) team.multimem = atoi(buf);
      req.teams = &team;
      req.team_count = 1;
    }
    if (plan_object_field(text, "resource", buf, sizeof buf)) {
      int barrier = strcmp(buf, "ll_a2a") != 0;
      resource.kind = strcmp(buf, "lsa_barrier") == 0   ? NCORE_DEV_RESOURCE_LSA_BARRIER
                      : strcmp(buf, "gin_barrier") == 0 ? NCORE_DEV_RESOURCE_GIN_BARRIER
                                                        : NCORE_DEV_RESOURCE_LL_A2A;
      if (barrier) {
        const char *which = plan_object_field(text, "resource_team", buf, sizeof buf) ? buf : "lsa";
        ncore_status_t st = named_team(comm_arg(r, step), which, &resource.team);
        if (st != NCORE_OK) return st;
      }
      if (plan_object_field(text, "n_barriers", buf, sizeof buf)) resource.n_barriers = atoi(buf);
      if (plan_object_field(text, "n_blocks", buf, sizeof buf)) resource.n_blocks = atoi(buf);
      if (plan_object_field(text, "max_elements", buf, sizeof buf)) resource.max_elements = atoi(buf);
      if (plan_object_field(text, "max_element_size", buf, sizeof buf))
        resource.max_element_size = atoi(buf);
      req.resources = &resource;
      req.resource_count = 1;
    }
    use = &req;
  }
  ncore_dev_comm_t h = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_create_dev_comm(&h, comm_arg(r, step), use);
  if (st == NCORE_OK) objects_put(plan_arg(step, "as"), OBJECT_DEV_COMM)->handle = h;
  return st;
}

static ncore_status_t op_dev_comm_info(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  ncore_dev_comm_info_t info = NCORE_DEV_COMM_INFO_INIT;
  ncore_status_t st = ncore_dev_comm_info(objects_handle(plan_arg(step, "handle")), &info);
  if (what_is(step, "rank")) return SET_VALUE(res, st, info.rank);
  if (what_is(step, "nranks")) return SET_VALUE(res, st, info.nranks);
  if (what_is(step, "lsa_rank")) return SET_VALUE(res, st, info.lsa_rank);
  if (what_is(step, "lsa_size")) return SET_VALUE(res, st, info.lsa_size);
  if (what_is(step, "gin_type")) return SET_VALUE(res, st, info.gin_type);
  if (what_is(step, "railed_gin_type")) return SET_VALUE(res, st, info.railed_gin_type);
  if (what_is(step, "resource_count")) return SET_VALUE(res, st, info.resource_count);
  return NCORE_ERR_INTERNAL;
}

static ncore_status_t op_dev_comm_resource_handle(runner_t *r, const plan_step_t *step,
                                                  result_t *res) {
  (void)r;
  ncore_dev_resource_handle_t h = NCORE_DEV_RESOURCE_HANDLE_INIT;
  ncore_status_t st = ncore_dev_comm_resource_handle(
      objects_handle(plan_arg(step, "handle")), (int)plan_arg_int(step, "index", 0), &h);
  if (what_is(step, "kind")) return SET_VALUE(res, st, h.kind);
  if (what_is(step, "n_barriers")) return SET_VALUE(res, st, h.n_barriers);
  if (what_is(step, "has_slots")) return SET_VALUE(res, st, h.n_slots > 0);
  return NCORE_ERR_INTERNAL;
}

static ncore_status_t op_dev_comm_multimem_handle(runner_t *r, const plan_step_t *step,
                                                  result_t *res) {
  ncore_team_t team = {0, 0, 0};
  const char *which = plan_arg(step, "team");
  ncore_status_t st = named_team(comm_arg(r, step), which ? which : "world", &team);
  if (st != NCORE_OK) return st;
  ncore_multimem_handle_t h = NCORE_MULTIMEM_HANDLE_INIT;
  st = ncore_dev_comm_multimem_handle(objects_handle(plan_arg(step, "handle")), &team, &h);
  if (what_is(step, "base_null")) return SET_VALUE(res, st, h.mc_base_pointer == NULL);
  return NCORE_ERR_INTERNAL;
}

static ncore_status_t op_symmetric_alloc(runner_t *r, const plan_step_t *step,
                                         result_t *res) {
  (void)res;
  ncore_symmetric_t h = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_symmetric_alloc(&h, comm_arg(r, step),
                                            (size_t)plan_arg_int(step, "size", 0));
  if (st == NCORE_OK) objects_put(plan_arg(step, "as"), OBJECT_SYMMETRIC)->handle = h;
  return st;
}

static ncore_status_t op_symmetric_query(runner_t *r, const plan_step_t *step,
                                         result_t *res) {
  (void)r;
  ncore_symmetric_t h = objects_handle(plan_arg(step, "sym"));
  size_t size = 0;
  void *p = NULL;
  if (what_is(step, "size")) return SET_VALUE(res, ncore_symmetric_size(h, &size), (long long)size);
  return SET_VALUE(res, ncore_symmetric_peer_pointer(h, (int)plan_arg_int(step, "pe", 0), &p),
                   p == NULL);
}

/* split: the parent's config (NULL), or with blocking=0 a non-blocking
 * child with the case's timeout. NCORE_IN_PROGRESS is a success: the child
 * exists and is still initialising (settle waits for it). */
static ncore_status_t op_split(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  ncore_comm_t out = NCORE_NULL_HANDLE;
  ncore_comm_config_t config = NCORE_COMM_CONFIG_INIT;
  int nonblocking = plan_arg_int(step, "blocking", 1) == 0;
  config.blocking = 0;
  config.timeout_ms = r->timeout_ms;
  config.device = r->device;
  ncore_status_t st = ncore_comm_split(comm_arg(r, step), (int)plan_arg_int(step, "color", 0),
                                       (int)plan_arg_int(step, "key", 0), &out,
                                       nonblocking ? &config : NULL);
  if (st == NCORE_OK || st == NCORE_IN_PROGRESS)
    objects_put(plan_arg(step, "as"), OBJECT_COMM)->handle = out;
  return st;
}

/* settle: polls the communicator's asynchronous state until it is not
 * NCORE_IN_PROGRESS (at most the case's timeout); the state is the step's
 * status. */
static ncore_status_t op_settle(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  ncore_comm_t comm = comm_arg(r, step);
  for (long waited_us = 0;; waited_us += 1000) {
    ncore_status_t state = NCORE_OK;
    ncore_status_t st = ncore_comm_async_error(comm, &state);
    if (st != NCORE_OK) return st;
    if (state != NCORE_IN_PROGRESS || waited_us / 1000 > r->timeout_ms) return state;
    usleep(1000);
  }
}

static ncore_status_t op_shrink(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  int exclude[64];
  int n = 0;
  const char *text = plan_arg(step, "exclude");
  for (const char *p = text; p && *p && n < 64;) {
    exclude[n++] = atoi(p);
    p = strchr(p, ',');
    if (p) p++;
  }
  ncore_comm_t out = NCORE_NULL_HANDLE;
  ncore_status_t st = ncore_comm_shrink(comm_arg(r, step), n ? exclude : NULL, n, &out, NULL,
                                        (uint32_t)plan_arg_int(step, "flags", 0));
  if (st == NCORE_OK || st == NCORE_IN_PROGRESS)
    objects_put(plan_arg(step, "as"), OBJECT_COMM)->handle = out;
  return st;
}

static ncore_status_t op_lifecycle(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  ncore_comm_t comm = comm_arg(r, step);
  if (strcmp(step->op, "finalize") == 0) return ncore_comm_finalize(comm);
  if (strcmp(step->op, "abort") == 0) return ncore_comm_abort(comm);
  return ncore_comm_destroy(comm);
}

static ncore_status_t op_synchronize(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  return ncore_comm_synchronize(comm_arg(r, step), r->stream);
}

static ncore_status_t op_group(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  (void)res;
  return strcmp(step->op, "group_start") == 0 ? ncore_group_start() : ncore_group_end();
}

static ncore_status_t op_mem(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)res;
  if (strcmp(step->op, "mem_alloc") == 0) {
    void *p = NULL;
    ncore_status_t st = ncore_mem_alloc(&p, (size_t)plan_arg_int(step, "size", 0), r->backend);
    if (st == NCORE_OK) objects_put(plan_arg(step, "as"), OBJECT_MEMORY)->ptr = p;
    return st;
  }
  object_t *obj = objects_get(plan_arg(step, "ptr"));
  ncore_status_t st = ncore_mem_free(obj ? obj->ptr : NULL, r->backend);
  if (st == NCORE_OK && obj) obj->freed = 1;
  return st;
}

static ncore_status_t op_dtype_size(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  size_t size = 0;
  return SET_VALUE(res, ncore_dtype_size(op_dtype(step, "dtype"), &size), (long long)size);
}

/* ncore_library_info; backend_reason as the hex of its bytes (the value
 * channel of text), features masked by "mask" (default: all bits). */
static ncore_status_t op_library_info(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  ncore_library_info_t info = NCORE_LIBRARY_INFO_INIT;
  ncore_status_t st = ncore_library_info(&info);
  if (st != NCORE_OK) return st;
  if (what_is(step, "version_matches"))
    return SET_VALUE(res, NCORE_OK, strcmp(info.version, ncore_version_string()) == 0);
  if (what_is(step, "backend")) return SET_VALUE(res, NCORE_OK, info.backend);
  if (what_is(step, "features"))
    return SET_VALUE(res, NCORE_OK, info.features & (uint32_t)plan_arg_int(step, "mask", -1));
  if (what_is(step, "backend_reason")) {
    size_t n = strlen(info.backend_reason);
    res->hex = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++)
      sprintf(res->hex + 2 * i, "%02x", (unsigned char)info.backend_reason[i]);
    res->hex[2 * n] = '\0';
    return NCORE_OK;
  }
  return NCORE_ERR_INTERNAL;
}

/* param: parameter "key" (ncore/params.h); "what" value (the hex of its
 * text, default) or listed (1 if ncore_param_keys names it). */
static ncore_status_t op_param(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  const char *key = plan_arg(step, "key");
  size_t n = 0;
  if (what_is(step, "listed")) {
    ncore_status_t st = ncore_param_keys(NULL, 0, &n);
    if (st != NCORE_OK) return st;
    char *keys = malloc(n + 1);
    if (keys == NULL) return NCORE_ERR_SYSTEM;
    st = ncore_param_keys(keys, n + 1, &n);
    int listed = 0;
    for (char *line = keys, *end; st == NCORE_OK && (end = strchr(line, '\n')); line = end + 1) {
      *end = '\0';
      listed |= key != NULL && strcmp(line, key) == 0;
    }
    free(keys);
    return SET_VALUE(res, st, listed);
  }
  ncore_status_t st = ncore_param_get(key, NULL, 0, &n);
  if (st != NCORE_OK) return st;
  char *value = malloc(n + 1);
  if (value == NULL) return NCORE_ERR_SYSTEM;
  st = ncore_param_get(key, value, n + 1, &n);
  if (st == NCORE_OK) {
    res->hex = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) sprintf(res->hex + 2 * i, "%02x", (unsigned char)value[i]);
    res->hex[2 * n] = '\0';
  }
  free(value);
  return st;
}

static ncore_status_t op_sleep(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  (void)res;
  long long ms = plan_arg_int(step, "ms", 0);
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
  return NCORE_OK;
}

static ncore_status_t op_die(runner_t *r, const plan_step_t *step, result_t *res) {
  (void)r;
  (void)step;
  (void)res;
  fflush(stdout);
  _exit(0);
}

static const struct {
  const char *name;
  op_fn fn;
} table[] = {
    {"buffer", op_buffer}, {"check", op_check}, {"sync", op_sync},
    {"comm_query", op_comm_query}, {"team", op_team},
    {"group_start", op_group}, {"group_end", op_group},
    {"register_buffer", op_register_buffer}, {"register_window", op_register_window},
    {"window_query", op_window_query}, {"registered_buffer_query", op_registered_buffer_query},
    {"close", op_close}, {"is_valid", op_is_valid}, {"signal", op_signal},
    {"wait_signal", op_wait_signal}, {"put_signal", op_put_signal},
    {"create_pre_mul_sum", op_create_pre_mul_sum},
    {"custom_redop_query", op_custom_redop_query},
    {"create_dev_comm", op_create_dev_comm}, {"dev_comm_info", op_dev_comm_info},
    {"dev_comm_resource_handle", op_dev_comm_resource_handle},
    {"dev_comm_multimem_handle", op_dev_comm_multimem_handle},
    {"symmetric_alloc", op_symmetric_alloc}, {"symmetric_put", op_symmetric_put},
    {"symmetric_get", op_symmetric_get}, {"symmetric_query", op_symmetric_query},
    {"split", op_split}, {"settle", op_settle}, {"shrink", op_shrink}, {"finalize", op_lifecycle},
    {"destroy", op_lifecycle}, {"abort", op_lifecycle},
    {"revoke", op_comm_control}, {"suspend", op_comm_control},
    {"resume", op_comm_control}, {"mem_stat", op_mem_stat},
    {"synchronize", op_synchronize}, {"mem_alloc", op_mem}, {"mem_free", op_mem}, {"dtype_size", op_dtype_size},
    {"library_info", op_library_info}, {"param", op_param}, {"sleep", op_sleep},
    {"die", op_die}, {"capture_begin", op_capture_begin},
    {"capture_end", op_capture_end},
};

op_fn ops_find(const char *op) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, op) == 0) return table[i].fn;
  switch (op_table_kind(op)) { /* the rows of core/op_table.h */
    case OP_TABLE_COLLECTIVE:
      return op_collective;
    case OP_TABLE_P2P:
      return op_p2p;
    case OP_TABLE_NONE:
      break;
  }
  return NULL;
}
