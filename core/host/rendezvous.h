/* core/host — handing a communicator's segment from rank 0 to the other
 * ranks (rendezvous.c). */
#ifndef NCORE_CORE_HOST_RENDEZVOUS_H
#define NCORE_CORE_HOST_RENDEZVOUS_H

#include <stdint.h>
#include "comm.h"

/* Rank 0: listens on the abstract Unix socket named after token; on
 * failure *name_taken says whether another process holds the name. */
ncore_status_t host_rendezvous_listen(uint64_t token, int *listen_fd,
                                      int *name_taken);
/* Rank 0: answers every claim waiting on listen_fd (non-blocking): hands
 * segment_fd (-1 once every rank joined) to the first claimant of each
 * rank, and refuses the rest — a second claimant, a latecomer, another
 * nranks — failing comm (INVALID_USAGE, published) with why.
 * Connections from other users get nothing. */
void host_rendezvous_serve(host_comm_t *comm, int listen_fd, int segment_fd);
/* Other ranks: claims rank of nranks and fetches the segment's file from
 * rank 0, checking that rank 0 and the file belong to this user; waits up
 * to timeout_ms (-1 forever). A refusal is rank 0's status and reason
 * (INVALID_USAGE, or INVALID_ARGUMENT naming nranks). */
ncore_status_t host_rendezvous_fetch(uint64_t token, int rank, int nranks,
                                     int64_t timeout_ms, int *segment_fd);
/* Rank 0 whose name was taken: claims rank 0 of the communicator holding
 * it (which refuses, and fails itself: its id is used twice), waiting at
 * most 2 s for an answer. Returns the refusal as an error, or another
 * error saying why none came. */
ncore_status_t host_rendezvous_claim_taken(uint64_t token, int nranks,
                                           int64_t timeout_ms);

#endif
