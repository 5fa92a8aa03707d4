/* core/nccl — what NCCL says of a communicator
 * (ncclCommQueryProperties, 2.29.2+). */
#ifndef NCORE_CORE_NCCL_PROPERTIES_H
#define NCORE_CORE_NCCL_PROPERTIES_H

#include "comm.h"

/* ncclCommQueryProperties (2.29.2+; the caller checked) into the fields of
 * *out only NCCL knows: nvml device, device API, multimem, GIN types, LSA
 * teams, host RMA (which also needs ncore's native one-sided path). */
ncore_status_t nccl_query_properties(nccl_comm_t *c,
                                     ncore_comm_properties_t *out);

#endif
