/* core — which ranks of an id exchange are present on this machine, for a
 * launcher whose own wait cannot say (Hydra's PMI-1 barrier: every rank
 * waits for all, and what a rank puts before it stays in Hydra's proxy
 * until all arrive). Each rank holds an abstract Unix socket named for the
 * job, the call and its rank while it waits; a rank whose name nobody holds
 * is not in the exchange on this machine. Abstract names need no file and
 * vanish with their process; another user seeing or holding one learns or
 * changes nothing but this message. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "launch.h"

/* The name of rank's socket: job hashed (FNV-1a) to fit sun_path. */
static socklen_t presence_address(const char *job, uint64_t call, int rank,
                                  struct sockaddr_un *a) {
  uint64_t hash = 1469598103934665603ull;
  for (const char *c = job; *c; c++) hash = (hash ^ (unsigned char)*c) * 1099511628211ull;
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1,
                   "ncore-here-%016llx-%llu-%d", (unsigned long long)hash,
                   (unsigned long long)call, rank);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int core_launch_presence_enter(const char *job, uint64_t call, int rank) {
  struct sockaddr_un a;
  socklen_t len = presence_address(job, call, rank, &a);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && bind(fd, (struct sockaddr *)&a, len) != 0) {
    close(fd);
    fd = -1;
  }
  return fd;
}

void core_launch_presence_leave(int fd) {
  if (fd >= 0) close(fd);
}

int core_launch_presence_here(const char *job, uint64_t call, int rank) {
  struct sockaddr_un a;
  socklen_t len = presence_address(job, call, rank, &a);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 1; /* cannot tell: do not blame the rank */
  /* The name is held exactly when it cannot be bound again. */
  int held = bind(fd, (struct sockaddr *)&a, len) != 0;
  close(fd);
  return held;
}
