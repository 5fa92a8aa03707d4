/* core — the unique id at MASTER_ADDR:MASTER_PORT, torchrun's rendezvous
 * address, and ncore's store there: binding it, and a rank's side of it.
 *
 * Which store holds the id:
 *  - torchrun's agent keeps its TCPStore there
 *    (TORCHELASTIC_USE_AGENT_STORE=True: the static rendezvous, and every
 *    rendezvous of torch >= 2.4): the id goes through that store, sealed
 *    with the job's secret (launch_torch_store.c);
 *  - otherwise ncore's rank 0 binds MASTER_ADDR's address at MASTER_PORT
 *    and serves the id itself until every rank has it
 *    (launch_tcp_serve.c), to the ranks that prove the job's secret
 *    (launch_secret.h, launch_tcp_wire.h);
 *  - unless the port is already held by a torch TCPStore — torch's
 *    init_process_group ran first, under torchrun --standalone or by hand
 *    — which then serves as the agent's does: rank 0 finds the port taken
 *    and asks who holds it, the others find a listener that does not
 *    greet as ncore's store does and ask whether it is torch's.
 * A rank fails at once only for what its own job's store proves (the
 * ranks disagree, its rank was claimed twice); what a stranger sends or
 * refuses it is remembered for the message of its timeout, and it asks
 * again. The clients close first, so the port is left without TIME_WAIT
 * for whoever listens on it next. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "launch.h"
#include "launch_socket.h"
#include "launch_tcp_wire.h"
#include "log.h"
#include "random_bytes.h"

/* A store greets at once: silence this long means the listener is not
 * ncore's store (a torch TCPStore never speaks first). */
#define GREETING_MS 1000
/* How long a rank waits for the answer to its ask before asking again. */
#define ANSWER_MS 5000
#define RETRY_PAUSE_MS 100

/* Binds one address; the socket, or -1 with errno. reuse: SO_REUSEADDR,
 * for a named port that earlier connections may have left in TIME_WAIT;
 * without it nobody else can bind the port while the socket is bound but
 * not listening (Linux lets two sockets share a port only when both set
 * it and neither listens). */
static int bind_one(int family, const struct sockaddr *address, socklen_t len,
                    int reuse) {
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int one = 1, zero = 0;
  if (reuse) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  /* Every interface: IPv6 and IPv4 on one socket. */
  if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  if (bind(fd, address, len) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

static int bound_port(int fd) {
  struct sockaddr_storage a;
  socklen_t len = sizeof a;
  if (getsockname(fd, (struct sockaddr *)&a, &len) != 0) return -1;
  return ntohs(a.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port
                                       : ((struct sockaddr_in *)&a)->sin_port);
}

/* Binds host (NULL: every interface) at port; 0 and *fd, or an errno (and
 * a resolution error in *resolve_error). */
static int bind_at(const char *host, int port, int reuse, int *fd,
                   int *resolve_error) {
  *resolve_error = 0;
  if (host == NULL) {
    struct sockaddr_in6 any6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
    struct sockaddr_in any4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                               .sin_addr.s_addr = htonl(INADDR_ANY)};
    *fd = bind_one(AF_INET6, (struct sockaddr *)&any6, sizeof any6, reuse);
    if (*fd < 0 && errno != EADDRINUSE)
      *fd = bind_one(AF_INET, (struct sockaddr *)&any4, sizeof any4, reuse);
    return *fd < 0 ? errno : 0;
  }
  struct addrinfo hints, *list = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  char number[16];
  snprintf(number, sizeof number, "%d", port);
  *resolve_error = getaddrinfo(host, number, &hints, &list);
  if (*resolve_error != 0) return EINVAL;
  int error = EADDRNOTAVAIL;
  *fd = -1;
  /* The first of host's addresses that is this host's; one in use is the
   * answer (someone holds the port there). */
  for (struct addrinfo *a = list; a != NULL && *fd < 0; a = a->ai_next) {
    *fd = bind_one(a->ai_family, a->ai_addr, a->ai_addrlen, reuse);
    if (*fd < 0 && error != EADDRINUSE) error = errno;
  }
  freeaddrinfo(list);
  return *fd < 0 ? error : 0;
}

/* The address the store binds: NCORE_STORE_BIND_ADDR when set ("*": every
 * interface, NULL), else host. */
static const char *bind_address(const char *host) {
  const char *chosen = getenv("NCORE_STORE_BIND_ADDR");
  if (chosen == NULL || chosen[0] == '\0') return host;
  return strcmp(chosen, "*") == 0 ? NULL : chosen;
}

/* Binds as core_launch_tcp_bind does; 0, or an errno (and a resolution
 * error in *resolve_error). */
static int bind_store(const char *host, const char *port, int *fd, int *bound,
                      int *resolve_error) {
  const char *address = bind_address(host);
  int number = atoi(port);
  int error = bind_at(address, number, number != 0, fd, resolve_error);
  if (error == 0 && number == 0) {
    /* A port the kernel chose is given back when the socket stops
     * listening; one named in bind is kept, so the socket keeps it
     * between exchanges: bind again, naming it (fresh: no TIME_WAIT to
     * reuse, and without SO_REUSEADDR nobody else can take it). */
    int chosen = bound_port(*fd);
    close(*fd);
    error = bind_at(address, chosen, 0, fd, resolve_error);
  }
  if (error == 0) *bound = bound_port(*fd);
  return error;
}

/* Why rank 0 could not bind or listen at host:port (error, and a
 * resolution error), recorded. */
static ncore_status_t bind_failed(const char *host, const char *port, int error,
                                  int resolve_error) {
  const char *address = bind_address(host);
  const char *variable = address == host ? "MASTER_ADDR" : "NCORE_STORE_BIND_ADDR";
  if (resolve_error != 0)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: rank 0 cannot resolve %s "
                      "to listen there: %s", variable, address,
                      gai_strerror(resolve_error));
  if (error == EADDRNOTAVAIL)
    return core_error(NCORE_ERR_INVALID_ARGUMENT, "%s: %s is no address of this "
                      "host, so rank 0 cannot listen there; run rank 0 where it "
                      "points, or set NCORE_STORE_BIND_ADDR to an address of this "
                      "host (\"*\": every interface)", variable, address);
  return core_error(NCORE_ERR_SYSTEM, "rank 0 cannot listen at %s:%s to hand out "
                    "the unique id: %s", address ? address : "*", port,
                    strerror(error));
}

ncore_status_t core_launch_tcp_bind(const char *host, const char *port, int *fd,
                                    int *bound) {
  int resolve_error = 0;
  int error = bind_store(host, port, fd, bound, &resolve_error);
  return error == 0 ? NCORE_OK : bind_failed(host, port, error, resolve_error);
}

/* ---- a rank's side ---- */

typedef enum attempt_result {
  ATTEMPT_GOT_ID,
  ATTEMPT_FAILED,   /* the job's own store refused: *failure recorded */
  ATTEMPT_AGAIN,    /* a stranger, a drop, a timeout: ask again */
  ATTEMPT_SILENT    /* a listener that does not greet: not ncore's store */
} attempt_result_t;

/* What a rank's fetch knows: who it is, and why the last attempt failed. */
typedef struct fetch {
  const core_launch_t *launch;
  const core_launch_secret_t *secret;
  const char *host, *port;
  uint64_t call;
  unsigned char claim[CORE_STORE_CLAIM_BYTES];
  char reason[512];
} fetch_t;

/* What is left of a deadline in ms: -1 for none, else 0 or more. */
static int64_t time_left(int64_t deadline) {
  if (deadline < 0) return -1;
  int64_t left = deadline - core_socket_now_ms();
  return left > 0 ? left : 0;
}

/* The earlier of the job's deadline and now + ms. */
static int64_t step_deadline(int64_t deadline, int ms) {
  int64_t step = core_socket_now_ms() + ms;
  return deadline >= 0 && deadline < step ? deadline : step;
}

/* The job a store's greeting names, for messages. */
static void greeting_job(const core_store_greeting_t *g, char *out, size_t cap) {
  char label[CORE_STORE_LABEL_BYTES + 1], name[CORE_STORE_NAME_BYTES + 1];
  core_store_text(g->label, sizeof g->label, label, sizeof label);
  core_store_text(g->name, sizeof g->name, name, sizeof name);
  if (name[0]) snprintf(out, cap, "job %s (%s)", label, name);
  else snprintf(out, cap, "job %s", label);
}

/* One conversation with the store on fd. */
static attempt_result_t attempt(fetch_t *f, int fd, int64_t deadline,
                                ncore_unique_id_t *id, ncore_status_t *failure) {
  core_store_greeting_t greeting;
  int64_t step = step_deadline(deadline, GREETING_MS);
  if (core_socket_wait_readable(fd, step) != 0) {
    /* Cut short by the job's deadline, it says nothing of the listener:
     * the reason of the attempts before stands. */
    if (step == deadline) return ATTEMPT_AGAIN;
    snprintf(f->reason, sizeof f->reason, "%s:%s accepted the connection but "
             "did not greet as ncore's store", f->host, f->port);
    return ATTEMPT_SILENT;
  }
  ncore_status_t s = core_socket_read(fd, &greeting, sizeof greeting, step,
                                      "rank 0's store");
  if (s != NCORE_OK || !core_store_greeting_valid(&greeting)) {
    snprintf(f->reason, sizeof f->reason, "%s:%s %s", f->host, f->port,
             s != NCORE_OK ? "closed the connection before greeting"
                           : "answered, but not as ncore's store");
    return ATTEMPT_AGAIN;
  }
  core_store_ask_t ask;
  core_store_answer_t answer;
  s = core_store_ask_make(f->secret, &greeting, f->launch->rank, f->launch->nranks,
                          f->call, f->claim, &ask);
  if (s != NCORE_OK) {
    *failure = s;
    return ATTEMPT_FAILED;
  }
  step = step_deadline(deadline, ANSWER_MS);
  s = core_socket_write(fd, &ask, sizeof ask, step, "asking rank 0's store");
  if (s == NCORE_OK)
    s = core_socket_read(fd, &answer, sizeof answer, step, "rank 0's store");
  char job[128], theirs[128];
  core_launch_secret_describe(f->secret, job, sizeof job);
  greeting_job(&greeting, theirs, sizeof theirs);
  if (s == NCORE_ERR_TIMEOUT && step == deadline) return ATTEMPT_AGAIN;
  if (s != NCORE_OK || !core_store_answer_valid(&answer)) {
    snprintf(f->reason, sizeof f->reason, "the store of %s at %s:%s %s", theirs,
             f->host, f->port, s != NCORE_OK ? "gave no answer" : "answered garbage");
    return ATTEMPT_AGAIN;
  }
  if (!core_store_answer_proven(f->secret, &greeting, &ask, &answer)) {
    /* Its message (a STRANGER answer's) is not believed: it could say
     * anything. What is known: it could not prove this job's secret. */
    snprintf(f->reason, sizeof f->reason, "MASTER_ADDR:MASTER_PORT %s:%s is the "
             "store of %s, which could not prove the secret of this rank's %s "
             "(two jobs share the port?)", f->host, f->port, theirs, job);
    return ATTEMPT_AGAIN;
  }
  /* From here on the store proved it is this job's: believed. */
  uint32_t nranks = le32toh(answer.nranks);
  uint64_t call = le64toh(answer.call);
  if (nranks != (uint32_t)f->launch->nranks || call != f->call) {
    *failure = core_error(NCORE_ERR_INVALID_ARGUMENT,
                          "rank 0 joined with %u ranks and init_from_env call %llu, "
                          "this rank with %d and %llu: the ranks disagree", nranks,
                          (unsigned long long)call, f->launch->nranks,
                          (unsigned long long)f->call);
    return ATTEMPT_FAILED;
  }
  if (le32toh(answer.verdict) != CORE_STORE_GIVEN) {
    char message[CORE_STORE_MESSAGE_BYTES];
    core_store_text(answer.message, sizeof answer.message, message, sizeof message);
    *failure = core_error(NCORE_ERR_INVALID_USAGE, "rank 0 refused this rank: %s",
                          message);
    return ATTEMPT_FAILED;
  }
  core_store_answer_unseal(f->secret, &greeting, &ask, &answer, id);
  return ATTEMPT_GOT_ID;
}

/* Asks host:port until the id comes, the job's store refuses, the
 * deadline passes, or (torch_found not NULL) the listener turns out to be
 * a torch TCPStore (*torch_found = 1, NCORE_OK, no id). */
static ncore_status_t fetch_id(fetch_t *f, int64_t deadline, ncore_unique_id_t *id,
                               int *torch_found) {
  ncore_status_t s = core_random_bytes(f->claim, sizeof f->claim);
  if (s != NCORE_OK) return s;
  snprintf(f->reason, sizeof f->reason, "nothing listened at %s:%s", f->host, f->port);
  int64_t start = core_socket_now_ms(), next_note = start + 5000;
  core_wait_note_t note;
  core_wait_note_start(&note, "ncore_comm_init_from_env");
  for (;;) {
    int fd = -1;
    int connected = core_socket_connect_once(f->host, f->port,
                                             "rank 0 (handing out the unique id)", &fd);
    if (connected < 0) return core_error_current();
    if (connected == 0)
      snprintf(f->reason, sizeof f->reason, "nothing listened at %s:%s", f->host,
               f->port);
    attempt_result_t result = ATTEMPT_AGAIN;
    ncore_status_t failure = NCORE_OK;
    if (fd >= 0) {
      result = attempt(f, fd, deadline, id, &failure);
      close(fd);
    }
    if (result == ATTEMPT_GOT_ID) return NCORE_OK;
    if (result == ATTEMPT_FAILED) return failure;
    if (result == ATTEMPT_SILENT && torch_found != NULL &&
        core_launch_torch_store_answers(f->host, f->port,
                                        step_deadline(deadline, 2 * GREETING_MS))) {
      *torch_found = 1;
      return NCORE_OK;
    }
    int64_t now = core_socket_now_ms();
    if (deadline >= 0 && now >= deadline)
      return core_error(NCORE_ERR_TIMEOUT, "rank 0's store at %s:%s gave this rank "
                        "no unique id within %lld ms: %s", f->host, f->port,
                        (long long)(now - start), f->reason);
    core_wait_note_check(&note, deadline, "rank 0's unique id from %s:%s (%s)",
                         f->host, f->port, f->reason);
    if (now >= next_note) {
      core_log(CORE_LOG_INFO, "still waiting for rank 0's unique id at %s:%s: %s",
               f->host, f->port, f->reason);
      next_note = now + 5000;
    }
    int64_t pause = deadline >= 0 && deadline - now < RETRY_PAUSE_MS
                        ? deadline - now : RETRY_PAUSE_MS;
    struct timespec ts = {0, (long)pause * 1000000L};
    nanosleep(&ts, NULL);
  }
}

ncore_status_t core_launch_tcp_fetch(const core_launch_t *launch,
                                     const core_launch_secret_t *secret,
                                     const char *host, const char *port,
                                     uint64_t call, int64_t deadline,
                                     ncore_unique_id_t *id) {
  fetch_t f = {.launch = launch, .secret = secret, .host = host, .port = port,
               .call = call};
  return fetch_id(&f, deadline, id, NULL);
}

/* ---- rank 0 at MASTER_PORT ---- */

typedef enum holder {
  HOLDER_GONE,      /* nothing listens (any more): try the port again */
  HOLDER_UNKNOWN,   /* something silent that is no torch TCPStore */
  HOLDER_THIS_JOB,  /* a store greeting as this job's */
  HOLDER_OTHER_JOB, /* another job's store */
  HOLDER_TORCH      /* a torch TCPStore */
} holder_t;

/* What one connection to host:port shows of its holder: a store's
 * greeting (its job into job), a close or reset (gone), or silence for
 * GREETING_MS, then a torch TCPStore or HOLDER_UNKNOWN. */
static holder_t holder_seen_once(const char *host, const char *port, int64_t deadline,
                                 const core_launch_secret_t *secret, char *job,
                                 size_t cap) {
  int fd = -1;
  int64_t step = step_deadline(deadline, GREETING_MS);
  if (core_socket_connect_once(host, port, "the port's holder", &fd) <= 0)
    return HOLDER_GONE;
  core_store_greeting_t greeting;
  int spoke = core_socket_wait_readable(fd, step) == 0;
  int greeted = spoke &&
                core_socket_read(fd, &greeting, sizeof greeting, step,
                                 "the port's holder") == NCORE_OK &&
                core_store_greeting_valid(&greeting);
  close(fd);
  if (greeted) {
    greeting_job(&greeting, job, cap);
    char label[CORE_STORE_LABEL_BYTES + 1];
    core_store_text(greeting.label, sizeof greeting.label, label, sizeof label);
    return strcmp(label, secret->label) == 0 ? HOLDER_THIS_JOB : HOLDER_OTHER_JOB;
  }
  /* A store that closes or resets at once has just stopped listening. */
  if (spoke) return HOLDER_GONE;
  if (core_launch_torch_store_answers(host, port, step_deadline(deadline, 2 * GREETING_MS)))
    return HOLDER_TORCH;
  return HOLDER_UNKNOWN;
}

/* Who listens at host:port, which rank 0 could not bind; for a store that
 * greets, its job into job. A silent holder that is no torch store is
 * looked at once more before it is called unknown: the port may have
 * changed hands in the meantime (a socket of another program that held it
 * a moment, then the other job's store), or the store was too slow to
 * greet (its rank 0 not yet in its poll loop on a loaded machine). */
static holder_t who_holds(const char *host, const char *port, int64_t deadline,
                          const core_launch_secret_t *secret, char *job, size_t cap) {
  holder_t seen = holder_seen_once(host, port, deadline, secret, job, cap);
  if (seen == HOLDER_UNKNOWN && (deadline < 0 || core_socket_now_ms() < deadline))
    seen = holder_seen_once(host, port, deadline, secret, job, cap);
  return seen;
}

/* Rank 0 cannot bind MASTER_PORT: torch's store serves, or it says who
 * holds the port; *retry when the holder is gone (bind again). */
static ncore_status_t port_taken(const core_launch_t *launch,
                                 const core_launch_secret_t *secret,
                                 const char *host, const char *port, uint64_t call,
                                 int64_t timeout_ms, int64_t deadline,
                                 ncore_unique_id_t *id, int *retry) {
  char theirs[128] = "", ours[128];
  core_launch_secret_describe(secret, ours, sizeof ours);
  *retry = 0;
  switch (who_holds(host, port, deadline, secret, theirs, sizeof theirs)) {
    case HOLDER_GONE:
      *retry = 1;
      return NCORE_OK;
    case HOLDER_TORCH:
      core_log(CORE_LOG_INFO, "MASTER_PORT %s is held by a torch TCPStore "
               "(init_process_group ran first): the id goes through it", port);
      return core_launch_torch_store_share(launch, secret, host, port, call,
                                           timeout_ms, id);
    case HOLDER_THIS_JOB:
      return core_error(NCORE_ERR_SYSTEM, "MASTER_ADDR:MASTER_PORT %s:%s is held "
                        "by a store that greets as this job's (%s): another rank 0 "
                        "of this job, two jobs without a job identity (set "
                        "NCORE_JOB_SECRET), or a stranger posing as the store",
                        host, port, ours);
    case HOLDER_OTHER_JOB:
      return core_error(NCORE_ERR_SYSTEM, "MASTER_ADDR:MASTER_PORT %s:%s is held "
                        "by the store of %s, not of this rank's %s: two jobs share "
                        "the port (give each its own MASTER_PORT)", host, port,
                        theirs, ours);
    default:
      return core_error(NCORE_ERR_SYSTEM, "MASTER_PORT: rank 0 cannot listen on "
                        "port %s to hand out the unique id: %s (something else "
                        "holds it: neither an ncore store nor a torch TCPStore "
                        "answers there)", port, strerror(EADDRINUSE));
  }
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
  core_launch_secret_t secret;
  ncore_status_t s = core_launch_secret_read(&secret);
  if (s != NCORE_OK) return s;
  int64_t deadline = timeout_ms < 0 ? -1 : core_socket_now_ms() + timeout_ms;
  const char *agent = getenv("TORCHELASTIC_USE_AGENT_STORE");
  if (agent != NULL && strcmp(agent, "True") == 0)
    return core_launch_torch_store_share(launch, &secret, host, port, call,
                                         timeout_ms, id);
  if (launch->rank != 0) {
    fetch_t f = {.launch = launch, .secret = &secret, .host = host, .port = port,
                 .call = call};
    int torch = 0;
    s = fetch_id(&f, deadline, id, &torch);
    if (s != NCORE_OK || !torch) return s;
    core_log(CORE_LOG_INFO, "MASTER_PORT %s is held by a torch TCPStore: the id "
             "comes through it", port);
    return core_launch_torch_store_share(launch, &secret, host, port, call,
                                         time_left(deadline), id);
  }
  int fd = -1, bound = 0, resolve_error = 0, retry = 1;
  int error = 0;
  for (;;) {
    error = bind_store(host, port, &fd, &bound, &resolve_error);
    /* Two sockets with SO_REUSEADDR may both bind a port no one listens
     * on yet: the second to listen is the one that finds it taken. */
    if (error == 0 && listen(fd, SOMAXCONN) != 0) {
      error = errno;
      close(fd);
      fd = -1;
    }
    if (error != EADDRINUSE) break;
    /* The port's holder may be a store that just served its last rank. */
    s = port_taken(launch, &secret, host, port, call, time_left(deadline),
                   deadline, id, &retry);
    if (!retry) return s;
    if (deadline >= 0 && core_socket_now_ms() >= deadline)
      return core_error(NCORE_ERR_SYSTEM, "MASTER_PORT: rank 0 cannot listen on "
                        "port %s to hand out the unique id: %s", port,
                        strerror(EADDRINUSE));
    struct timespec pause = {0, RETRY_PAUSE_MS * 1000000L};
    nanosleep(&pause, NULL);
  }
  if (error != 0) return bind_failed(host, port, error, resolve_error);
  char where[320];
  snprintf(where, sizeof where, "%s:%s", host, port);
  s = core_launch_tcp_serve(launch, &secret, fd, where, call, id, deadline);
  close(fd);
  return s;
}
