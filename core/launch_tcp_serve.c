/* core — rank 0's side of ncore's store (core_launch_tcp_serve): it hands
 * the unique id to every rank of its job that proves the job's secret
 * (launch_tcp_wire.h), and to nobody else.
 *
 * Nobody can stall it: one poll loop serves up to CONNECTIONS_MAX
 * connections at once (more wait in the listen backlog), and each has
 * STEP_MS for the rank's ask after the greeting and again for the answer
 * and the rank's close, then it is cut off; messages have fixed sizes,
 * and a first byte that is not an ask's ends the connection. A stranger's
 * bytes (garbage, an ask that proves nothing, a connection left idle)
 * cost it a connection slot for at most STEP_MS and never fail the job.
 * Only a prover claims a rank; a second prover claiming a rank already
 * given, or asking with another rank count or call number, fails the
 * exchange, naming both (as the host rendezvous does):
 * with two processes holding one rank, no communicator is safe to make.
 * The socket listens only while an exchange runs and stops when the last
 * rank has its id. */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "error.h"
#include "launch.h"
#include "launch_socket.h"
#include "launch_tcp_wire.h"
#include "log.h"

/* A connection's bound for each of its two steps: its ask, then our
 * answer and its close. Well under a second, and far above what a rank
 * needs (it answers the greeting at once, from ncore's own code). */
#define STEP_MS 500
#define CONNECTIONS_MAX 1024
/* After the exchange failed, how long the store still tells askers so. */
#define FAILED_ANSWERING_MS 1000
/* A pause of accepting when the process has no descriptor left. */
#define NO_DESCRIPTOR_PAUSE_MS 20

typedef enum phase {
  SENDING_GREETING,
  READING_ASK,
  SENDING_ANSWER,
  AWAITING_CLOSE /* the answer is out; the rank closes first */
} phase_t;

typedef struct connection {
  int fd;
  phase_t phase;
  int64_t deadline;
  size_t done;            /* bytes of the current message sent or read */
  int gives_rank;         /* the rank this answer gives the id to, or -1 */
  core_store_greeting_t greeting;
  core_store_ask_t ask;
  core_store_answer_t answer;
  char peer[64];
} connection_t;

/* What rank 0 knows of each rank of its job. */
typedef struct claim {
  int given;  /* 1 once an answer with the id was sent to it */
  int answered; /* told something proven: its id, or the failure */
  unsigned char token[CORE_STORE_CLAIM_BYTES];
  char peer[64];
} claim_t;

typedef struct store {
  const core_launch_t *launch;
  const core_launch_secret_t *secret;
  const char *where;
  uint64_t call;
  const ncore_unique_id_t *id;
  char job[128];          /* "job 3fa2c1d0 (torchrun run ...)" */
  connection_t *connections;
  int count;
  claim_t *claims;        /* [nranks] */
  int left;               /* ranks 1..n-1 without their id */
  int unanswered;         /* ranks never told anything proven */
  ncore_status_t failure; /* NCORE_OK, or why the exchange failed */
  char failure_message[CORE_STORE_MESSAGE_BYTES];
  int64_t failed_at;
  int strangers, cut_off; /* unproven asks; garbage or idle connections */
  char first_stranger[320];
} store_t;

/* printf into a message field, cut at its size (the wire's fixed size is
 * the bound of what a message can say). */
static void say(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *out, size_t cap, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(out, cap, fmt, args);
  va_end(args);
}

/* Reads a little-endian field of a peer's message. */
static uint32_t le32(uint32_t v) { return le32toh(v); }

static void close_connection(store_t *st, int i) {
  close(st->connections[i].fd);
  st->connections[i] = st->connections[--st->count];
}

/* Marks the exchange failed (the first failure wins), saying why. */
static void fail_exchange(store_t *st, ncore_status_t status, const char *why) {
  if (st->failure != NCORE_OK) return;
  st->failure = status;
  st->failed_at = core_socket_now_ms();
  snprintf(st->failure_message, sizeof st->failure_message, "%s", why);
  core_log(CORE_LOG_WARN, "the id exchange at %s failed: %s", st->where, why);
}

/* A stranger's ask: told so, logged, and forgotten. */
static void refuse_stranger(store_t *st, connection_t *c, char *message, size_t cap) {
  char label[CORE_STORE_LABEL_BYTES + 1], name[CORE_STORE_NAME_BYTES + 1];
  core_store_text(c->ask.label, sizeof c->ask.label, label, sizeof label);
  core_store_text(c->ask.name, sizeof c->ask.name, name, sizeof name);
  say(message, cap, "%s, whose store is at %s, refused rank %u of job %s%s%s%s "
           "from %s: it proves no secret of %s (two jobs share "
           "MASTER_ADDR:MASTER_PORT?)", st->job, st->where, le32(c->ask.rank),
           label, name[0] ? " (" : "", name, name[0] ? ")" : "", c->peer,
           st->job);
  if (st->strangers++ == 0) {
    snprintf(st->first_stranger, sizeof st->first_stranger, "%s", message);
    core_log(CORE_LOG_WARN, "%s", message);
  }
}

/* Decides what a complete ask gets; fills c->answer. */
static void judge(store_t *st, connection_t *c) {
  char message[CORE_STORE_MESSAGE_BYTES] = "";
  int nranks = st->launch->nranks;
  core_store_verdict_t verdict = CORE_STORE_REFUSED;
  c->gives_rank = -1;
  if (!core_store_ask_proven(st->secret, &c->greeting, &c->ask)) {
    refuse_stranger(st, c, message, sizeof message);
    core_store_answer_make(st->secret, &c->greeting, &c->ask, CORE_STORE_STRANGER,
                           0, 0, message, NULL, &c->answer);
    return;
  }
  uint32_t rank = le32(c->ask.rank), asked_nranks = le32(c->ask.nranks);
  uint64_t asked_call = le64toh(c->ask.call);
  claim_t *claim = rank < (uint32_t)nranks ? &st->claims[rank] : NULL;
  if (st->failure != NCORE_OK) {
    snprintf(message, sizeof message, "%s", st->failure_message);
  } else if (asked_nranks != (uint32_t)nranks || asked_call != st->call) {
    say(message, sizeof message, "rank %u (at %s) joined with %u ranks and "
             "init_from_env call %llu, rank 0 with %d and %llu: the ranks "
             "disagree", rank, c->peer, asked_nranks,
             (unsigned long long)asked_call, nranks,
             (unsigned long long)st->call);
    fail_exchange(st, NCORE_ERR_INVALID_ARGUMENT, message);
  } else if (claim == NULL || rank == 0) {
    say(message, sizeof message, "a process at %s holding the secret of "
             "%s claims rank %u, which rank 0 %s: two processes run as one "
             "rank of one job", c->peer, st->job, rank,
             rank == 0 ? "is itself" : "does not have");
    fail_exchange(st, NCORE_ERR_INVALID_USAGE, message);
  } else if (claim->given &&
             memcmp(claim->token, c->ask.claim, sizeof claim->token) != 0) {
    say(message, sizeof message, "rank %u of %s was claimed twice: by %s, "
             "then by %s; both hold the job's secret (one job started twice, "
             "or two ranks given one RANK?)", rank, st->job, claim->peer, c->peer);
    fail_exchange(st, NCORE_ERR_INVALID_USAGE, message);
  } else {
    /* Its own first claim, or the same rank asking again. */
    verdict = CORE_STORE_GIVEN;
    c->gives_rank = (int)rank;
    if (!claim->given) {
      claim->given = 1;
      memcpy(claim->token, c->ask.claim, sizeof claim->token);
      snprintf(claim->peer, sizeof claim->peer, "%s", c->peer);
    }
  }
  if (claim != NULL && !claim->answered) {
    claim->answered = 1;
    st->unanswered--;
  }
  core_store_answer_make(st->secret, &c->greeting, &c->ask, verdict, nranks,
                         st->call, message, verdict == CORE_STORE_GIVEN ? st->id : NULL,
                         &c->answer);
}

/* Moves connection i on as far as its socket allows; 0 to keep it, -1 to
 * close it. */
static int advance(store_t *st, connection_t *c) {
  for (;;) {
    if (c->phase == SENDING_GREETING || c->phase == SENDING_ANSWER) {
      const char *out = c->phase == SENDING_GREETING ? (const char *)&c->greeting
                                                     : (const char *)&c->answer;
      size_t len = c->phase == SENDING_GREETING ? sizeof c->greeting : sizeof c->answer;
      ssize_t n = send(c->fd, out + c->done, len - c->done, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
      if (n <= 0) return -1;
      c->done += (size_t)n;
      if (c->done < len) continue;
      c->done = 0;
      if (c->phase == SENDING_GREETING) {
        c->phase = READING_ASK;
        continue;
      }
      /* The id is out: this rank has it. */
      if (c->gives_rank > 0 && st->claims[c->gives_rank].given == 1) {
        st->claims[c->gives_rank].given = 2;
        st->left--;
      }
      c->phase = AWAITING_CLOSE;
      continue;
    }
    if (c->phase == READING_ASK) {
      char *in = (char *)&c->ask;
      ssize_t n = recv(c->fd, in + c->done, sizeof c->ask - c->done, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
      if (n <= 0) return -1;
      c->done += (size_t)n;
      if (!core_store_ask_prefix_valid(in, c->done)) {
        st->cut_off++;
        return -1; /* not an ask: garbage, an old client, a probe */
      }
      if (c->done < sizeof c->ask) continue;
      judge(st, c);
      c->phase = SENDING_ANSWER;
      c->done = 0;
      c->deadline = core_socket_now_ms() + STEP_MS;
      continue;
    }
    /* AWAITING_CLOSE: anything but the close ends it too. */
    char byte;
    ssize_t n = recv(c->fd, &byte, 1, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
    return -1;
  }
}

/* Accepts what waits in the backlog while there is room; returns 0, or -1
 * when the process has no descriptor left (accept again later). */
static int accept_waiting(store_t *st, int fd) {
  while (st->count < CONNECTIONS_MAX) {
    int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (conn < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        return -1;
      return 0; /* EAGAIN: nobody else waits */
    }
    connection_t *c = &st->connections[st->count];
    memset(c, 0, sizeof *c);
    c->fd = conn;
    c->phase = SENDING_GREETING;
    c->deadline = core_socket_now_ms() + STEP_MS;
    core_socket_peer_name(conn, c->peer, sizeof c->peer);
    if (core_store_greeting_make(st->secret, &c->greeting) != NCORE_OK) {
      close(conn);
      return 0;
    }
    st->count++;
    if (advance(st, c) != 0) close_connection(st, st->count - 1);
  }
  return 0;
}

/* The ranks without their id, "1, 3", into out. */
static void missing_ranks(const store_t *st, char *out, size_t cap) {
  size_t used = 0;
  out[0] = '\0';
  for (int r = 1; r < st->launch->nranks && used + 16 < cap; r++)
    if (st->claims[r].given != 2)
      used += (size_t)snprintf(out + used, cap - used, "%s%d", used ? ", " : "", r);
  if (used + 16 >= cap) snprintf(out + used, cap - used, ", ...");
}

/* One turn: poll the listener and every connection, move each on. */
static void serve_turn(store_t *st, int fd, int64_t wake, int *accept_after) {
  struct pollfd *fds = calloc((size_t)st->count + 1, sizeof *fds);
  if (fds == NULL) return;
  int64_t now = core_socket_now_ms();
  int listening = st->count < CONNECTIONS_MAX && now >= *accept_after;
  fds[0] = (struct pollfd){.fd = listening ? fd : -1, .events = POLLIN};
  for (int i = 0; i < st->count; i++) {
    connection_t *c = &st->connections[i];
    short events = c->phase == SENDING_GREETING || c->phase == SENDING_ANSWER
                       ? POLLOUT : POLLIN;
    fds[i + 1] = (struct pollfd){.fd = c->fd, .events = events};
    if (c->deadline < wake) wake = c->deadline;
  }
  if (!listening && *accept_after < wake) wake = *accept_after;
  int wait = wake > now ? (int)(wake - now) : 0;
  int ready = poll(fds, (nfds_t)st->count + 1, wait);
  int count = st->count;
  now = core_socket_now_ms();
  /* Backwards: closing one moves the last connection into its place. */
  for (int i = count - 1; i >= 0; i--) {
    connection_t *c = &st->connections[i];
    int keep = 0;
    if (ready > 0 && fds[i + 1].revents != 0) keep = advance(st, c);
    if (keep == 0 && now >= c->deadline) {
      if (c->phase != AWAITING_CLOSE) st->cut_off++;
      keep = -1;
    }
    if (keep != 0) close_connection(st, i);
  }
  if (listening && ready > 0 && (fds[0].revents & POLLIN) &&
      accept_waiting(st, fd) != 0)
    *accept_after = now + NO_DESCRIPTOR_PAUSE_MS;
  free(fds);
}

/* Why rank 0 gave up waiting, naming the missing ranks and the strangers. */
static ncore_status_t timed_out(const store_t *st) {
  char missing[256];
  missing_ranks(st, missing, sizeof missing);
  char strangers[400] = "";
  if (st->strangers > 0)
    snprintf(strangers, sizeof strangers, "; %d ask(s) from other jobs were "
             "refused, the first: %s", st->strangers, st->first_stranger);
  return core_error(NCORE_ERR_TIMEOUT, "ranks %s never fetched the unique id "
                    "from rank 0's store at %s (not started, or started with "
                    "another MASTER_ADDR:MASTER_PORT or job secret?)%s",
                    missing, st->where, strangers);
}

ncore_status_t core_launch_tcp_serve(const core_launch_t *launch,
                                     const core_launch_secret_t *secret, int fd,
                                     const char *where, uint64_t call,
                                     const ncore_unique_id_t *id,
                                     int64_t deadline) {
  store_t st = {.launch = launch, .secret = secret, .where = where,
                .call = call, .id = id};
  core_launch_secret_describe(secret, st.job, sizeof st.job);
  st.left = st.unanswered = launch->nranks - 1;
  st.connections = calloc(CONNECTIONS_MAX, sizeof *st.connections);
  st.claims = calloc((size_t)launch->nranks, sizeof *st.claims);
  if (st.connections == NULL || st.claims == NULL) {
    free(st.connections);
    free(st.claims);
    return core_error(NCORE_ERR_SYSTEM, "out of memory");
  }
  ncore_status_t s = NCORE_OK;
  if (listen(fd, SOMAXCONN) != 0)
    s = core_error(NCORE_ERR_SYSTEM, "rank 0 cannot listen at %s: %s", where,
                   strerror(errno));
  core_log(CORE_LOG_INFO, "rank 0 serves the unique id (call %llu) to %d "
           "rank(s) of %s at %s", (unsigned long long)call, st.left, st.job, where);
  core_wait_note_t note;
  core_wait_note_start(&note, "ncore_comm_init_from_env");
  int64_t next_note = core_socket_now_ms() + 5000;
  int accept_after = 0;
  while (s == NCORE_OK) {
    int64_t now = core_socket_now_ms();
    if (st.failure != NCORE_OK &&
        (st.unanswered == 0 || now >= st.failed_at + FAILED_ANSWERING_MS)) {
      s = core_error(st.failure, "%s", st.failure_message);
      break;
    }
    if (st.failure == NCORE_OK && st.left == 0) break;
    if (deadline >= 0 && now >= deadline) {
      s = timed_out(&st);
      break;
    }
    char missing[256];
    missing_ranks(&st, missing, sizeof missing);
    core_wait_note_check(&note, deadline, "ranks %s to fetch the unique id at %s",
                         missing, where);
    if (now >= next_note) {
      core_log(CORE_LOG_INFO, "rank 0 still waits for ranks %s to fetch the "
               "unique id at %s", missing, where);
      next_note = now + 5000;
    }
    int64_t wake = now + 1000;
    if (deadline >= 0 && deadline < wake) wake = deadline;
    serve_turn(&st, fd, wake, &accept_after);
  }
  /* Stop listening at once (the socket stays bound: a later exchange of
   * the process listens on the same port); what waits in the backlog is
   * reset. The ranks served close first, so no TIME_WAIT stays here. */
  shutdown(fd, SHUT_RDWR);
  int64_t last = core_socket_now_ms() + STEP_MS;
  while (st.count > 0 && core_socket_now_ms() < last) {
    for (int i = st.count - 1; i >= 0; i--)
      if (st.connections[i].phase != AWAITING_CLOSE &&
          st.connections[i].phase != SENDING_ANSWER)
        close_connection(&st, i);
    if (st.count > 0) serve_turn(&st, -1, last, &accept_after);
  }
  while (st.count > 0) close_connection(&st, st.count - 1);
  if (st.strangers > 0 || st.cut_off > 0)
    core_log(CORE_LOG_INFO, "rank 0's store at %s refused %d ask(s) of other "
             "jobs and cut off %d connection(s) that sent no ask in time or "
             "garbage", where, st.strangers, st.cut_off);
  free(st.connections);
  free(st.claims);
  return s;
}
