/* core — TCP helpers of the launched jobs' id exchanges (launch_socket.h). */
#include "launch_socket.h"

#include <arpa/inet.h>
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

void core_socket_peer_name(int fd, char *out, size_t cap) {
  struct sockaddr_storage a;
  socklen_t len = sizeof a;
  char text[INET6_ADDRSTRLEN] = "";
  snprintf(out, cap, "an unknown peer");
  if (getpeername(fd, (struct sockaddr *)&a, &len) != 0) return;
  if (a.ss_family == AF_INET) {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)&a;
    if (inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text))
      snprintf(out, cap, "%s:%u", text, (unsigned)ntohs(v4->sin_port));
  } else if (a.ss_family == AF_INET6) {
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&a;
    if (inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text))
      snprintf(out, cap, "[%s]:%u", text, (unsigned)ntohs(v6->sin6_port));
  }
}

/* How long one address may take to accept a connection: a host that
 * drops packets would otherwise hold connect() for the kernel's minutes. */
#define CONNECT_MS 2000

/* Connects fd (non-blocking) to address within CONNECT_MS; 0, or -1 with
 * errno. */
static int connect_bounded(int fd, const struct sockaddr *address, socklen_t len) {
  if (connect(fd, address, len) == 0) return 0;
  if (errno != EINPROGRESS) return -1;
  if (wait_ready(fd, POLLOUT, core_socket_now_ms() + CONNECT_MS) != 0) {
    errno = ETIMEDOUT;
    return -1;
  }
  int error = 0;
  socklen_t size = sizeof error;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) return -1;
  errno = error;
  return error == 0 ? 0 : -1;
}

/* One attempt at every address of host:port; the socket (non-blocking),
 * or -1 with errno. */
static int connect_once(const char *host, const char *port, int *resolve_error) {
  struct addrinfo hints, *list = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  *resolve_error = getaddrinfo(host, port, &hints, &list);
  if (*resolve_error != 0) return -1;
  int fd = -1, saved = ECONNREFUSED;
  for (struct addrinfo *a = list; a != NULL && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                a->ai_protocol);
    if (fd < 0) continue;
    if (connect_bounded(fd, a->ai_addr, a->ai_addrlen) != 0) {
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

int core_socket_connect_once(const char *host, const char *port, const char *who,
                             int *fd) {
  int resolve_error = 0;
  *fd = connect_once(host, port, &resolve_error);
  if (*fd >= 0) return 1;
  if (resolve_error != 0 && resolve_error != EAI_AGAIN) {
    core_error(NCORE_ERR_INVALID_ARGUMENT, "%s:%s: cannot resolve %s: %s", host,
               port, host, gai_strerror(resolve_error));
    return -1;
  }
  if (resolve_error == 0 && errno != ECONNREFUSED && errno != ETIMEDOUT &&
      errno != EHOSTUNREACH && errno != ENETUNREACH && errno != EINTR) {
    core_error(NCORE_ERR_SYSTEM, "connecting to %s:%s (%s): %s", host, port, who,
               strerror(errno));
    return -1;
  }
  return 0;
}

ncore_status_t core_socket_connect(const char *host, const char *port,
                                   int64_t deadline, const char *who, int *fd) {
  int64_t start = core_socket_now_ms(), next_note = start + 5000;
  for (;;) {
    int got = core_socket_connect_once(host, port, who, fd);
    if (got > 0) return NCORE_OK;
    if (got < 0) return core_error_current();
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
