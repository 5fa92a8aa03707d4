/* core/launcher — MASTER_PORT: a port no other socket is given before
 * rank 0 binds it (master_port.h says why). */
#include "master_port.h"

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

/* Ports below this are services' (and need privileges to bind). */
#define LOWEST_PORT 1024
/* How many drawn ports are tried before the kernel picks one. */
#define DRAWS 64

/* [*lo, *hi], the ports the kernel hands out by itself; Linux's default
 * where the file cannot be read. */
static void kernel_range(int *lo, int *hi) {
  *lo = 32768;
  *hi = 60999;
  FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
  if (f == NULL) return;
  int a = 0, b = 0;
  if (fscanf(f, "%d %d", &a, &b) == 2 && 0 < a && a <= b && b <= 65535) {
    *lo = a;
    *hi = b;
  }
  fclose(f);
}

/* Whether port is free on every address: no socket bound to it, listening
 * or connected, and no connection of it in TIME_WAIT (a bind without
 * SO_REUSEADDR fails on each). */
static int port_is_free(int port) {
  struct sockaddr_in6 any6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
                              .sin6_addr = IN6ADDR_ANY_INIT};
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    int zero = 0; /* IPv4 on the same socket */
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    int bound = bind(fd, (struct sockaddr *)&any6, sizeof any6) == 0;
    close(fd);
    return bound;
  }
  struct sockaddr_in any4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_ANY)};
  fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  int bound = bind(fd, (struct sockaddr *)&any4, sizeof any4) == 0;
  close(fd);
  return bound;
}

/* A port the kernel picks on loopback, free now; 29500 (torchrun's
 * default) if even that fails. */
static int kernel_pick(void) {
  int port = 29500;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
      getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) close(fd);
  return port;
}

void launcher_choose_master_port(char *out, size_t size) {
  const char *given = getenv("MASTER_PORT");
  if (given != NULL && *given != '\0') {
    snprintf(out, size, "%s", given);
    return;
  }
  int lo = 0, hi = 0;
  kernel_range(&lo, &hi);
  /* Below the range: its upper half only, away from the fixed ports of
   * services (databases, web servers) lower down. Above it: all of it. */
  int below_first = lo / 2 > LOWEST_PORT ? lo / 2 : LOWEST_PORT;
  int below = lo - below_first > 0 ? lo - below_first : 0;
  int above = 65535 - hi > 0 ? 65535 - hi : 0;
  uint32_t draws[DRAWS];
  if (below + above > 0 && getrandom(draws, sizeof draws, 0) == (ssize_t)sizeof draws) {
    for (int i = 0; i < DRAWS; i++) {
      int k = (int)(draws[i] % (uint32_t)(below + above));
      int port = k < below ? below_first + k : hi + 1 + (k - below);
      if (port_is_free(port)) {
        snprintf(out, size, "%d", port);
        return;
      }
    }
  }
  snprintf(out, size, "%d", kernel_pick());
}
