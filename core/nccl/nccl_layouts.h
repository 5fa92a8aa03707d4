/* core/nccl — every NCCL struct layout ncore writes or reads, per NCCL
 * version, in one place.
 *
 * ncore loads whatever libnccl.so.2 the user has (2.28.0 and newer), but is
 * compiled against one nccl.h. The structs whose layout changed between
 * releases are therefore not taken from that header: this file mirrors
 * them (nccl_config_t, nccl_devcomm_requirements_t, nccl_comm_properties_t)
 * and lists, per range of versions, their sizes and the offsets of the
 * ncclDevComm fields ncore reads (nccl_layout_t). nccl_layouts.c picks the
 * row of the loaded version and answers which version that is.
 *
 * Where the numbers come from, and what holds them true:
 * - tests/nccl-layouts/derive.sh prints them from the headers of each NCCL
 *   release tag (2.28.9, 2.29.2, 2.29.3, 2.29.7, 2.30.3, 2.30.4, 2.30.7);
 *   2.31.2's ncclConfig_t and ncclCommProperties fields are those of
 *   nccl4py 0.5.0's declarations generated from 2.31.2's headers, and
 *   nvlsHostMode (2.32) NCCL's src/nccl.h.in's, until a 2.31.2 / 2.32.3
 *   header set is here for derive.sh and check.cu;
 * - tests/nccl-layouts/check.cu static_asserts every row against a real
 *   header, and `make test` compiles it against every header set
 *   tests/nccl-layouts/header-sets.sh lists (2.28.9, the CUDA toolkit's;
 *   third_party/nccl-headers/{2.29.7,2.30.7}).
 *
 * Plain C, also included by C++ (check.cu, the test double of libnccl). */
#ifndef NCORE_CORE_NCCL_LAYOUTS_H
#define NCORE_CORE_NCCL_LAYOUTS_H

#include <stdbool.h>
#include <stddef.h>

#define NCORE_NCCL_VERSION(major, minor, patch) \
  ((major) * 10000 + (minor) * 100 + (patch))
/* The oldest NCCL ncore runs on: the device API and ncclCommShrink. */
#define NCORE_NCCL_OLDEST NCORE_NCCL_VERSION(2, 28, 0)
/* The newest device-communicator layouts ncore knows (ncclDevComm,
 * ncclDevCommRequirements). A newer NCCL is asked for these (its
 * compatibility layer, src/devcomm/ in NCCL, answers in them). */
#define NCORE_NCCL_NEWEST_KNOWN NCORE_NCCL_VERSION(2, 30, 7)
/* The newest ncclCommProperties layout ncore knows (2.31.2's; a newer NCCL
 * answers an older caller's properties in that caller's layout). */
#define NCORE_NCCL_PROPERTIES_NEWEST_KNOWN NCORE_NCCL_VERSION(2, 31, 2)
/* The newest ncclConfig_t ncore knows (2.32.3's, through nvlsHostMode).
 * NCCL resets every config field newer than `version` to its default, so
 * the config carries the loaded version up to this one, not the
 * device-communicator cap above. */
#define NCORE_NCCL_CONFIG_NEWEST_KNOWN NCORE_NCCL_VERSION(2, 32, 3)
/* ncclConfig_t.magic, ncclDevCommRequirements.magic,
 * ncclCommProperties.magic (NCCL_API_MAGIC). */
#define NCORE_NCCL_API_MAGIC 0xcafebeefu
/* NCCL_CONFIG_UNDEF_INT. */
#define NCORE_NCCL_UNDEF_INT (-2147483647 - 1)

/* ncclConfig_t as of 2.32.3. Every release only appended fields, and NCCL
 * reads min(size, its own sizeof) bytes and resets the fields newer than
 * `version`, so this one struct serves every version (with `version` the
 * loaded one, nccl_config_version()). */
typedef struct nccl_config {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int blocking;
  int cgaClusterSize;
  int minCTAs;
  int maxCTAs;
  const char *netName;
  int splitShare;
  int trafficClass;
  const char *commName;
  int collnetEnable;
  int CTAPolicy;
  int shrinkShare;
  int nvlsCTAs;
  int nChannelsPerNetPeer;
  int nvlinkCentricSched;
  int graphUsageMode;      /* 2.29.0 */
  int numRmaCtx;           /* 2.29.0 */
  int maxP2pPeers;         /* 2.30.0 */
  int graphStreamOrdering; /* 2.30.5 */
  int launchOrderImplicit; /* 2.31.0 */
  int numRmaSig;           /* 2.31.0 */
  int rmaEagerInit;        /* 2.31.0 */
  int hostCftMode;         /* 2.31.1: ncclHostCftMode_t */
  int nvlsHostMode;        /* 2.32.0: ncclNvlsHostMode_t */
} nccl_config_t;

/* struct ncclDevCommRequirements before 2.29.2: no size/magic/version. */
typedef struct nccl_devcomm_requirements_v2_28 {
  void *resourceRequirementsList;
  void *teamRequirementsList;
  bool lsaMultimem;
  int barrierCount;
  int lsaBarrierCount;
  int railGinBarrierCount;
  int lsaLLA2ABlockCount, lsaLLA2ASlotCount;
  bool ginForceEnable;
  int ginContextCount;
  int ginSignalCount;
  int ginCounterCount;
} nccl_devcomm_requirements_v2_28_t;

/* struct ncclDevCommRequirements from 2.29.2 on, as of 2.30.7. NCCL copies
 * `size` bytes of it (onto its defaults), so `size` must never exceed the
 * loaded version's struct: nccl_layout_t.requirements_size. */
typedef struct nccl_devcomm_requirements {
  size_t size;
  unsigned int magic;
  unsigned int version;
  void *resourceRequirementsList;
  void *teamRequirementsList;
  bool lsaMultimem;
  int barrierCount;
  int lsaBarrierCount;
  int railGinBarrierCount;
  int lsaLLA2ABlockCount, lsaLLA2ASlotCount;
  bool ginForceEnable;
  int ginContextCount;
  int ginSignalCount;
  int ginCounterCount;
  int ginConnectionType;         /* 2.29.5: ncclGinConnectionType_t */
  bool ginExclusiveContexts;     /* 2.29.5 */
  int ginQueueDepth;             /* 2.29.5 */
  int ginTrafficClass;           /* 2.30.0 */
  int worldGinBarrierCount;      /* 2.30.0 */
  bool ginStrongSignalsRequired; /* 2.30.7 */
  bool ginVaSignalsRequired;     /* 2.30.7 */
} nccl_devcomm_requirements_t;

/* struct ncclCommProperties (ncclCommQueryProperties, 2.29.2+) as of
 * 2.31.2. 2.29.2 to 2.29.4 end after multimemSupport with a one-byte
 * ginType (nccl_layout_t.properties_gin_type_byte); 2.29.5 to 2.30.x end
 * after railedGinType. */
typedef struct nccl_comm_properties {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int rank;
  int nRanks;
  int cudaDev;
  int nvmlDev;
  bool deviceApiSupport;
  bool multimemSupport;
  int ginType;        /* ncclGinType_t */
  int nLsaTeams;      /* 2.29.5 */
  bool hostRmaSupport;/* 2.29.5 */
  int railedGinType;  /* 2.29.5 */
  unsigned long long commHash;    /* 2.31.0: uint64_t */
  int ginMinStride;               /* 2.31.0 */
  int ginConnectionType;          /* 2.31.0: ncclGinConnectionType_t */
  bool ginSupport[64];            /* 2.31.0: [ncclGinType_t] supported */
  size_t devCommRuntimeVersionSize; /* 2.31.0 */
} nccl_comm_properties_t;

/* What changes with the version, for one range of versions. */
typedef struct nccl_layout {
  int since;                 /* first NCCL version code of the range */
  const char *name;          /* the release whose headers it was taken from */
  /* ncclDevCommRequirements: 0 = the 2.28 struct; else the bytes of
   * nccl_devcomm_requirements_t this version has (its `size`). */
  size_t requirements_size;
  /* ncclCommProperties: 0 = no ncclCommQueryProperties; else its size. */
  size_t properties_size;
  int properties_gin_type_byte; /* ginType is one byte at offset 34 */
  /* struct ncclDevComm: size and the offsets of the fields ncore reads. */
  size_t devcomm_size;
  size_t devcomm_rank, devcomm_nranks, devcomm_lsa_rank, devcomm_lsa_size;
  size_t devcomm_lsa_multimem;   /* ncclMultimemHandle {void *mcBasePtr} */
  size_t devcomm_gin_count;      /* uint8_t: GIN contexts (2.28) or
                                    connections (2.29.5+) */
  size_t devcomm_gin_types;      /* uint8_t[4]: ginTypes / ginNetDeviceTypes */
  size_t devcomm_gin_signal_count, devcomm_gin_counter_count;
  size_t devcomm_gin_context_count; /* uint32_t, 0 = devcomm_gin_count is it */
} nccl_layout_t;

/* One row per range, newest first (nccl_layouts.c searches in order).
 * From 2.31 on the device-communicator columns stay 2.30.7's: ncore asks
 * for that layout (NCORE_NCCL_NEWEST_KNOWN); what changed is
 * ncclCommProperties (144 bytes). */
#define NCORE_NCCL_LAYOUT_2_31                                              \
  {NCORE_NCCL_VERSION(2, 31, 0), "2.31.2", 96, 144, 0,                      \
   240, 8, 12, 20, 24, 120, 144, 145, 184, 188, 200}
#define NCORE_NCCL_LAYOUT_2_30                                              \
  {NCORE_NCCL_VERSION(2, 30, 0), "2.30.7", 96, 56, 0,                       \
   240, 8, 12, 20, 24, 120, 144, 145, 184, 188, 200}
#define NCORE_NCCL_LAYOUT_2_29_5                                            \
  {NCORE_NCCL_VERSION(2, 29, 5), "2.29.7", 88, 56, 0,                       \
   224, 0, 4, 12, 16, 112, 136, 137, 180, 188, 200}
#define NCORE_NCCL_LAYOUT_2_29_2                                            \
  {NCORE_NCCL_VERSION(2, 29, 2), "2.29.3", 72, 40, 1,                       \
   200, 0, 4, 12, 16, 112, 136, 137, 180, 188, 0}
#define NCORE_NCCL_LAYOUT_2_28                                              \
  {NCORE_NCCL_VERSION(2, 28, 0), "2.28.9", 0, 0, 0,                         \
   200, 0, 4, 12, 16, 112, 136, 137, 180, 188, 0}

/* ---- the loaded version (nccl_layouts.c) ---- */
/* Records the loaded version and picks its layouts (nccl_lib.c, once). */
void nccl_layouts_select(int version_code);
/* The loaded libnccl's version code (ncclGetVersion: 22809 for 2.28.9), 0
 * before a successful nccl_load. */
int nccl_runtime_version(void);
/* The layouts of the loaded version; valid after nccl_load. */
const nccl_layout_t *nccl_layout(void);
/* The `version` ncore writes into NCCL's device-communicator structs: the
 * loaded version, capped at the newest layout ncore knows (NCCL reads an
 * older caller's struct through its compatibility layer). */
int nccl_struct_version(void);
/* The same for the structs whose own newest known layout is `newest`
 * (NCORE_NCCL_CONFIG_NEWEST_KNOWN, NCORE_NCCL_PROPERTIES_NEWEST_KNOWN). */
int nccl_struct_version_upto(int newest);
/* "2.30.7" for 23007 (a buffer per thread, valid until its next call). */
const char *nccl_version_text(int code);

/* ---- the per-call configuration (issue 44: collconfig) ----
 * ncclConfigExt_t and ncclCollConfig_t as of NCCL 2.32.3 (src/nccl.h.in;
 * the field list and "since" of each: NCCL's user guide, "ncclCollConfig_t"):
 * append-only, so NCCL 2.31's struct is this one without
 * launchCompletionEvent (64 bytes), which NCORE_NCCL_COLL_CONFIG_SIZE_2_31
 * names. Both are read by nccl*Config calls of those versions only. */
typedef struct nccl_config_ext {
  struct nccl_config_ext *next;
  struct {
    int vendorId;
    int optionId;
  } key;
  union {
    int i;
    const char *s;
    void *raw;
  } val;
} nccl_config_ext_t;

typedef struct nccl_coll_config {
  size_t size;
  unsigned int magic;
  unsigned int version;
  nccl_config_ext_t *ext;
  int minCTAs;
  int maxCTAs;
  int nvlsCTAs;
  int cgaClusterSize;
  const char *algSelection;
  int forceAlgSelection;
  int CTAPolicy;
  unsigned long long userProfilerTag;
  void *launchCompletionEvent; /* 2.32.0: cudaEvent_t */
} nccl_coll_config_t;

/* The NCCL versions that take a per-call configuration, and the first
 * with launchCompletionEvent. */
#define NCORE_NCCL_COLL_CONFIG_SINCE NCORE_NCCL_VERSION(2, 31, 0)
#define NCORE_NCCL_COLL_CONFIG_EVENT_SINCE NCORE_NCCL_VERSION(2, 32, 0)
#define NCORE_NCCL_COLL_CONFIG_SIZE_2_31 \
  offsetof(nccl_coll_config_t, launchCompletionEvent)

#endif
