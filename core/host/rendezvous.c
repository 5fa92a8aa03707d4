/* core/host — handing a communicator's segment (a memfd, which has no name)
 * from rank 0 to the other ranks: rank 0 listens on an abstract Unix socket
 * named after the unique id's token and passes the file descriptor
 * (SCM_RIGHTS), as NCCL passes cuMem handles (src/misc/ipcsocket.cc). Both
 * ends check the other's credentials (SO_PEERCRED): rank 0 gives the segment
 * only to processes of its own user, and a joiner takes it only from one. So
 * another local user can at most occupy the name (the init then fails
 * loudly), never read or write a communicator's memory. The name exists only
 * while rank 0 waits for the others to join. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "../error.h"
#include "../log.h"
#include "host.h"

/* Sent with the descriptor, so a joiner knows what it received. */
static const char greeting[8] = {'N', 'C', 'O', 'R', 'E', 'S', 'E', 'G'};

/* The abstract address of token's rendezvous; returns its length. */
static socklen_t rendezvous_address(uint64_t token, struct sockaddr_un *a) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  /* sun_path[0] stays 0: the abstract namespace, no file anywhere. */
  int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "ncore-%016llx",
                   (unsigned long long)token);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* The effective uid of the process at the other end of fd; -1 if unknown. */
static long long peer_uid(int fd) {
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
  return (long long)cred.uid;
}

ncore_status_t host_rendezvous_listen(uint64_t token, int *listen_fd) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return core_error(NCORE_ERR_SYSTEM, "socket: %s", strerror(errno));
  struct sockaddr_un a;
  socklen_t len = rendezvous_address(token, &a);
  if (bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, SOMAXCONN) != 0) {
    int e = errno;
    close(fd);
    if (e == EADDRINUSE)
      return core_error(NCORE_ERR_SYSTEM,
                        "id: another communicator is being created from this "
                        "unique id (its rendezvous name @%s is taken)",
                        a.sun_path + 1);
    return core_error(NCORE_ERR_SYSTEM, "rendezvous socket @%s: %s",
                      a.sun_path + 1, strerror(e));
  }
  *listen_fd = fd;
  return NCORE_OK;
}

/* Sends the greeting and segment_fd over conn. */
static void send_segment(int conn, int segment_fd) {
  char control[CMSG_SPACE(sizeof(int))];
  memset(control, 0, sizeof control);
  struct iovec iov = {(void *)greeting, sizeof greeting};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &segment_fd, sizeof(int));
  /* A joiner that gave up meanwhile is no concern of ours. */
  ssize_t n = sendmsg(conn, &msg, MSG_NOSIGNAL);
  (void)n;
}

void host_rendezvous_serve(int listen_fd, int segment_fd) {
  for (;;) {
    int conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (conn < 0) return;  /* nobody (else) waiting */
    if (peer_uid(conn) == (long long)geteuid()) send_segment(conn, segment_fd);
    close(conn);
  }
}

static uint64_t elapsed_ms(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)(now.tv_sec - start->tv_sec) * 1000u +
         (uint64_t)((now.tv_nsec - start->tv_nsec) / 1000000);
}

/* Receives the segment over a connected conn (rank 0 already checked). */
static ncore_status_t receive_segment(int conn, const struct timespec *start,
                                      int64_t timeout_ms, int *segment_fd) {
  long long uid = peer_uid(conn);
  if (uid != (long long)geteuid())
    return core_error(NCORE_ERR_SYSTEM,
                      "id: the rendezvous of this unique id is held by uid "
                      "%lld, not by this user (%u): refusing its segment",
                      uid, (unsigned)geteuid());
  for (;;) {
    int wait_ms = -1;
    if (timeout_ms >= 0) {
      uint64_t gone = elapsed_ms(start);
      if (gone >= (uint64_t)timeout_ms)
        return core_error(NCORE_ERR_TIMEOUT,
                          "rank 0 did not hand over the communicator within "
                          "%lld ms", (long long)timeout_ms);
      wait_ms = (int)((uint64_t)timeout_ms - gone);
    }
    struct pollfd p = {conn, POLLIN, 0};
    int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0)
      return core_error(NCORE_ERR_SYSTEM, "poll: %s", strerror(errno));
    if (ready > 0) break;
  }
  char got[sizeof greeting];
  char control[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {got, sizeof got};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
  int fd = -1;
  struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
  if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
      cm->cmsg_len == CMSG_LEN(sizeof(int)))
    memcpy(&fd, CMSG_DATA(cm), sizeof(int));
  if (n != (ssize_t)sizeof greeting || memcmp(got, greeting, sizeof got) != 0 ||
      fd < 0 || (msg.msg_flags & MSG_CTRUNC)) {
    if (fd >= 0) close(fd);
    return core_error(NCORE_ERR_REMOTE,
                      "rank 0 ended the rendezvous without handing over the "
                      "communicator");
  }
  *segment_fd = fd;
  return NCORE_OK;
}

ncore_status_t host_rendezvous_fetch(uint64_t token, int64_t timeout_ms,
                                     int *segment_fd) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  struct sockaddr_un a;
  socklen_t len = rendezvous_address(token, &a);
  uint64_t next_note_ms = 5000;
  for (;;) {
    int conn = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (conn < 0)
      return core_error(NCORE_ERR_SYSTEM, "socket: %s", strerror(errno));
    if (connect(conn, (struct sockaddr *)&a, len) == 0) {
      ncore_status_t s = receive_segment(conn, &start, timeout_ms, segment_fd);
      close(conn);
      return s;
    }
    int e = errno;
    close(conn);
    /* Not listening yet (or its queue is full): rank 0 may still come. */
    if (e != ECONNREFUSED && e != ENOENT && e != EAGAIN && e != EINTR)
      return core_error(NCORE_ERR_SYSTEM, "connecting to rank 0 (@%s): %s",
                        a.sun_path + 1, strerror(e));
    uint64_t waited = elapsed_ms(&start);
    if (timeout_ms >= 0 && waited > (uint64_t)timeout_ms)
      return core_error(NCORE_ERR_TIMEOUT,
                        "rank 0 did not create the communicator within %lld ms: "
                        "no rank 0 of this unique id runs on this machine (was "
                        "it started, and given the same unique id?)",
                        (long long)timeout_ms);
    if (waited >= next_note_ms) {
      core_log(CORE_LOG_INFO, "still waiting after %llu s for rank 0 of this "
               "unique id to create the communicator (@%s)",
               (unsigned long long)(waited / 1000), a.sun_path + 1);
      next_note_ms += 5000;
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}
