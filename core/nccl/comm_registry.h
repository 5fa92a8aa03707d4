/* core/nccl — the communicators of this process that are alive, so that
 * a fact about the process (a stream destroyed through ncore) reaches each
 * communicator that remembers it. */
#ifndef NCORE_CORE_NCCL_COMM_REGISTRY_H
#define NCORE_CORE_NCCL_COMM_REGISTRY_H

#include "comm.h"

/* Adds c (its allocation) or removes it (before it is freed). Out of
 * memory, add leaves c out and says so at WARN: destroying through ncore
 * a stream c used then leaves c naming a stale handle. */
void nccl_comm_registry_add(nccl_comm_t *c);
void nccl_comm_registry_remove(nccl_comm_t *c);

/* ncore_stream_destroy on the NCCL backend: every live communicator stops
 * naming the stream (peer_work.c, small_coll.c) and keeps, as an event,
 * what it still has to wait for on it; then the stream is destroyed
 * (nccl_stream_destroy). Statuses: nccl_stream_destroy's. */
ncore_status_t nccl_comm_registry_stream_destroy(ncore_stream_t stream);

#endif
