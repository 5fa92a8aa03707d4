/* core — a device communicator's team and resource requirements
 * (devcomm_requirements.h). */
#include "devcomm_requirements.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "validate.h"
#include "versioned.h"

int core_team_equal(const ncore_team_t *a, const ncore_team_t *b) {
  return a->n_ranks == b->n_ranks && a->rank == b->rank &&
         a->stride == b->stride;
}

/* A team every member of which is a rank of c: well formed
 * (core_check_team), and its first and last member (world ranks my_rank +
 * (i - rank) * stride) inside [0, nranks). what: "requirements:
 * teams[2].team" and the like. */
static ncore_status_t check_team(const core_comm_object_t *c,
                                 const ncore_team_t *t, const char *what) {
  ncore_status_t status = core_check_team(t, what);
  if (status != NCORE_OK) return status;
  const long long first = c->info.rank - (long long)t->rank * t->stride;
  const long long last =
      c->info.rank + ((long long)t->n_ranks - 1 - t->rank) * t->stride;
  if (first < 0 || last >= c->info.nranks)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: {n_ranks %d, rank %d, stride %d} seen from rank %d "
                      "spans world ranks %lld..%lld: not a team of this "
                      "communicator (%d ranks)",
                      what, (int)t->n_ranks, (int)t->rank, (int)t->stride,
                      c->info.rank, first, last, c->info.nranks);
  return NCORE_OK;
}

/* count in [0, CORE_DEV_COMM_MAX_REQUIREMENTS], array non-NULL when
 * count > 0, and every element's struct_size the first's (the stride). */
static ncore_status_t check_array(const void *array, int32_t count,
                                  const char *name, const char *count_name,
                                  size_t *stride) {
  *stride = 0;
  if (count < 0 || count > CORE_DEV_COMM_MAX_REQUIREMENTS)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: %s: %d is outside [0, %d]", count_name,
                      (int)count, CORE_DEV_COMM_MAX_REQUIREMENTS);
  if (count == 0) return NCORE_OK;
  if (array == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: %s is NULL with %s %d", name, count_name,
                      (int)count);
  uint32_t first;
  memcpy(&first, array, sizeof first);
  for (int32_t i = 1; i < count; i++) {
    uint32_t size;
    memcpy(&size, (const char *)array + (size_t)i * first, sizeof size);
    if (size != first)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "requirements: %s[%d].struct_size: %u differs from "
                        "%s[0]'s %u (every element is the caller's sizeof)",
                        name, (int)i, (unsigned)size, name, (unsigned)first);
  }
  *stride = first;
  return NCORE_OK;
}

/* Reads element i of a caller's array (elements `stride` bytes apart) over
 * the defaults in *ours; messages name it "requirements: NAME[i]". */
static ncore_status_t read_element(void *ours, size_t ours_size,
                                   const void *array, size_t stride, int32_t i,
                                   size_t min_size, const char *name) {
  char what[64];
  snprintf(what, sizeof what, "requirements: %s[%d]", name, (int)i);
  return core_versioned_read(ours, ours_size,
                             (const char *)array + (size_t)i * stride,
                             min_size, what);
}

/* Reads the teams, merging equal teams. */
static ncore_status_t read_teams(const core_comm_object_t *c,
                                 const ncore_dev_comm_requirements_t *r,
                                 core_dev_comm_asks_t *out) {
  size_t stride = 0;
  ncore_status_t status =
      check_array(r->teams, r->team_count, "teams", "team_count", &stride);
  if (status != NCORE_OK || r->team_count == 0) return status;
  out->teams = calloc((size_t)r->team_count, sizeof *out->teams);
  out->multimem = calloc((size_t)r->team_count, sizeof *out->multimem);
  if (out->teams == NULL || out->multimem == NULL)
    return core_error(NCORE_ERR_SYSTEM, "out of memory for team requirements");
  for (int32_t i = 0; i < r->team_count; i++) {
    ncore_team_requirement_t t = NCORE_TEAM_REQUIREMENT_INIT;
    status = read_element(&t, sizeof t, r->teams, stride, i,
                          CORE_VERSIONED_MIN_SIZE(ncore_team_requirement_t, team),
                          "teams");
    if (status != NCORE_OK) return status;
    char what[64];
    snprintf(what, sizeof what, "requirements: teams[%d].team", (int)i);
    status = check_team(c, &t.team, what);
    if (status != NCORE_OK) return status;
    if (t.multimem != 0 && t.multimem != 1)
      return core_error(NCORE_ERR_INVALID_ARGUMENT,
                        "requirements: teams[%d].multimem: %d is not 0 or 1",
                        (int)i, (int)t.multimem);
    int j = 0;
    while (j < out->team_count && !core_team_equal(&out->teams[j].team, &t.team))
      j++;
    if (j == out->team_count) {
      out->teams[j] = t;
      out->multimem[j] = (ncore_multimem_handle_t)NCORE_MULTIMEM_HANDLE_INIT;
      out->team_count++;
    }
    out->teams[j].multimem |= t.multimem;
  }
  return NCORE_OK;
}

/* A field of resources[i]: at least 1 where the kind uses it, else 0. */
static ncore_status_t check_field(int i, const char *field, int32_t value,
                                  int used, const char *kind) {
  if (used && value < 1)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: resources[%d].%s: %d must be at least 1 "
                      "for %s",
                      i, field, (int)value, kind);
  if (!used && value != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: resources[%d].%s: %d must be 0 for %s "
                      "(it does not use it)",
                      i, field, (int)value, kind);
  return NCORE_OK;
}

static ncore_status_t check_resource(const core_comm_object_t *c, int i,
                                     const ncore_dev_resource_requirement_t *q) {
  const char *kind = q->kind == NCORE_DEV_RESOURCE_LSA_BARRIER ? "an LSA barrier"
                     : q->kind == NCORE_DEV_RESOURCE_GIN_BARRIER ? "a GIN barrier"
                     : q->kind == NCORE_DEV_RESOURCE_LL_A2A ? "an LL A2A"
                                                             : NULL;
  if (kind == NULL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: resources[%d].kind: %d is not a resource "
                      "kind (LSA_BARRIER 1, GIN_BARRIER 2, LL_A2A 3)",
                      i, (int)q->kind);
  const int barrier = q->kind != NCORE_DEV_RESOURCE_LL_A2A;
  ncore_status_t status = check_field(i, "n_barriers", q->n_barriers, barrier, kind);
  if (status == NCORE_OK)
    status = check_field(i, "n_blocks", q->n_blocks, !barrier, kind);
  if (status == NCORE_OK)
    status = check_field(i, "max_elements", q->max_elements, !barrier, kind);
  if (status == NCORE_OK)
    status = check_field(i, "max_element_size", q->max_element_size, !barrier, kind);
  if (status != NCORE_OK) return status;
  char what[64];
  snprintf(what, sizeof what, "requirements: resources[%d].team", i);
  if (barrier) return check_team(c, &q->team, what);
  if (q->team.n_ranks != 0 || q->team.rank != 0 || q->team.stride != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: must be {0, 0, 0} for %s (it does not use it)", what,
                      kind);
  return NCORE_OK;
}

static ncore_status_t read_resources(const core_comm_object_t *c,
                                     const ncore_dev_comm_requirements_t *r,
                                     core_dev_comm_asks_t *out) {
  size_t stride = 0;
  ncore_status_t status = check_array(r->resources, r->resource_count,
                                      "resources", "resource_count", &stride);
  if (status != NCORE_OK || r->resource_count == 0) return status;
  out->resources = calloc((size_t)r->resource_count, sizeof *out->resources);
  out->resource_handles =
      calloc((size_t)r->resource_count, sizeof *out->resource_handles);
  if (out->resources == NULL || out->resource_handles == NULL)
    return core_error(NCORE_ERR_SYSTEM,
                      "out of memory for resource requirements");
  for (int32_t i = 0; i < r->resource_count; i++) {
    ncore_dev_resource_requirement_t q = NCORE_DEV_RESOURCE_REQUIREMENT_INIT;
    status = read_element(
        &q, sizeof q, r->resources, stride, i,
        CORE_VERSIONED_MIN_SIZE(ncore_dev_resource_requirement_t, kind),
        "resources");
    if (status == NCORE_OK) status = check_resource(c, (int)i, &q);
    if (status != NCORE_OK) return status;
    out->resources[i] = q;
    out->resource_handles[i] =
        (ncore_dev_resource_handle_t)NCORE_DEV_RESOURCE_HANDLE_INIT;
    out->resource_handles[i].kind = q.kind;
    out->resource_count++;
  }
  return NCORE_OK;
}

ncore_status_t core_dev_comm_asks_read(const core_comm_object_t *c,
                                       const ncore_dev_comm_requirements_t *r,
                                       core_dev_comm_asks_t *out) {
  memset(out, 0, sizeof *out);
  if ((r->team_count != 0 || r->resource_count != 0) &&
      (r->resource_requirements_list != NULL ||
       r->team_requirements_list != NULL))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "requirements: resource_requirements_list / "
                      "team_requirements_list (NCCL's own lists) together with "
                      "teams / resources: give one or the other");
  ncore_status_t status = read_teams(c, r, out);
  if (status == NCORE_OK) status = read_resources(c, r, out);
  if (status != NCORE_OK) core_dev_comm_asks_free(out);
  return status;
}

void core_dev_comm_asks_free(core_dev_comm_asks_t *asks) {
  if (asks == NULL) return;
  free(asks->teams);
  free(asks->multimem);
  free(asks->resources);
  free(asks->resource_handles);
  memset(asks, 0, sizeof *asks);
}
