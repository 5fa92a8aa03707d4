/* core/host — internal exchanges (exchange.h). */
#include "exchange.h"

#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "coll.h"
#include "group.h"

ncore_status_t host_allgather_bytes(host_comm_t *comm, const void *mine,
                                    void *all, size_t bytes) {
  core_coll_args_t a;
  memset(&a, 0, sizeof a);
  a.kind = CORE_COLL_ALLGATHER;
  a.sendbuf = mine;
  a.recvbuf = all;
  a.count = bytes;
  a.dtype = NCORE_UINT8;
  host_op_t op;
  host_coll_init(&op, comm, &a);
  op.next = NULL;
  return host_run_ops(&op);
}

ncore_status_t host_barrier(host_comm_t *comm) {
  char mine = 1, *all = malloc((size_t)comm->nranks);
  if (!all) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  ncore_status_t s = host_allgather_bytes(comm, &mine, all, 1);
  free(all);
  return s;
}
