/* core — small TCP helpers for the id exchanges of launched jobs
 * (launch_tcp.c, launch_torch_store.c): whole writes and reads bounded by a
 * deadline, and connecting to host:port until it listens or the deadline
 * passes. Deadlines are CLOCK_MONOTONIC milliseconds; < 0: none. */
#ifndef NCORE_CORE_LAUNCH_SOCKET_H
#define NCORE_CORE_LAUNCH_SOCKET_H

#include <stddef.h>
#include <stdint.h>

#include <ncore.h>

/* Now, in CLOCK_MONOTONIC milliseconds. */
int64_t core_socket_now_ms(void);

/* Waits until fd is readable (or has an error to read); 0, or -1 when the
 * deadline passed first. */
int core_socket_wait_readable(int fd, int64_t deadline);

/* Writes all of data to fd; NCORE_OK or NCORE_ERR_REMOTE / _TIMEOUT
 * (recorded, naming what). */
ncore_status_t core_socket_write(int fd, const void *data, size_t len,
                                 int64_t deadline, const char *what);

/* Reads exactly len bytes; NCORE_ERR_REMOTE when the peer closes first. */
ncore_status_t core_socket_read(int fd, void *data, size_t len,
                                int64_t deadline, const char *what);

/* The address of fd's peer, "10.0.0.7:51234" or "[::1]:51234", into out
 * ("an unknown peer" when it cannot be read). */
void core_socket_peer_name(int fd, char *out, size_t cap);

/* One attempt at every address of host:port: 1 with *fd connected (the
 * caller closes it); 0 when nothing listens there yet (refused,
 * unreachable: worth another try); -1 when it cannot be done at all
 * (recorded: NCORE_ERR_INVALID_ARGUMENT when host does not resolve,
 * NCORE_ERR_SYSTEM otherwise, naming host:port and who was awaited). */
int core_socket_connect_once(const char *host, const char *port, const char *who,
                             int *fd);

/* Connects to host:port, retrying while nothing listens there, until the
 * deadline. *fd receives the socket (the caller closes it). The message
 * of a failure names host:port and what was awaited there (who). */
ncore_status_t core_socket_connect(const char *host, const char *port,
                                   int64_t deadline, const char *who, int *fd);

#endif
