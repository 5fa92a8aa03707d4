/* core/host — blocking exchanges between the ranks of a communicator,
 * for the backend's own use (split, windows, symmetric memory, finalize):
 * an allgather and a barrier, run as collectives. */
#ifndef NCORE_CORE_HOST_EXCHANGE_H
#define NCORE_CORE_HOST_EXCHANGE_H

#include <stddef.h>
#include "comm.h"

/* Blocking allgather of `bytes` per rank over comm (internal exchanges). */
ncore_status_t host_allgather_bytes(host_comm_t *comm, const void *mine,
                                    void *all, size_t bytes);
/* Returns once every rank of comm called it (or a peer failed). */
ncore_status_t host_barrier(host_comm_t *comm);

#endif
