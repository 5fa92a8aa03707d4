/* core — the unique id through PMI-1, the wire protocol MPICH's Hydra
 * (mpiexec.hydra, mpirun.mpich) serves on the descriptor PMI_FD: text lines
 * "cmd=... key=value ...\n", one answer per request. Spoken directly: no
 * PMI library is needed.
 * The first exchange does it all at once: rank 0 puts the id (as hex) and
 * its store's secret and address (a random secret, its host name and a
 * port its socket keeps bound), every rank enters the barrier, the others
 * get both. Later ncore_comm_init_from_env calls of the process get their
 * ids from rank 0 at that address (ncore's store, launch_tcp.c), proving
 * the secret, which only the job's processes got through their PMI
 * connections; the store listens only while an exchange runs.
 * The connection is the process's one PMI session, and an MPI library in
 * the program (MPICH's) uses it too (launch_mpi.c): Hydra stops the whole
 * job when a process that spoke PMI exits without "cmd=finalize", and
 * closes the connection after that command. So who ends the session
 * depends on MPI:
 *   no MPI               ncore opens it (cmd=init) and ends it at once;
 *   MPI initialised      MPI owns it: ncore neither opens nor ends it;
 *   MPI loaded, not yet  ncore opens it and leaves it open for MPI_Init;
 *                        at exit it ends it unless MPI took it over.
 * (An atexit handler alone is no answer where no MPI is: Go's exit runs
 * none.) A barrier that times out names the ranks not seen on this
 * machine (launch_presence.c), and a session ncore owns is ended before
 * the error returns, so the rank's exit is no abnormal PMI exit to Hydra
 * (whose proxy, answering a finalize nobody reads any more, died printing
 * its internals). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "launch.h"
#include "launch_vars.h"
#include "log.h"

/* How long ending the session may wait for Hydra's finalize_ack, also after
 * the communicator's timeout has passed. */
#define PMI_FINALIZE_MS 2000

/* The PMI connection: one request at a time, so one lock. */
static pthread_mutex_t pmi_lock = PTHREAD_MUTEX_INITIALIZER;
static char kvsname[256];  /* the job's key-value space */
static char mapping[512];  /* PMI_process_mapping: which ranks share a node */
/* After the first exchange: rank 0's store (host, port, the secret its
 * ranks prove) and, at rank 0, its bound socket. */
static int pmi_done;
static char store_host[256], store_port[16];
static core_launch_secret_t store_secret;
static int store_fd = -1;
/* ncore sent cmd=init on pmi_fd and owes Hydra a cmd=finalize. */
static int session_open, pmi_fd = -1;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends request whole; 0, or -1 with errno. */
static int pmi_send(int fd, const char *request) {
  size_t len = strlen(request), sent = 0;
  while (sent < len) {
    /* A closed connection is an error to report, not a SIGPIPE. */
    ssize_t n = send(fd, request + sent, len - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(fd, request + sent, len - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    sent += (size_t)n;
  }
  return 0;
}

/* Reads one line (without its newline) into reply; 0, 1 at the deadline
 * (< 0: none), -1 when the connection closed or failed. One byte at a time:
 * the answer ends at its newline, and whatever follows belongs to the next
 * request's reader (MPI's, perhaps). */
static int pmi_read_line(int fd, char *reply, size_t cap, int64_t deadline) {
  size_t used = 0;
  for (;;) {
    int wait = -1;
    if (deadline >= 0) {
      int64_t left = deadline - now_ms();
      if (left <= 0) return 1;
      wait = (int)left;
    }
    struct pollfd p = {fd, POLLIN, 0};
    int ready = poll(&p, 1, wait);
    if (ready <= 0) continue; /* EINTR, or the deadline: checked above */
    char c;
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    if (c == '\n') break;
    if (used + 1 < cap) reply[used++] = c;
  }
  reply[used] = '\0';
  return 0;
}

/* Sends request and reads one answer line into reply; deadline < 0: none. */
static ncore_status_t pmi_call(int fd, const char *request, char *reply,
                               size_t cap, int64_t deadline) {
  int command = (int)strcspn(request, " \n");
  if (pmi_send(fd, request) != 0)
    return core_error(NCORE_ERR_REMOTE, "PMI_FD %d: writing \"%.*s\": %s",
                      fd, command, request, strerror(errno));
  int got = pmi_read_line(fd, reply, cap, deadline);
  if (got == 1)
    return core_error(NCORE_ERR_TIMEOUT, "PMI_FD %d: no answer to \"%.*s\" "
                      "in time", fd, command, request);
  if (got < 0)
    return core_error(NCORE_ERR_REMOTE, "PMI_FD %d: the process manager "
                      "closed the connection", fd);
  return NCORE_OK;
}

/* The value of field name in reply ("name=value", space separated) into
 * out; 0, or -1 when absent. */
static int pmi_field(const char *reply, const char *name, char *out, size_t cap) {
  size_t n = strlen(name);
  for (const char *at = reply; (at = strstr(at, name)) != NULL; at += n) {
    if ((at != reply && at[-1] != ' ') || at[n] != '=') continue;
    const char *value = at + n + 1;
    size_t len = strcspn(value, " ");
    if (len >= cap) len = cap - 1;
    memcpy(out, value, len);
    out[len] = '\0';
    return 0;
  }
  return -1;
}

/* An answer whose rc is not 0 is the process manager's refusal. */
static ncore_status_t pmi_checked(int fd, const char *request, char *reply,
                                  size_t cap, int64_t deadline) {
  ncore_status_t s = pmi_call(fd, request, reply, cap, deadline);
  if (s != NCORE_OK) return s;
  char rc[16];
  if (pmi_field(reply, "rc", rc, sizeof rc) == 0 && strcmp(rc, "0") != 0)
    return core_error(NCORE_ERR_REMOTE, "PMI: \"%.*s\" was refused: %s",
                      (int)strcspn(request, " \n"), request, reply);
  return NCORE_OK;
}

/* Ends the session ncore opened: cmd=finalize, then lines until Hydra's
 * finalize_ack (a barrier_out that comes late may precede it), at most
 * PMI_FINALIZE_MS. Records no error: it runs after failures and at exit. */
static void pmi_finalize(void) {
  if (!session_open) return;
  session_open = 0;
  char reply[256];
  int64_t deadline = now_ms() + PMI_FINALIZE_MS;
  if (pmi_send(pmi_fd, "cmd=finalize\n") != 0) return;
  while (pmi_read_line(pmi_fd, reply, sizeof reply, deadline) == 0)
    if (strncmp(reply, "cmd=finalize_ack", 16) == 0) return;
  core_log(CORE_LOG_WARN, "PMI_FD %d: no finalize_ack from Hydra within %d ms",
           pmi_fd, PMI_FINALIZE_MS);
}

/* At exit, where ncore left the session open for an MPI that never took it
 * over (MPI_Init not called): end it, so the exit is a normal one. */
static void finalize_at_exit(void) {
  pthread_mutex_lock(&pmi_lock);
  if (session_open) {
    core_launch_mpi_t mpi = core_launch_mpi_state(0, NULL);
    if (mpi == CORE_LAUNCH_MPI_ABSENT || mpi == CORE_LAUNCH_MPI_LOADED)
      pmi_finalize();
    else
      session_open = 0; /* MPI_Init took it over: MPI_Finalize ends it */
  }
  pthread_mutex_unlock(&pmi_lock);
}

/* Opens the session unless MPI holds it (then its kvsname is asked only),
 * and reads the job's key-value space and node mapping. */
static ncore_status_t pmi_open(int fd, core_launch_mpi_t mpi, int64_t deadline) {
  char reply[768];
  ncore_status_t s = NCORE_OK;
  if (mpi != CORE_LAUNCH_MPI_ACTIVE) {
    s = pmi_checked(fd, "cmd=init pmi_version=1 pmi_subversion=1\n", reply,
                    sizeof reply, deadline);
    if (s == NCORE_OK) session_open = 1;
  }
  if (s == NCORE_OK)
    s = pmi_checked(fd, "cmd=get_my_kvsname\n", reply, sizeof reply, deadline);
  if (s == NCORE_OK && pmi_field(reply, "kvsname", kvsname, sizeof kvsname) != 0)
    s = core_error(NCORE_ERR_REMOTE, "PMI: no kvsname in \"%s\"", reply);
  if (s == NCORE_OK) {
    char request[512];
    snprintf(request, sizeof request,
             "cmd=get kvsname=%s key=PMI_process_mapping\n", kvsname);
    /* Only for naming missing ranks: its absence is no failure. */
    if (pmi_call(fd, request, reply, sizeof reply, deadline) != NCORE_OK ||
        pmi_field(reply, "value", mapping, sizeof mapping) != 0)
      mapping[0] = '\0';
  }
  if (s == NCORE_OK)
    core_log(CORE_LOG_INFO, "PMI-1 on PMI_FD %d: key-value space %s, %s", fd,
             kvsname, mpi == CORE_LAUNCH_MPI_ACTIVE
                          ? "the session of MPI (initialised)"
                          : mpi == CORE_LAUNCH_MPI_LOADED
                                ? "kept open for MPI_Init (MPI is loaded)"
                                : "ended after the exchange");
  return s;
}

/* The node of rank by PMI_process_mapping, "(vector,(start,nodes,ranks),
 * ...)": each block gives `ranks` consecutive ranks to each of `nodes`
 * nodes from `start`, and the blocks repeat until every rank has a node.
 * -1 when the mapping is missing or unreadable. */
static int node_of(int rank, int nranks) {
  int blocks[64][3], count = 0;
  const char *at = strstr(mapping, "(vector,");
  if (at == NULL) return -1;
  at += 8;
  while (count < 64 && sscanf(at, " (%d,%d,%d)", &blocks[count][0],
                              &blocks[count][1], &blocks[count][2]) == 3) {
    if (blocks[count][1] <= 0 || blocks[count][2] <= 0) return -1;
    count++;
    at = strchr(at, ')');
    if (at == NULL) break;
    at++;
    if (*at == ',') at++;
  }
  if (count == 0) return -1;
  for (int next = 0; next < nranks;)
    for (int b = 0; b < count; b++)
      for (int node = 0; node < blocks[b][1]; node++)
        for (int k = 0; k < blocks[b][2]; k++, next++)
          if (next == rank) return blocks[b][0] + node;
  return -1;
}

/* The ranks other than launch's own never seen in exchange call on this
 * machine while this rank waited (seen: one byte per rank, 1 once it was
 * seen; updated by this look), as "2, 5" into missing, and as many of them
 * that the mapping puts on another node into *elsewhere. Once seen is
 * enough: a rank that came gives up at about the same moment as this one,
 * or a little earlier, and is no missing rank. */
static void absent_ranks(const core_launch_t *launch, uint64_t call,
                         unsigned char *seen, char *missing, size_t cap,
                         int *elsewhere) {
  size_t used = 0;
  int mine = node_of(launch->rank, launch->nranks);
  missing[0] = '\0';
  *elsewhere = 0;
  for (int r = 0; r < launch->nranks; r++) {
    if (!seen[r])
      seen[r] = r == launch->rank || core_launch_presence_here(kvsname, call, r);
    if (seen[r]) continue;
    int node = node_of(r, launch->nranks);
    if (mine >= 0 && node >= 0 && node != mine) {
      (*elsewhere)++;
      continue;
    }
    if (used + 16 < cap)
      used += (size_t)snprintf(missing + used, cap - used, "%s%d",
                               used ? ", " : "", r);
  }
}

/* Every rank's barrier_in, awaited in slices of a second so the wait can
 * say who is not there; at the deadline, the ranks of this machine that
 * never came are named. */
static ncore_status_t pmi_barrier(int fd, const core_launch_t *launch,
                                  uint64_t call, int64_t deadline) {
  unsigned char *seen = calloc((size_t)launch->nranks, 1);
  if (seen == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  int here = core_launch_presence_enter(kvsname, call, launch->rank);
  char reply[256], missing[256];
  int elsewhere = 0;
  core_wait_note_t note;
  core_wait_note_start(&note, "ncore_comm_init_from_env");
  int64_t start = now_ms();
  ncore_status_t s = NCORE_OK;
  if (pmi_send(fd, "cmd=barrier_in\n") != 0)
    s = core_error(NCORE_ERR_REMOTE, "PMI_FD %d: writing \"cmd=barrier_in\": %s",
                   fd, strerror(errno));
  while (s == NCORE_OK) {
    if (deadline >= 0 && now_ms() >= deadline) {
      absent_ranks(launch, call, seen, missing, sizeof missing, &elsewhere);
      s = core_error(NCORE_ERR_TIMEOUT,
                     "%s: the PMI barrier of the id exchange timed out after "
                     "%lld ms: %s%s%s%s", launch->launcher,
                     (long long)(now_ms() - start),
                     missing[0] ? "rank(s) " : "",
                     missing[0] ? missing : "every rank of this machine came",
                     missing[0] ? " never reached ncore_comm_init_from_env "
                                  "(exited before it, or not started)" : "",
                     elsewhere ? "; ranks on other machines cannot be seen "
                                 "from here" : "");
      break;
    }
    int64_t slice = now_ms() + 1000;
    if (deadline >= 0 && deadline < slice) slice = deadline;
    struct pollfd p = {fd, POLLIN, 0};
    int left = (int)(slice - now_ms());
    if (poll(&p, 1, left > 0 ? left : 0) > 0) {
      int got = pmi_read_line(fd, reply, sizeof reply, deadline);
      if (got < 0)
        s = core_error(NCORE_ERR_REMOTE, "PMI_FD %d: the process manager "
                       "closed the connection in the barrier", fd);
      else if (got == 0 && strncmp(reply, "cmd=barrier_out", 15) != 0)
        s = core_error(NCORE_ERR_REMOTE, "PMI: \"%s\" where cmd=barrier_out "
                       "was expected", reply);
      if (got != 1) break;
      continue; /* the deadline passed mid-line: named above */
    }
    absent_ranks(launch, call, seen, missing, sizeof missing, &elsewhere);
    core_wait_note_check(&note, deadline, "every rank to enter the PMI "
                         "barrier%s%s%s", missing[0] ? " (not here yet: rank(s) " : "",
                         missing, missing[0] ? ")" : "");
  }
  core_launch_presence_leave(here);
  free(seen);
  return s;
}

/* The store's secret: this rank's own identity mixed with rank 0's
 * random text (hex), which came through PMI. */
static ncore_status_t store_secret_from(const char *hex) {
  ncore_status_t s = core_launch_secret_read(&store_secret);
  char name[sizeof store_secret.name];
  snprintf(name, sizeof name, "MPICH kvs %.40s", kvsname);
  if (s == NCORE_OK) core_launch_secret_mix(&store_secret, hex, name, "PMI (rank 0's)");
  return s;
}

/* Rank 0: the socket later calls are served on, its address and secret
 * ("secret@host:port" into address). The socket is bound on every
 * interface unless NCORE_STORE_BIND_ADDR names one: the address the
 * other hosts reach is the host name's, which no local lookup can tell. */
static ncore_status_t open_store(char *address, size_t cap) {
  int bound = 0;
  char hex[CORE_LAUNCH_SECRET_HEX_CHARS + 1];
  if (core_launch_secret_generate(hex) != 0)
    return core_error(NCORE_ERR_SYSTEM, "getrandom: %s", strerror(errno));
  ncore_status_t s = store_secret_from(hex);
  if (s == NCORE_OK) s = core_launch_tcp_bind(NULL, "0", &store_fd, &bound);
  if (s != NCORE_OK) return s;
  const char *chosen = getenv("NCORE_STORE_BIND_ADDR");
  if (chosen != NULL && chosen[0] != '\0' && strcmp(chosen, "*") != 0)
    snprintf(store_host, sizeof store_host, "%s", chosen);
  else if (gethostname(store_host, sizeof store_host) != 0)
    strcpy(store_host, "localhost");
  store_host[sizeof store_host - 1] = '\0';
  snprintf(store_port, sizeof store_port, "%d", bound);
  snprintf(address, cap, "%s@%s:%s", hex, store_host, store_port);
  return NCORE_OK;
}

/* The first exchange, under pmi_lock: id and store address through PMI. */
static ncore_status_t pmi_share(int fd, const core_launch_t *launch,
                                const char *key, uint64_t call,
                                core_launch_mpi_t mpi, int64_t deadline,
                                ncore_unique_id_t *id) {
  ncore_status_t s = pmi_open(fd, mpi, deadline);
  char request[CORE_LAUNCH_ID_HEX_CHARS + 512], reply[CORE_LAUNCH_ID_HEX_CHARS + 512];
  char address[CORE_LAUNCH_SECRET_HEX_CHARS + sizeof store_host + 32];
  if (s == NCORE_OK && launch->rank == 0) s = open_store(address, sizeof address);
  if (s == NCORE_OK && launch->rank == 0) {
    char hex[CORE_LAUNCH_ID_HEX_CHARS + 1];
    core_launch_id_encode(id, hex);
    snprintf(request, sizeof request, "cmd=put kvsname=%s key=%s value=%s\n",
             kvsname, key, hex);
    s = pmi_checked(fd, request, reply, sizeof reply, deadline);
    snprintf(request, sizeof request, "cmd=put kvsname=%s key=ncore.store "
             "value=%s\n", kvsname, address);
    if (s == NCORE_OK) s = pmi_checked(fd, request, reply, sizeof reply, deadline);
  }
  if (s == NCORE_OK) s = pmi_barrier(fd, launch, call, deadline);
  if (s == NCORE_OK && launch->rank != 0) {
    snprintf(request, sizeof request, "cmd=get kvsname=%s key=%s\n", kvsname, key);
    s = pmi_checked(fd, request, reply, sizeof reply, deadline);
    char hex[CORE_LAUNCH_ID_HEX_CHARS + 2];
    if (s == NCORE_OK && (pmi_field(reply, "value", hex, sizeof hex) != 0 ||
                          core_launch_id_decode(hex, id) != 0))
      s = core_error(NCORE_ERR_REMOTE, "PMI: rank 0's %s is not a unique id "
                     "(\"%.80s\")", key, reply);
    snprintf(request, sizeof request, "cmd=get kvsname=%s key=ncore.store\n", kvsname);
    if (s == NCORE_OK) s = pmi_checked(fd, request, reply, sizeof reply, deadline);
    char *colon = NULL, *at = NULL;
    if (s == NCORE_OK && pmi_field(reply, "value", address, sizeof address) == 0) {
      colon = strrchr(address, ':');
      at = strchr(address, '@');
    }
    if (s == NCORE_OK && (colon == NULL || at == NULL || at > colon))
      s = core_error(NCORE_ERR_REMOTE, "PMI: rank 0's store address is missing "
                     "(\"%.80s\")", reply);
    if (s == NCORE_OK) {
      *colon = *at = '\0';
      snprintf(store_host, sizeof store_host, "%s", at + 1);
      snprintf(store_port, sizeof store_port, "%s", colon + 1);
      s = store_secret_from(address);
    }
  }
  /* A session ncore opened ends now unless MPI_Init is still to come; after
   * a failure always, so that the rank's exit is a normal one to Hydra. */
  if (mpi == CORE_LAUNCH_MPI_ABSENT || s != NCORE_OK) pmi_finalize();
  else if (session_open) atexit(finalize_at_exit);
  pmi_done = 1;
  return s;
}

ncore_status_t core_launch_pmi1_share(const core_launch_t *launch,
                                      const char *key, uint64_t call,
                                      int64_t timeout_ms, ncore_unique_id_t *id) {
  int fd = -1;
  if (core_launch_parse_count(getenv("PMI_FD"), &fd) != 0)
    return core_error(NCORE_ERR_UNAVAILABLE,
                      "%s: PMI_RANK is set but PMI_FD (Hydra's PMI-1 "
                      "connection) is %s, and there is no PMIX_NAMESPACE: "
                      "no way for rank 0's unique id to reach this rank",
                      launch->launcher, getenv("PMI_FD") ? "malformed" : "not set");
  int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
  pthread_mutex_lock(&pmi_lock);
  ncore_status_t s;
  if (!pmi_done) {
    const char *library = NULL;
    core_launch_mpi_t mpi = core_launch_mpi_state(0, &library);
    if (mpi == CORE_LAUNCH_MPI_FINALIZED)
      s = core_error(NCORE_ERR_UNAVAILABLE,
                     "%s: MPI_Finalize (%s) has ended this process's PMI "
                     "session on PMI_FD, so rank 0's unique id cannot reach "
                     "it: call ncore_comm_init_from_env before MPI_Finalize",
                     launch->launcher, library);
    else {
      pmi_fd = fd;
      s = pmi_share(fd, launch, key, call, mpi, deadline, id);
    }
  } else if (store_host[0] == '\0')
    s = core_error(NCORE_ERR_UNAVAILABLE, "%s: the first exchange through PMI "
                   "failed, and PMI is finalised", launch->launcher);
  else if (launch->rank == 0) {
    char where[sizeof store_host + sizeof store_port + 1];
    snprintf(where, sizeof where, "%s:%s", store_host, store_port);
    s = core_launch_tcp_serve(launch, &store_secret, store_fd, where, call, id,
                              deadline);
  } else {
    s = core_launch_tcp_fetch(launch, &store_secret, store_host, store_port, call,
                              deadline, id);
  }
  pthread_mutex_unlock(&pmi_lock);
  return s;
}
