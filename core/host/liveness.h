/* core/host — peer liveness through open-file-description locks
 * (liveness.c). */
#ifndef NCORE_CORE_HOST_LIVENESS_H
#define NCORE_CORE_HOST_LIVENESS_H

#include "comm.h"

/* Opens our own description of the segment file (segment_fd) and locks
 * byte `rank` of it; registers comm so that a fork() drops the lock in the
 * child. */
ncore_status_t host_liveness_take(host_comm_t *comm, int segment_fd);
/* Unregisters comm and closes its lock (the process no longer holds it). */
void host_liveness_drop(host_comm_t *comm);
/* 1 if rank joined, did not leave (destroy) and its process is gone. */
int host_peer_died(host_comm_t *comm, int rank);

#endif
