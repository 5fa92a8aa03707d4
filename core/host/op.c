/* core/host — what every operation does alike (op.h). */
#include "op.h"

#include <stdio.h>

const char *host_op_what(const host_op_t *op, char *buf, size_t size) {
  snprintf(buf, size, op->what, op->peer);
  return buf;
}

void host_op_release(host_op_t *op) {
  host_comm_t *c = op->comm;
  if (op->withdraw != NULL) op->withdraw(op);
  if (c->coll_owner == op) c->coll_owner = NULL;
  for (int r = 0; r < c->nranks; r++) {
    if (c->send_owner[r] == op) c->send_owner[r] = NULL;
    if (c->recv_owner[r] == op) c->recv_owner[r] = NULL;
  }
}
