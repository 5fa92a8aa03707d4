/* core — the table of operations as data (op_table.h): one
 * core_coll_shape_t per collective, indexed by its kind. */
#include "op_table.h"

#define COLL_SHAPE(name, KIND, nccl, go, reduces, rooted, send, recv, count, \
                   in_place)                                                  \
  [CORE_COLL_##KIND] = {"ncore_" #name,      "ncore_" #name "_config",       \
                        #name,               reduces,             rooted,    \
                        CORE_PART_##send,    CORE_PART_##recv,               \
                        #count,              CORE_IN_PLACE_##in_place},
const core_coll_shape_t core_coll_shapes[CORE_COLL_KINDS] = {
    CORE_OPERATIONS(COLL_SHAPE, CORE_OP_NONE, CORE_OP_NONE)};
#undef COLL_SHAPE

/* A collective is rooted exactly when one of its buffers is root's only:
 * the public call takes a root then, and only then. */
#define COLL_ROOTED_CHECK(name, KIND, nccl, go, reduces, rooted, send, recv,  \
                          count, in_place)                                    \
  _Static_assert(rooted == (CORE_PART_ROOT_ONLY_##send ||                     \
                            CORE_PART_ROOT_ONLY_##recv),                      \
                 #name ": rooted must be 1 exactly when a buffer is ROOT_");
CORE_OPERATIONS(COLL_ROOTED_CHECK, CORE_OP_NONE, CORE_OP_NONE)
#undef COLL_ROOTED_CHECK
