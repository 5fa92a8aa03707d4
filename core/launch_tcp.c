/* core — the unique id at MASTER_ADDR:MASTER_PORT, torchrun's rendezvous
 * address. When torchrun's agent keeps its TCPStore there
 * (TORCHELASTIC_USE_AGENT_STORE=True: torchrun's static rendezvous, and
 * every rendezvous of torch >= 2.4) the id goes through that store
 * (launch_torch_store.c). Otherwise the port is free for the job (torch's
 * own init_process_group would have rank 0 listen there too), and ncore's
 * rank 0 serves the id there itself until every rank has it:
 *   rank r -> rank 0:  "NCOREID?" u32 rank, u32 nranks, u64 call
 *   rank 0 -> rank r:  "NCOREID!" u32 nranks, u64 call, 128 bytes id
 * (little-endian). Each side checks the other's nranks and call count, so
 * ranks of different sizes, or that called ncore_comm_init_from_env a
 * different number of times, are told so. The clients close first, so the
 * port is left without TIME_WAIT for whoever listens on it next. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "error.h"
#include "launch.h"
#include "launch_socket.h"
#include "log.h"

#define ASK_MAGIC "NCOREID?"
#define ANSWER_MAGIC "NCOREID!"

typedef struct __attribute__((packed)) ask {
  char magic[8];
  uint32_t rank, nranks;
  uint64_t call;
} ask_t;

typedef struct __attribute__((packed)) answer {
  char magic[8];
  uint32_t nranks;
  uint64_t call;
  char id[NCORE_UNIQUE_ID_BYTES];
} answer_t;

ncore_status_t core_launch_tcp_listen(const char *port, int *out, int *bound) {
  int number = atoi(port);
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int one = 1, zero = 0;
  if (fd >= 0) {
    struct sockaddr_in6 a6;
    memset(&a6, 0, sizeof a6);
    a6.sin6_family = AF_INET6;
    a6.sin6_port = htons((uint16_t)number);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(fd, (struct sockaddr *)&a6, sizeof a6) != 0) {
      close(fd);
      fd = -1;
    }
  }
  if (fd < 0) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in a4;
    memset(&a4, 0, sizeof a4);
    a4.sin_family = AF_INET;
    a4.sin_port = htons((uint16_t)number);
    a4.sin_addr.s_addr = htonl(INADDR_ANY);
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a4, sizeof a4) != 0) {
      int e = errno;
      if (fd >= 0) close(fd);
      return core_error(NCORE_ERR_SYSTEM,
                        "MASTER_PORT: rank 0 cannot listen on port %s to hand "
                        "out the unique id: %s%s", port, strerror(e),
                        e == EADDRINUSE ? " (something else holds it; torchrun's "
                        "agent store sets TORCHELASTIC_USE_AGENT_STORE=True)" : "");
    }
  }
  if (listen(fd, SOMAXCONN) != 0) {
    int e = errno;
    close(fd);
    return core_error(NCORE_ERR_SYSTEM, "listen on port %s: %s", port, strerror(e));
  }
  struct sockaddr_storage a;
  socklen_t len = sizeof a;
  *bound = number;
  if (getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    *bound = ntohs(a.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port
                                           : ((struct sockaddr_in *)&a)->sin_port);
  *out = fd;
  return NCORE_OK;
}

/* Answers one rank on conn; sets *served_rank to the rank it served. */
static ncore_status_t serve_one(int conn, const core_launch_t *launch,
                                uint64_t call, const ncore_unique_id_t *id,
                                int64_t deadline, int *served_rank) {
  ask_t ask;
  ncore_status_t s = core_socket_read(conn, &ask, sizeof ask, deadline,
                                      "a rank asking for the unique id");
  if (s != NCORE_OK) return s;
  if (memcmp(ask.magic, ASK_MAGIC, 8) != 0) return NCORE_ERR_REMOTE; /* not ours */
  answer_t answer;
  memcpy(answer.magic, ANSWER_MAGIC, 8);
  answer.nranks = (uint32_t)launch->nranks;
  answer.call = call;
  memcpy(answer.id, id->internal, sizeof answer.id);
  s = core_socket_write(conn, &answer, sizeof answer, deadline, "the unique id");
  char byte;
  /* Its close: it has the id (and TIME_WAIT stays on its side). */
  if (s == NCORE_OK) (void)core_socket_read(conn, &byte, 1, deadline, "rank");
  if (ask.nranks != (uint32_t)launch->nranks || ask.call != call)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "rank %u joined with %u ranks and init_from_env call %llu, "
                      "this rank 0 with %d and %llu: the ranks disagree",
                      ask.rank, ask.nranks, (unsigned long long)ask.call,
                      launch->nranks, (unsigned long long)call);
  *served_rank = (int)ask.rank;
  return s;
}

/* The ranks not yet served, as "1, 3" into out. */
static void missing_ranks(const unsigned char *served, int n, char *out, size_t cap) {
  size_t used = 0;
  out[0] = '\0';
  for (int r = 1; r < n && used + 16 < cap; r++)
    if (!served[r]) used += (size_t)snprintf(out + used, cap - used, "%s%d",
                                             used ? ", " : "", r);
}

ncore_status_t core_launch_tcp_serve(const core_launch_t *launch, int fd,
                                     const char *port, uint64_t call,
                                     const ncore_unique_id_t *id,
                                     int64_t deadline) {
  ncore_status_t s = NCORE_OK;
  unsigned char *served = calloc((size_t)launch->nranks, 1);
  if (served == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  int left = launch->nranks - 1;
  int64_t next_note = core_socket_now_ms() + 5000;
  char missing[256];
  while (left > 0 && s == NCORE_OK) {
    int64_t now = core_socket_now_ms();
    int64_t slice = deadline < 0 || deadline - now > 1000 ? now + 1000 : deadline;
    /* The listening socket is readable: a rank is connecting. */
    (void)core_socket_wait_readable(fd, slice);
    int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (conn >= 0) {
      int rank = -1;
      ncore_status_t one = serve_one(conn, launch, call, id, deadline, &rank);
      close(conn);
      if (one == NCORE_ERR_INVALID_ARGUMENT) s = one;
      if (one == NCORE_OK && rank > 0 && rank < launch->nranks && !served[rank]) {
        served[rank] = 1;
        left--;
      }
      continue;
    }
    now = core_socket_now_ms();
    missing_ranks(served, launch->nranks, missing, sizeof missing);
    if (deadline >= 0 && now >= deadline)
      s = core_error(NCORE_ERR_TIMEOUT, "ranks %s never asked rank 0 for the "
                     "unique id at port %s (not started, or started with "
                     "another MASTER_ADDR:MASTER_PORT?)", missing, port);
    else if (now >= next_note) {
      core_log(CORE_LOG_INFO, "rank 0 still waits for ranks %s to fetch the "
               "unique id at port %s", missing, port);
      next_note = now + 5000;
    }
  }
  free(served);
  return s;
}

ncore_status_t core_launch_tcp_fetch(const core_launch_t *launch,
                                     const char *host, const char *port,
                                     uint64_t call, int64_t deadline,
                                     ncore_unique_id_t *id) {
  int fd = -1;
  ncore_status_t s = core_socket_connect(host, port, deadline,
                                         "rank 0 (handing out the unique id)", &fd);
  if (s != NCORE_OK) return s;
  ask_t ask;
  memcpy(ask.magic, ASK_MAGIC, 8);
  ask.rank = (uint32_t)launch->rank;
  ask.nranks = (uint32_t)launch->nranks;
  ask.call = call;
  answer_t answer;
  s = core_socket_write(fd, &ask, sizeof ask, deadline, "asking rank 0 for the id");
  if (s == NCORE_OK)
    s = core_socket_read(fd, &answer, sizeof answer, deadline,
                         "rank 0's unique id");
  close(fd);
  if (s != NCORE_OK) return s;
  if (memcmp(answer.magic, ANSWER_MAGIC, 8) != 0)
    return core_error(NCORE_ERR_REMOTE, "%s:%s answered, but not as ncore's rank 0 "
                      "(is torchrun's agent store there? it sets "
                      "TORCHELASTIC_USE_AGENT_STORE=True)", host, port);
  if (answer.nranks != (uint32_t)launch->nranks || answer.call != call)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "rank 0 joined with %u ranks and init_from_env call %llu, "
                      "this rank with %d and %llu: the ranks disagree",
                      answer.nranks, (unsigned long long)answer.call,
                      launch->nranks, (unsigned long long)call);
  memcpy(id->internal, answer.id, sizeof answer.id);
  return NCORE_OK;
}

ncore_status_t core_launch_tcp_share(const core_launch_t *launch,
                                     uint64_t call, int64_t timeout_ms,
                                     ncore_unique_id_t *id) {
  const char *host = getenv("MASTER_ADDR"), *port = getenv("MASTER_PORT");
  if (host == NULL || *host == '\0' || port == NULL || atoi(port) <= 0 ||
      atoi(port) > 65535)
    return core_error(NCORE_ERR_UNAVAILABLE,
                      "%s: RANK and WORLD_SIZE are set but MASTER_ADDR (%s) and "
                      "MASTER_PORT (%s) do not name where rank 0's unique id "
                      "can be had", launch->launcher, host ? host : "unset",
                      port ? port : "unset");
  int64_t deadline = timeout_ms < 0 ? -1 : core_socket_now_ms() + timeout_ms;
  const char *agent = getenv("TORCHELASTIC_USE_AGENT_STORE");
  if (agent != NULL && strcmp(agent, "True") == 0) {
    char key[64];
    snprintf(key, sizeof key, "ncore.uid.%llu", (unsigned long long)call);
    return core_launch_torch_store_share(launch, host, port, key, timeout_ms, id);
  }
  if (launch->rank != 0)
    return core_launch_tcp_fetch(launch, host, port, call, deadline, id);
  int fd = -1, bound = 0;
  ncore_status_t s = core_launch_tcp_listen(port, &fd, &bound);
  if (s != NCORE_OK) return s;
  s = core_launch_tcp_serve(launch, fd, port, call, id, deadline);
  close(fd);
  return s;
}
