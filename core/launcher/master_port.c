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

/* Binds a new socket of family to address, then closes it: 1 if the bind
 * succeeded (with *port the port bound, when port is not NULL), 0 if it
 * failed, -1 if the family has no sockets here. IPv6 sockets take IPv4
 * too, so "::" is every address of both. */
static int bind_once(int family, const struct sockaddr *address, socklen_t len, int *port) {
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int zero = 0;
  if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  struct sockaddr_storage bound;
  socklen_t bound_len = sizeof bound;
  int ok = bind(fd, address, len) == 0 &&
           (port == NULL || getsockname(fd, (struct sockaddr *)&bound, &bound_len) == 0);
  if (ok && port != NULL) *port = ntohs(((struct sockaddr_in *)&bound)->sin_port);
  close(fd);
  return ok;
}

/* Whether port is free on every address: no socket bound to it, listening
 * or connected, and no connection of it in TIME_WAIT (a bind without
 * SO_REUSEADDR fails on each). */
static int port_is_free(int port) {
  struct sockaddr_in6 any6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
                              .sin6_addr = IN6ADDR_ANY_INIT};
  int free6 = bind_once(AF_INET6, (struct sockaddr *)&any6, sizeof any6, NULL);
  if (free6 >= 0) return free6;
  struct sockaddr_in any4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_ANY)};
  return bind_once(AF_INET, (struct sockaddr *)&any4, sizeof any4, NULL) == 1;
}

/* A port the kernel picks on loopback, free now; 29500 (torchrun's
 * default) if even that fails. */
static int kernel_pick(void) {
  struct sockaddr_in loopback = {.sin_family = AF_INET,
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int port = 29500;
  bind_once(AF_INET, (struct sockaddr *)&loopback, sizeof loopback, &port);
  return port;
}

int launcher_draw_free_port(void) {
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
      if (port_is_free(port)) return port;
    }
  }
  return kernel_pick();
}

void launcher_choose_master_port(char *out, size_t size) {
  const char *given = getenv("MASTER_PORT");
  if (given != NULL && *given != '\0') {
    snprintf(out, size, "%s", given);
    return;
  }
  snprintf(out, size, "%d", launcher_draw_free_port());
}
