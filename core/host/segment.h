/* core/host — a communicator's shared segment: made by rank 0 as a memfd,
 * handed to the other ranks, joined by all, left at the end (segment.c). */
#ifndef NCORE_CORE_HOST_SEGMENT_H
#define NCORE_CORE_HOST_SEGMENT_H

#include <stdint.h>
#include "comm.h"

/* A rank's communicator object without a segment yet, on state (the
 * core's: its liveness, core/comm_state.h). */
ncore_status_t host_comm_new(host_comm_t **out, core_comm_state_t *state,
                             int rank, int nranks, int64_t timeout_ms);
/* A joiner's side of what rank 0 handed over: checks that fd is a private
 * file of this user of exactly comm's size, maps it and checks rank 0's
 * header (magic, nranks). */
ncore_status_t host_segment_attach(host_comm_t *comm, int fd);
/* Creates (rank 0) or joins the segment of token and waits for all ranks;
 * the communicator lives on state. */
ncore_status_t host_segment_join(host_comm_t **out, core_comm_state_t *state,
                                 uint64_t token, int nranks, int rank,
                                 int64_t timeout_ms);
void host_segment_leave(host_comm_t *comm);

#endif
