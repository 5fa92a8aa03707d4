/* core — checks of the table of operations as data (op_table.h, which
 * holds core_coll_shapes). */
#include "op_table.h"

/* A collective is rooted exactly when one of its buffers is root's only:
 * the public call takes a root then, and only then. */
#define COLL_ROOTED_CHECK(name, KIND, nccl, go, reduces, rooted, send, recv,  \
                          count, in_place)                                    \
  _Static_assert(rooted == (CORE_PART_ROOT_ONLY_##send ||                     \
                            CORE_PART_ROOT_ONLY_##recv),                      \
                 #name ": rooted must be 1 exactly when a buffer is ROOT_");
CORE_OPERATIONS(COLL_ROOTED_CHECK, CORE_OP_NONE, CORE_OP_NONE)
#undef COLL_ROOTED_CHECK
