/* core/host — a communicator's asynchronous error: the first failure a
 * rank sees ends the communicator, recorded for ncore_comm_async_error
 * and, unless every rank sees it for itself, published to the peers
 * (failure.c). */
#ifndef NCORE_CORE_HOST_FAILURE_H
#define NCORE_CORE_HOST_FAILURE_H

#include <stddef.h>
#include <stdint.h>
#include "comm.h"

/* Records status as this rank's failure (first one wins, with the message
 * formatted here) and publishes it to the peers through the state word, so
 * that their later calls fail the same way. CLOSED (a local abort) is not
 * published: peers see the abort flag. */
void host_comm_fail(host_comm_t *comm, ncore_status_t status, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));
/* Records status as host_comm_fail does, without publishing it: for what
 * every rank sees for itself (a dead or aborted peer, a published failure). */
void host_comm_note(host_comm_t *comm, ncore_status_t status, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));
/* Records the thread's current error: host_comm_note for REMOTE (what the
 * waits saw of a peer), host_comm_fail for anything else. */
void host_comm_fail_current(host_comm_t *comm, ncore_status_t status);
/* The message of this rank's recorded failure. */
const char *host_comm_failure_message(host_comm_t *comm);
/* Describes a failure word published by a peer, with the reason it wrote
 * in its slot, into out. */
void host_comm_peer_failure(host_comm_t *comm, uint64_t failure, char *out,
                            size_t size);

#endif
