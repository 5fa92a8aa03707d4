/* core/host — waiting: spin with a pause instruction, then yield, then
 * short sleeps, checking the local abort flag, peers' aborts and deaths,
 * and the timeout (wait.c). */
#ifndef NCORE_CORE_HOST_WAIT_H
#define NCORE_CORE_HOST_WAIT_H

#include <stdint.h>
#include "../log.h"
#include "comm.h"

/* A wait in progress. Starting one costs nothing (no clock read): most
 * waits of a ping-pong end within a few polls, and each poll's cost is
 * latency the peer sees. */
typedef struct host_waiter {
  uint64_t start_ns, last_check_ns;  /* 0 until the first clock read */
  uint32_t spins;
  uint32_t notes;  /* "still waiting" lines logged (NCORE_DEBUG=INFO) */
  /* The WARN line after NCORE_WAIT_WARN_S without progress (core/log.h),
   * started with the first clock read. */
  core_wait_note_t note;
} host_waiter_t;
uint64_t host_now_ns(void);
void host_waiter_init(host_waiter_t *w);
/* One pause between polls; checks abort, peers and the timeout, and says
 * once (WARN, core_wait_note) what it waits for after NCORE_WAIT_WARN_S.
 * `what` names what is awaited, a format with at most one %d that `peer`
 * fills ("recv from peer %d"): formatted only for a message. NCORE_OK to
 * keep waiting. */
ncore_status_t host_waiter_pause(host_waiter_t *w, host_comm_t *c,
                                 const char *what, int peer);
/* Checks local abort, the communicator's recorded failure (ours or a
 * peer's) and aborted/dead peers of comm (no pause, no timeout). */
ncore_status_t host_comm_health(host_comm_t *comm, int check_locks);

#endif
