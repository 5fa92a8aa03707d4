/* core — a device communicator's team and resource requirements
 * (ncore/devcomm.h, ABI 1.2): read from the caller's arrays, checked,
 * teams merged by value, and the handles the backend returns for them,
 * kept with the device communicator's resource for the queries. */
#ifndef NCORE_CORE_DEVCOMM_REQUIREMENTS_H
#define NCORE_CORE_DEVCOMM_REQUIREMENTS_H

#include "comm_object_types.h"
#include "ncore/devcomm.h"

/* The most team or resource requirements one device communicator takes: a
 * bound on what ncore copies, far above what kernels use. */
#define CORE_DEV_COMM_MAX_REQUIREMENTS 1024

/* The requirements, checked and copied (full-size structs), teams merged
 * (one entry per distinct team, multimem if any entry asked, in order of
 * first appearance: NCCL makes one multicast object per team); and room for
 * what the backend returns: resource_handles[i] for resources[i],
 * multimem[i] for teams[i] (filled only where teams[i].multimem). */
typedef struct core_dev_comm_asks {
  ncore_team_requirement_t *teams;
  int team_count;
  ncore_dev_resource_requirement_t *resources;
  int resource_count;
  ncore_dev_resource_handle_t *resource_handles;
  ncore_multimem_handle_t *multimem;
} core_dev_comm_asks_t;

/* Reads and checks r's teams / resources against communicator c (members
 * inside [0, nranks)) into *out (allocated; core_dev_comm_asks_free).
 * Returns NCORE_OK or INVALID_ARGUMENT / SYSTEM (recorded; the message
 * names the element and field). */
ncore_status_t core_dev_comm_asks_read(const core_comm_object_t *c,
                                       const ncore_dev_comm_requirements_t *r,
                                       core_dev_comm_asks_t *out);

/* Frees what core_dev_comm_asks_read allocated; NULL or zeroed is fine. */
void core_dev_comm_asks_free(core_dev_comm_asks_t *asks);

/* Whether a and b are the same team (by value). */
int core_team_equal(const ncore_team_t *a, const ncore_team_t *b);

#endif
