/* core/host — handing a communicator's segment (a memfd, which has no name)
 * from rank 0 to the other ranks: rank 0 listens on an abstract Unix socket
 * named after the unique id's token and passes the file descriptor
 * (SCM_RIGHTS), as NCCL passes cuMem handles (src/misc/ipcsocket.cc). Both
 * ends check the other's credentials (SO_PEERCRED): rank 0 gives the segment
 * only to processes of its own user, and a joiner takes it only from one. So
 * another local user can at most occupy the name (the init then fails
 * loudly), never read or write a communicator's memory.
 *
 * Rank 0 also decides who joins: each joiner first claims its rank (and
 * states nranks), and a rank joins at most once. A unique id serves one
 * communicator at a time, but nothing stops a user from starting two jobs
 * with one id; then two processes claim one rank, or one arrives after
 * every rank joined, and rank 0 refuses it (with the reason) and fails its
 * communicator, so that every rank of it answers the same error instead of
 * computing with a stranger (job B's rank 1 joined job A's rank
 * 0, and both reported a mixed sum). Rank 0 keeps listening for as long as
 * the communicator lives, answering claims whenever it waits (wait.c), and
 * a rank 0 that finds the name taken claims rank 0 of the communicator
 * holding it, which that one refuses the same way. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "rendezvous.h"

#include "../error.h"
#include "../log.h"
#include "failure.h"

/* A joiner's claim, the first message on a connection. */
typedef struct claim {
  char magic[8];
  int32_t rank, nranks;
} claim_t;
static const char claim_magic[8] = {'N', 'C', 'O', 'R', 'E', 'C', 'L', 'M'};

/* Rank 0's answer: the segment (with the descriptor) or a refusal, with
 * the status the joiner is to return and why. */
typedef struct answer {
  char greeting[8];
  int32_t status;
  char reason[244];
} answer_t;
static const char greeting[8] = {'N', 'C', 'O', 'R', 'E', 'S', 'E', 'G'};
static const char refusal[8] = {'N', 'C', 'O', 'R', 'E', 'R', 'E', 'F'};

/* How long rank 0 waits for a claim on a connection of its own user it
 * accepted (a joiner sends it right after connecting: only a joiner that
 * lost its CPU in between makes rank 0 wait), and how long a rank 0 that
 * found the name taken waits for the holder's answer. */
#define CLAIM_WAIT_MS 1000
#define TAKEN_NAME_WAIT_MS 2000

/* The abstract address of token's rendezvous; returns its length. */
static socklen_t rendezvous_address(uint64_t token, struct sockaddr_un *a) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  /* sun_path[0] stays 0: the abstract namespace, no file anywhere. */
  int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "ncore-%016llx",
                   (unsigned long long)token);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

ncore_status_t host_rendezvous_listen(uint64_t token, int *listen_fd,
                                     int *name_taken) {
  *name_taken = 0;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return core_error(NCORE_ERR_SYSTEM, "socket: %s", strerror(errno));
  struct sockaddr_un a;
  socklen_t len = rendezvous_address(token, &a);
  if (bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, SOMAXCONN) != 0) {
    int e = errno;
    close(fd);
    *name_taken = e == EADDRINUSE;
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

/* Sends an answer over conn: the segment (segment_fd >= 0) or a refusal
 * with its status and reason. */
static void send_answer(int conn, int segment_fd, ncore_status_t status,
                        const char *reason) {
  answer_t a;
  memset(&a, 0, sizeof a);
  memcpy(a.greeting, segment_fd >= 0 ? greeting : refusal, sizeof a.greeting);
  a.status = (int32_t)status;
  snprintf(a.reason, sizeof a.reason, "%s", reason);
  char control[CMSG_SPACE(sizeof(int))];
  memset(control, 0, sizeof control);
  struct iovec iov = {&a, sizeof a};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (segment_fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &segment_fd, sizeof(int));
  }
  /* A joiner that gave up meanwhile is no concern of ours. */
  ssize_t n = sendmsg(conn, &msg, MSG_NOSIGNAL);
  (void)n;
}

/* The process at the other end of fd: its pid, and 1 if it runs as this
 * user. */
static int peer_is_this_user(int fd, long long *pid) {
  struct ucred cred;
  socklen_t len = sizeof cred;
  *pid = 0;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return 0;
  *pid = (long long)cred.pid;
  return cred.uid == geteuid();
}

/* Reads the claim a joiner sends after connecting (one small write, which
 * arrives whole); 0 if none came. */
static int read_claim(int conn, claim_t *claim) {
  struct pollfd p = {conn, POLLIN, 0};
  if (poll(&p, 1, CLAIM_WAIT_MS) != 1) return 0;
  struct timeval limit = {0, CLAIM_WAIT_MS * 1000};
  setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ssize_t n = recv(conn, claim, sizeof *claim, MSG_WAITALL);
  return n == (ssize_t)sizeof *claim &&
         memcmp(claim->magic, claim_magic, sizeof claim_magic) == 0;
}

/* Rank 0's verdict on a claim: NCORE_OK to hand the segment over, else the
 * joiner's status, with why (for the joiner) and what rank 0's own
 * communicator fails with (in failure; empty: nothing). */
static ncore_status_t judge_claim(host_comm_t *c, const claim_t *claim, long long pid,
                                  int complete, char *why, size_t why_size,
                                  char *failure, size_t failure_size) {
  failure[0] = '\0';
  if (claim->nranks != c->nranks) {
    snprintf(why, why_size, "nranks: %d differs from rank 0's %d", claim->nranks,
             c->nranks);
    snprintf(failure, failure_size,
             "a process (pid %lld) tried to join as rank %d of %d ranks; this "
             "communicator has %d (is its unique id used by another job?)",
             pid, claim->rank, claim->nranks, c->nranks);
    return NCORE_ERR_INVALID_ARGUMENT;
  }
  if (claim->rank < 0 || claim->rank >= c->nranks) {
    snprintf(why, why_size, "rank: %d is out of range [0, %d)", claim->rank, c->nranks);
    return NCORE_ERR_INVALID_ARGUMENT;
  }
  long long first = c->claim_pids[claim->rank];
  if (first == 0 && !complete) return NCORE_OK;
  if (first != 0)
    snprintf(failure, failure_size,
             "rank %d was claimed twice (by process %lld, then by process "
             "%lld): a unique id serves one communicator at a time; is it used "
             "by two jobs?", claim->rank, first, pid);
  else
    snprintf(failure, failure_size,
             "a process (pid %lld) claimed rank %d after all %d ranks had "
             "joined: a unique id serves one communicator at a time; is it "
             "used by two jobs?", pid, claim->rank, c->nranks);
  snprintf(why, why_size, "rank 0 refused it: %s", failure);
  return NCORE_ERR_INVALID_USAGE;
}

void host_rendezvous_serve(host_comm_t *c, int listen_fd, int segment_fd) {
  for (;;) {
    int conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (conn < 0) return;  /* nobody (else) waiting */
    long long pid;
    claim_t claim;
    if (peer_is_this_user(conn, &pid) && read_claim(conn, &claim)) {
      int complete = segment_fd < 0 ||
                     atomic_load(&host_header(c)->joined_count) >= (uint32_t)c->nranks;
      char why[sizeof ((answer_t *)0)->reason], failure[240];
      ncore_status_t verdict = judge_claim(c, &claim, pid, complete, why, sizeof why,
                                           failure, sizeof failure);
      if (verdict == NCORE_OK) {
        c->claim_pids[claim.rank] = pid;
        send_answer(conn, segment_fd, NCORE_OK, "");
      } else {
        /* Failed before the claimant hears of it: whatever it then tells
         * our ranks, they find the communicator failed. */
        if (failure[0]) host_comm_fail(c, NCORE_ERR_INVALID_USAGE, "%s", failure);
        send_answer(conn, -1, verdict, why);
      }
    }
    close(conn);
  }
}

static uint64_t elapsed_ms(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)(now.tv_sec - start->tv_sec) * 1000u +
         (uint64_t)((now.tv_nsec - start->tv_nsec) / 1000000);
}

/* Claims rank of nranks over a connected conn and receives rank 0's
 * answer: the segment, or its refusal as this call's error. */
static ncore_status_t claim_and_receive(int conn, int rank, int nranks,
                                        const struct timespec *start,
                                        int64_t timeout_ms, int *segment_fd) {
  long long pid;
  if (!peer_is_this_user(conn, &pid)) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    long long uid = getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0
                        ? (long long)cred.uid : -1;
    return core_error(NCORE_ERR_SYSTEM,
                      "id: the rendezvous of this unique id is held by uid "
                      "%lld, not by this user (%u): refusing its segment",
                      uid, (unsigned)geteuid());
  }
  claim_t claim;
  memcpy(claim.magic, claim_magic, sizeof claim.magic);
  claim.rank = rank;
  claim.nranks = nranks;
  if (send(conn, &claim, sizeof claim, MSG_NOSIGNAL) != (ssize_t)sizeof claim)
    return core_error(NCORE_ERR_REMOTE,
                      "rank 0 ended the rendezvous before this rank could claim "
                      "rank %d", rank);
  core_wait_note_t note;
  core_wait_note_start_at(&note, core_error_call(),
                          start->tv_sec * 1000LL + start->tv_nsec / 1000000);
  long long deadline = timeout_ms >= 0 ? note.start_ms + timeout_ms : -1;
  for (;;) {
    /* Slices of a second: the note is checked between them. */
    int wait_ms = 1000;
    if (timeout_ms >= 0) {
      uint64_t gone = elapsed_ms(start);
      if (gone >= (uint64_t)timeout_ms)
        return core_error(NCORE_ERR_TIMEOUT,
                          "rank 0 did not hand over the communicator within "
                          "%lld ms", (long long)timeout_ms);
      if ((uint64_t)timeout_ms - gone < (uint64_t)wait_ms)
        wait_ms = (int)((uint64_t)timeout_ms - gone);
    }
    struct pollfd p = {conn, POLLIN, 0};
    int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0)
      return core_error(NCORE_ERR_SYSTEM, "poll: %s", strerror(errno));
    if (ready > 0) break;
    core_wait_note_check(&note, deadline, "rank 0 to answer this rank's claim "
                         "of rank %d of %d (rank 0 answers whenever it waits "
                         "in ncore)", rank, nranks);
  }
  answer_t a;
  char control[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {&a, sizeof a};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  /* The answer is one write: whole (the descriptor comes with its first
   * byte), unless rank 0 died. */
  ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  int fd = -1;
  struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
  if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
      cm->cmsg_len == CMSG_LEN(sizeof(int)))
    memcpy(&fd, CMSG_DATA(cm), sizeof(int));
  int whole = n == (ssize_t)sizeof a && !(msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC));
  if (whole && fd < 0 && memcmp(a.greeting, refusal, sizeof refusal) == 0) {
    a.reason[sizeof a.reason - 1] = '\0';
    ncore_status_t status = a.status == NCORE_ERR_INVALID_ARGUMENT
                                ? NCORE_ERR_INVALID_ARGUMENT
                                : NCORE_ERR_INVALID_USAGE;
    return core_error(status, "%s", a.reason);
  }
  if (!whole || memcmp(a.greeting, greeting, sizeof greeting) != 0 || fd < 0) {
    if (fd >= 0) close(fd);
    return core_error(NCORE_ERR_REMOTE,
                      "rank 0 ended the rendezvous without handing over the "
                      "communicator");
  }
  *segment_fd = fd;
  return NCORE_OK;
}

/* Why a rank may find no rank 0 listening for its unique id: said in the
 * WARN line of a long wait and in the timeout's message. Under a launcher
 * this rank holds the id because rank 0 gave it out, so rank 0 runs; it
 * listens once it left its launcher's exchange, which (ncore's store at
 * MASTER_PORT) waits until every rank has the id: then the culprit is a
 * rank that never started, which rank 0's own message names. */
#define NO_RANK_0_YET                                                       \
  "nothing listens for this unique id on this machine yet: rank 0 creates " \
  "the communicator once every rank has the id, so a rank that never "      \
  "started keeps it waiting (rank 0's own message names that rank); "       \
  "otherwise rank 0 was not started here, or with another unique id"

ncore_status_t host_rendezvous_fetch(uint64_t token, int rank, int nranks,
                                     int64_t timeout_ms, int *segment_fd) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  struct sockaddr_un a;
  socklen_t len = rendezvous_address(token, &a);
  uint64_t next_note_ms = 5000;
  core_wait_note_t note;
  core_wait_note_start_at(&note, core_error_call(),
                          start.tv_sec * 1000LL + start.tv_nsec / 1000000);
  long long deadline = timeout_ms >= 0 ? note.start_ms + timeout_ms : -1;
  for (;;) {
    int conn = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (conn < 0)
      return core_error(NCORE_ERR_SYSTEM, "socket: %s", strerror(errno));
    if (connect(conn, (struct sockaddr *)&a, len) == 0) {
      ncore_status_t s =
          claim_and_receive(conn, rank, nranks, &start, timeout_ms, segment_fd);
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
                        "rank 0 did not create the communicator within %lld "
                        "ms (this is rank %d of %d): " NO_RANK_0_YET,
                        (long long)timeout_ms, rank, nranks);
    if (waited >= next_note_ms) {
      core_log(CORE_LOG_INFO, "still waiting after %llu s for rank 0 of this "
               "unique id to create the communicator (@%s)",
               (unsigned long long)(waited / 1000), a.sun_path + 1);
      next_note_ms += 5000;
    }
    core_wait_note_check(&note, deadline, "rank 0 to create the communicator "
                         "(this is rank %d of %d; @%s): " NO_RANK_0_YET, rank,
                         nranks, a.sun_path + 1);
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

ncore_status_t host_rendezvous_claim_taken(uint64_t token, int nranks,
                                           int64_t timeout_ms) {
  int64_t wait_ms = timeout_ms >= 0 && timeout_ms < TAKEN_NAME_WAIT_MS
                        ? timeout_ms : TAKEN_NAME_WAIT_MS;
  int fd = -1;
  ncore_status_t s = host_rendezvous_fetch(token, 0, nranks, wait_ms, &fd);
  if (fd >= 0) close(fd); /* handed over: cannot be (rank 0 is its own) */
  return s;
}
