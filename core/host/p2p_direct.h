/* core/host — the one-copy path of large messages (p2p_direct.c). */
#ifndef NCORE_CORE_HOST_P2P_DIRECT_H
#define NCORE_CORE_HOST_P2P_DIRECT_H

#include "comm.h"
#include "op.h"

/* Messages from this size up take the one-copy path when the receiver may
 * read the send buffer (p2p_direct.c); smaller ones go through the ring,
 * where a send returns as soon as its bytes are in it. */
#define HOST_DIRECT_MIN ((size_t)32 * 1024)

/* Sender, when its op is made: 1 if the message takes the one-copy path
 * (large enough, and its buffer readable by the peer: memory of the same
 * process or an ncore_mem_alloc allocation), with op->direct_desc filled. */
int host_direct_offer(host_op_t *op);
/* Sender: makes the offer visible (before the ring's head shows its
 * descriptor). */
void host_direct_publish(host_op_t *op);
/* Sender: 1 when the receiver copied the message, -1 when it refused the
 * offer (the payload then goes through the ring), 0 while neither. */
int host_direct_sent(host_op_t *op);
/* Sender giving up (or done): takes an open offer back, so that a receiver
 * copying meanwhile reports the message lost. No-op without one. */
void host_direct_withdraw(host_op_t *op);
/* Receiver, after the descriptor d was read from the ring: copies the
 * message into op->buf and returns 1; returns 0 when the buffer cannot be
 * reached (the offer was refused: the payload follows in the ring); -1
 * with op->status set when the sender withdrew or the offer is corrupt. */
int host_direct_receive(host_op_t *op, const host_direct_desc_t *d);
/* Unmaps the receiver's cache of senders' registered ranges. */
void host_direct_maps_free(host_comm_t *comm);

#endif
