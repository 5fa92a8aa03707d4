/* core — TCP helpers of the launched jobs' id exchanges (launch_socket.h). */
#include "launch_socket.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "log.h"

int64_t core_socket_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for events; 0, or -1 at the deadline. */
static int wait_ready(int fd, short events, int64_t deadline) {
  for (;;) {
    int wait = -1;
    if (deadline >= 0) {
      int64_t left = deadline - core_socket_now_ms();
      if (left <= 0) return -1;
      wait = (int)left;
    }
    struct pollfd p = {fd, events, 0};
    int n = poll(&p, 1, wait);
    if (n > 0) return 0;
    if (n < 0 && errno != EINTR) return 0; /* the read or write says why */
  }
}

int core_socket_wait_readable(int fd, int64_t deadline) {
  return wait_ready(fd, POLLIN, deadline);
}

ncore_status_t core_socket_write(int fd, const void *data, size_t len,
                                 int64_t deadline, const char *what) {
  const char *at = data;
  while (len > 0) {
    if (wait_ready(fd, POLLOUT, deadline) != 0)
      return core_error(NCORE_ERR_TIMEOUT, "%s: sending timed out", what);
    ssize_t n = send(fd, at, len, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0)
      return core_error(NCORE_ERR_REMOTE, "%s: %s", what, strerror(errno));
    at += n;
    len -= (size_t)n;
  }
  return NCORE_OK;
}

ncore_status_t core_socket_read(int fd, void *data, size_t len,
                                int64_t deadline, const char *what) {
  char *at = data;
  while (len > 0) {
    if (wait_ready(fd, POLLIN, deadline) != 0)
      return core_error(NCORE_ERR_TIMEOUT, "%s: no answer in time", what);
    ssize_t n = recv(fd, at, len, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n == 0)
      return core_error(NCORE_ERR_REMOTE, "%s: the peer closed the connection",
                        what);
    if (n < 0) return core_error(NCORE_ERR_REMOTE, "%s: %s", what, strerror(errno));
    at += n;
    len -= (size_t)n;
  }
  return NCORE_OK;
}

/* One attempt at every address of host:port; the socket, or -1 with errno. */
static int connect_once(const char *host, const char *port, int *resolve_error) {
  struct addrinfo hints, *list = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  *resolve_error = getaddrinfo(host, port, &hints, &list);
  if (*resolve_error != 0) return -1;
  int fd = -1, saved = ECONNREFUSED;
  for (struct addrinfo *a = list; a != NULL && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      saved = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(list);
  if (fd >= 0) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  errno = saved;
  return fd;
}

ncore_status_t core_socket_connect(const char *host, const char *port,
                                   int64_t deadline, const char *who, int *fd) {
  int64_t start = core_socket_now_ms(), next_note = start + 5000;
  for (;;) {
    int resolve_error = 0;
    *fd = connect_once(host, port, &resolve_error);
    if (*fd >= 0) return NCORE_OK;
    if (resolve_error != 0 && resolve_error != EAI_AGAIN)
      return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s:%s: cannot resolve %s: %s",
                        host, port, host, gai_strerror(resolve_error));
    if (resolve_error == 0 && errno != ECONNREFUSED && errno != ETIMEDOUT &&
        errno != EHOSTUNREACH && errno != ENETUNREACH && errno != EINTR)
      return core_error(NCORE_ERR_SYSTEM, "connecting to %s:%s (%s): %s", host,
                        port, who, strerror(errno));
    int64_t now = core_socket_now_ms();
    if (deadline >= 0 && now >= deadline)
      return core_error(NCORE_ERR_TIMEOUT,
                        "%s did not listen at %s:%s within %lld ms", who, host,
                        port, (long long)(now - start));
    if (now >= next_note) {
      core_log(CORE_LOG_INFO, "still waiting for %s to listen at %s:%s (%lld s)",
               who, host, port, (long long)((now - start) / 1000));
      next_note = now + 5000;
    }
    struct timespec pause = {0, 50 * 1000000L};
    nanosleep(&pause, NULL);
  }
}
