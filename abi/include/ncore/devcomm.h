/* ncore — device communicators (ncclDevCommCreate; nccl.core
 * create_dev_comm, DevCommResource, NcclGinType, NcclGinConnectionType).
 *
 * A device communicator lets CUDA kernels communicate directly. On the host
 * backend it describes the host team: every rank load/store reachable, no GIN,
 * so its lifecycle works everywhere. It is a communicator resource (see
 * resources.h). */
#ifndef NCORE_DEVCOMM_H
#define NCORE_DEVCOMM_H

#include "comm.h"
#include "errors.h"
#include "team.h"
#include "types.h"
#include "window.h"

NCORE_BEGIN_DECLS

/* GPU Interconnect Network transport (ncclGinType_t values). */
typedef enum ncore_gin_type {
  NCORE_GIN_TYPE_NONE = 0,
  NCORE_GIN_TYPE_PROXY = 2,
  NCORE_GIN_TYPE_GDAKI = 3,
  NCORE_GIN_TYPE_GPI = 4,
  /* ABI 1.2: AWS EFA's device-initiated GIN backend (NCCL 2.31+). */
  NCORE_GIN_TYPE_EFA_GDA = 5
} ncore_gin_type_t;

/* Which peers must be reachable through GIN (ncclGinConnectionType_t). */
typedef enum ncore_gin_connection_type {
  NCORE_GIN_CONNECTION_NONE = 0,
  NCORE_GIN_CONNECTION_FULL = 1,
  NCORE_GIN_CONNECTION_RAIL = 2,
  /* ABI 1.2: peers a caller-chosen rank stride apart (NCCL 2.31+, with the
   * requirements' custom stride). */
  NCORE_GIN_CONNECTION_CUSTOM_STRIDE = 3
} ncore_gin_connection_type_t;

/* ---- team and resource requirements (ABI 1.2; nccl4py 0.4.1's
 * TeamRequirement / LsaBarrierRequirement / GinBarrierRequirement /
 * LLA2ARequirement) ----
 *
 * ncore's own descriptions of what NCCL's ncclTeamRequirements_t and
 * ncclDevResourceRequirements_t lists ask for: ncore calls NCCL's
 * nccl*CreateRequirement helpers and chains NCCL's lists itself, so a C user
 * never builds NCCL's structs. Each is versioned (struct_size first, an INIT
 * macro). In an array every element has the same struct_size (the caller's
 * sizeof): ncore steps through the array by the first element's
 * struct_size and refuses an element whose struct_size differs. */

/* One team's requirement (ncclTeamRequirements_t). */
typedef struct ncore_team_requirement {
  uint32_t struct_size;
  /* The team, as the calling rank sees it (ncore/team.h); every member must
   * be a rank of the communicator. */
  ncore_team_t team;
  /* 0/1: ask for a multimem (NVLink multicast) handle for the team, read
   * back with ncore_dev_comm_multimem_handle. Requirements for the same
   * team are merged (multimem if any of them asks), as NCCL merges them. */
  int32_t multimem;
} ncore_team_requirement_t;

#define NCORE_TEAM_REQUIREMENT_INIT                                  \
  {                                                                  \
    (uint32_t)sizeof(ncore_team_requirement_t), /* struct_size */    \
    {0, 0, 0},                                  /* team */           \
    0                                           /* multimem */       \
  }

/* The kinds of device resource NCCL's requirement helpers make. */
typedef enum ncore_dev_resource_kind {
  /* ncclLsaBarrierCreateRequirement: n_barriers barriers over team. */
  NCORE_DEV_RESOURCE_LSA_BARRIER = 1,
  /* ncclGinBarrierCreateRequirement: n_barriers barriers over team, through
   * GIN. */
  NCORE_DEV_RESOURCE_GIN_BARRIER = 2,
  /* ncclLLA2ACreateRequirement: a low-latency all-to-all of n_blocks blocks
   * with ncclLLA2ACalcSlots(max_elements, max_element_size) slots. */
  NCORE_DEV_RESOURCE_LL_A2A = 3
} ncore_dev_resource_kind_t;

/* One device resource's requirement (ncclDevResourceRequirements_t, made
 * by the helper its kind names). Fields a kind does not use must be 0. */
typedef struct ncore_dev_resource_requirement {
  uint32_t struct_size;
  int32_t kind; /* ncore_dev_resource_kind_t */
  /* LSA / GIN barrier: the team (every member a rank of the communicator)
   * and the number of barriers, at least 1. */
  ncore_team_t team;
  int32_t n_barriers;
  /* LL A2A: blocks (at least 1), and the most elements of at most
   * max_element_size bytes one block carries (both at least 1). */
  int32_t n_blocks;
  int32_t max_elements;
  int32_t max_element_size;
} ncore_dev_resource_requirement_t;

#define NCORE_DEV_RESOURCE_REQUIREMENT_INIT                                 \
  {                                                                         \
    (uint32_t)sizeof(ncore_dev_resource_requirement_t), /* struct_size */   \
    0,                                          /* kind */                  \
    {0, 0, 0},                                  /* team */                  \
    0,                                          /* n_barriers */            \
    0,                                          /* n_blocks */              \
    0,                                          /* max_elements */          \
    0                                           /* max_element_size */      \
  }

/* The handle NCCL returned for one resource requirement: the values a
 * kernel passes to NCCL's device API (ncclLsaBarrierHandle,
 * ncclGinBarrierHandle, ncclLLA2AHandle of nccl_device/impl/ *__types.h).
 * Fields another kind has are 0. Versioned: the library fills as many
 * fields as the caller's struct_size holds. */
typedef struct ncore_dev_resource_handle {
  uint32_t struct_size;
  int32_t kind; /* ncore_dev_resource_kind_t of the requirement */
  /* LSA barrier, LL A2A: the resource buffer (ncclDevResourceHandle_t, an
   * offset into the device communicator's resource window). */
  uint32_t buf_handle;
  /* LSA barrier: the number of barriers. */
  int32_t n_barriers;
  /* GIN barrier: the first GIN signal of the barriers. */
  uint32_t signal0;
  /* LL A2A: the number of slots. */
  uint32_t n_slots;
} ncore_dev_resource_handle_t;

#define NCORE_DEV_RESOURCE_HANDLE_INIT                                      \
  {                                                                         \
    (uint32_t)sizeof(ncore_dev_resource_handle_t), /* struct_size */        \
    0,                                             /* kind */               \
    0,                                             /* buf_handle */         \
    0,                                             /* n_barriers */         \
    0,                                             /* signal0 */            \
    0                                              /* n_slots */            \
  }

/* Requirements for a device communicator; mirrors ncclDevCommRequirements
 * (NCCL 2.30.7). Versioned (struct_size first; INIT macro and init function
 * give the defaults: 0 / NULL, and NCORE_CONFIG_UNDEF_INT — "NCCL's
 * default" — for gin_context_count and every field appended in ABI 1.1).
 * A field the loaded NCCL does not know, when set (not UNDEF), makes
 * ncore_create_dev_comm answer NCORE_ERR_NOT_SUPPORTED naming it and the
 * NCCL version needed; the host backend accepts and ignores them. */
typedef struct ncore_dev_comm_requirements {
  uint32_t struct_size;
  /* NCCL's ncclDevResourceRequirements_t* / ncclTeamRequirements_t* lists,
   * passed through unchanged to NCCL; must be NULL on the host backend.
   * ABI 1.1's way; ABI 1.2's teams / resources below say the same without
   * NCCL's structs. Give one way or the other: a list here together with
   * team_count or resource_count above 0 is refused (which to chain first
   * would be a guess). */
  void *resource_requirements_list;
  void *team_requirements_list;
  /* Non-zero: enable multimem on the LSA team (needs NVLink multicast). */
  int32_t lsa_multimem;
  /* Barriers the device communicator carries: hybrid (LSA within the node,
   * then rail GIN across nodes), LSA-team only, and rail-team GIN only.
   * NCCL 2.30+ counts barrier_count and rail_gin_barrier_count as GIN
   * resources: without a gin_connection_type it refuses them
   * (NCORE_ERR_INVALID_ARGUMENT with NCCL's words), where 2.28 made a
   * hybrid barrier within one node. */
  int32_t barrier_count;
  int32_t lsa_barrier_count;
  int32_t rail_gin_barrier_count;
  int32_t lsa_ll_a2a_block_count;
  int32_t lsa_ll_a2a_slot_count;
  /* Non-zero: create GIN resources even if NCCL would not. */
  int32_t gin_force_enable;
  int32_t gin_context_count;
  int32_t gin_signal_count;
  int32_t gin_counter_count;
  /* ncore_gin_connection_type_t the user requires (NCCL 2.29.5+ natively;
   * older NCCL: FULL/RAIL force GIN on and GIN must result). */
  int32_t gin_connection_type;
  /* Appended in ABI 1.1. NCCL 2.29.5+: GIN contexts not shared with other
   * device communicators (0/1), and the GIN queue depth. */
  int32_t gin_exclusive_contexts;
  int32_t gin_queue_depth;
  /* NCCL 2.30+: GIN traffic class, and barriers across the whole world
   * over GIN. */
  int32_t gin_traffic_class;
  int32_t world_gin_barrier_count;
  /* NCCL 2.30.7+: require strong (ordered) GIN signals, and signals at
   * virtual addresses (0/1; NCCL's default is 1 for both). */
  int32_t gin_strong_signals_required;
  int32_t gin_va_signals_required;
  /* Appended in ABI 1.2. Team and resource requirements (borrowed during
   * the call; arrays of team_count / resource_count elements, NULL when the
   * count is 0). The resource handles are read back in this order with
   * ncore_dev_comm_resource_handle, the multimem handles by team with
   * ncore_dev_comm_multimem_handle. */
  const ncore_team_requirement_t *teams;
  int32_t team_count;
  const ncore_dev_resource_requirement_t *resources;
  int32_t resource_count;
  /* NCCL 2.32 (nccl_device/core.h: ginCustomStride, ginType, cftCaps,
   * cftBarrierCount): the rank stride GIN connects when
   * gin_connection_type is CUSTOM_STRIDE (NCCL: 1), the GIN transport to
   * require (an ncore_gin_type_t; NCCL: NONE, any), the CFT capabilities
   * (a bitmask of NCCL's ncclCftCap_t: 1 CFT, 2 CFT multimem; NCCL: 0) and
   * the CFT barriers (NCCL: 0). UNDEF keeps NCCL's default. */
  int32_t gin_custom_stride;
  int32_t gin_type;
  int32_t cft_caps;
  int32_t cft_barrier_count;
} ncore_dev_comm_requirements_t;

#define NCORE_DEV_COMM_REQUIREMENTS_INIT                                   \
  {                                                                        \
    (uint32_t)sizeof(ncore_dev_comm_requirements_t), /* struct_size */     \
    NULL,                      /* resource_requirements_list */            \
    NULL,                      /* team_requirements_list */                \
    0,                         /* lsa_multimem */                          \
    0,                         /* barrier_count */                         \
    0,                         /* lsa_barrier_count */                     \
    0,                         /* rail_gin_barrier_count */                \
    0,                         /* lsa_ll_a2a_block_count */                \
    0,                         /* lsa_ll_a2a_slot_count */                 \
    0,                         /* gin_force_enable */                      \
    NCORE_CONFIG_UNDEF_INT,    /* gin_context_count (NCCL: 4) */           \
    0,                         /* gin_signal_count */                      \
    0,                         /* gin_counter_count */                     \
    NCORE_GIN_CONNECTION_NONE, /* gin_connection_type */                   \
    NCORE_CONFIG_UNDEF_INT,    /* gin_exclusive_contexts */                \
    NCORE_CONFIG_UNDEF_INT,    /* gin_queue_depth */                       \
    NCORE_CONFIG_UNDEF_INT,    /* gin_traffic_class */                     \
    NCORE_CONFIG_UNDEF_INT,    /* world_gin_barrier_count */               \
    NCORE_CONFIG_UNDEF_INT,    /* gin_strong_signals_required */           \
    NCORE_CONFIG_UNDEF_INT,    /* gin_va_signals_required */               \
    NULL,                      /* teams */                                 \
    0,                         /* team_count */                            \
    NULL,                      /* resources */                             \
    0,                         /* resource_count */                        \
    NCORE_CONFIG_UNDEF_INT,    /* gin_custom_stride */                     \
    NCORE_CONFIG_UNDEF_INT,    /* gin_type */                              \
    NCORE_CONFIG_UNDEF_INT,    /* cft_caps */                              \
    NCORE_CONFIG_UNDEF_INT     /* cft_barrier_count */                     \
  }

/* Fills *requirements with the defaults of NCORE_DEV_COMM_REQUIREMENTS_INIT,
 * writing exactly struct_size bytes and setting requirements->struct_size to
 * struct_size; see ncore_comm_config_init for the rules.
 * requirements: caller-owned, at least struct_size bytes; must not be NULL.
 * struct_size: sizeof(ncore_dev_comm_requirements_t) as the caller was
 *   compiled; at least offsetof(resource_requirements_list) + sizeof(void *),
 *   at most 4096 (a page: every call taking the struct refuses more).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (requirements NULL,
 * struct_size too small or too large), nothing written. */
NCORE_API ncore_status_t ncore_dev_comm_requirements_init(
    ncore_dev_comm_requirements_t *requirements, size_t struct_size);

/* What a device communicator provides. Versioned; the library fills as many
 * fields as the caller's struct_size holds. */
typedef struct ncore_dev_comm_info {
  uint32_t struct_size;
  int32_t rank;
  int32_t nranks;
  int32_t lsa_rank;
  int32_t lsa_size;
  /* ncore_gin_type_t of GIN context 0, and of the rail team. */
  int32_t gin_type;
  int32_t railed_gin_type;
  int32_t gin_context_count;
  int32_t gin_signal_count;
  int32_t gin_counter_count;
  /* Non-zero when the LSA team has a multimem handle. */
  int32_t lsa_multimem;
  /* Appended in ABI 1.2: how many resource handles
   * ncore_dev_comm_resource_handle answers (the requirements'
   * resource_count). */
  int32_t resource_count;
} ncore_dev_comm_info_t;

#define NCORE_DEV_COMM_INFO_INIT                                       \
  {                                                                    \
    (uint32_t)sizeof(ncore_dev_comm_info_t), /* struct_size */         \
    0,                                       /* rank */                \
    0,                                       /* nranks */              \
    0,                                       /* lsa_rank */            \
    0,                                       /* lsa_size */            \
    0,                                       /* gin_type */            \
    0,                                       /* railed_gin_type */     \
    0,                                       /* gin_context_count */   \
    0,                                       /* gin_signal_count */    \
    0,                                       /* gin_counter_count */   \
    0,                                       /* lsa_multimem */        \
    0                                        /* resource_count */      \
  }

/* Creates a device communicator. Collective over comm.
 * out: receives the handle.
 * requirements: NULL for defaults, or a versioned struct (borrowed).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, bad struct_size,
 * negative counts, unknown gin_connection_type, NCCL lists on the host
 * backend, a 0/1 field outside 0/1; for teams / resources: a count
 * negative or above 1024, an array NULL with a count above 0, an element's
 * struct_size differing from the first's, an unknown kind, n_barriers /
 * n_blocks / max_elements / max_element_size below 1 where the kind uses
 * them or not 0 where it does not, a team malformed or with a member
 * outside the communicator, NCCL lists together with teams / resources;
 * the message names the element and field); NCORE_ERR_NOT_SUPPORTED (GIN
 * or multimem required but not available, a requirement the loaded NCCL
 * does not know, NCCL 2.32's fields on an NCCL without them, resources or
 * a multimem team on the host backend; the message says which); NCORE_ERR_CLOSED;
 * NCORE_ERR_INVALID_USAGE (comm not fit for a communicating call:
 * ncore/comm.h); NCORE_ERR_REMOTE; NCORE_ERR_TIMEOUT; NCORE_ERR_SYSTEM;
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_create_dev_comm(
    ncore_dev_comm_t *out, ncore_comm_t comm,
    const ncore_dev_comm_requirements_t *requirements);

/* Pointer to the underlying ncclDevComm_t (host backend: to a host-memory
 * description of the team), owned by the library while the handle is open
 * (nccl.core DevCommResource.ptr).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, wrong handle type);
 * NCORE_ERR_CLOSED. */
NCORE_API ncore_status_t ncore_dev_comm_pointer(ncore_dev_comm_t dev_comm,
                                                void **out);

/* Fills *out (struct_size set by the caller) with what the device
 * communicator provides. Returns as ncore_dev_comm_pointer, and
 * NCORE_ERR_INVALID_ARGUMENT for a bad struct_size. */
NCORE_API ncore_status_t ncore_dev_comm_info(ncore_dev_comm_t dev_comm,
                                             ncore_dev_comm_info_t *out);

/* Fills *out (struct_size set by the caller) with the handle NCCL returned
 * for resource requirement `index` (0-based, in the order of the
 * requirements' resources array) when the device communicator was
 * created. Local; nothing is allocated.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, bad struct_size,
 * index outside [0, resource_count), dev_comm not a device communicator
 * handle); NCORE_ERR_CLOSED. */
NCORE_API ncore_status_t ncore_dev_comm_resource_handle(
    ncore_dev_comm_t dev_comm, int index, ncore_dev_resource_handle_t *out);

/* Fills *out (struct_size set by the caller) with the multimem handle NCCL
 * returned for *team, a team given with multimem 1 in the requirements'
 * teams (matched by value: n_ranks, rank, stride). Local.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (team or out NULL, bad
 * struct_size, team not requested with multimem 1, dev_comm not a device
 * communicator handle); NCORE_ERR_CLOSED. *team is read during the call
 * only. */
NCORE_API ncore_status_t ncore_dev_comm_multimem_handle(
    ncore_dev_comm_t dev_comm, const ncore_team_t *team,
    ncore_multimem_handle_t *out);

/* Destroys the device communicator (ncclDevCommDestroy). Local. Idempotent.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL or not a device
 * communicator handle). */
NCORE_API ncore_status_t ncore_dev_comm_close(ncore_dev_comm_t dev_comm);

/* 1 if the device communicator is open, else 0. Cannot fail. */
NCORE_API int ncore_dev_comm_is_valid(ncore_dev_comm_t dev_comm);

/* The communicator's GIN transport (nccl.core Communicator.gin_type):
 * NCORE_GIN_TYPE_NONE on the host backend and wherever no network transport
 * is available to device code.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL); NCORE_ERR_CLOSED. */
NCORE_API ncore_status_t ncore_comm_gin_type(ncore_comm_t comm,
                                             ncore_gin_type_t *out);

/* The GIN transport of the communicator's rail team (nccl.core
 * Communicator.railed_gin_type). Returns as ncore_comm_gin_type. */
NCORE_API ncore_status_t ncore_comm_railed_gin_type(ncore_comm_t comm,
                                                    ncore_gin_type_t *out);

NCORE_END_DECLS

#endif /* NCORE_DEVCOMM_H */
