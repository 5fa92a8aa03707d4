/* core — the unique id through PMI-1, the wire protocol MPICH's Hydra
 * (mpiexec.hydra, mpirun.mpich) serves on the descriptor PMI_FD: text lines
 * "cmd=... key=value ...\n", one answer per request. Spoken directly: no
 * PMI library is needed.
 * Hydra stops the whole job when a process that spoke PMI exits without
 * "cmd=finalize" — and after that command it closes the connection. A C
 * atexit handler is no answer (Go's exit runs none), so the first exchange
 * does it all at once: rank 0 puts the id (as hex) and its store's secret
 * and address (a random secret, its host name and a port its socket keeps
 * bound), every rank enters the barrier, the others get both, and every
 * rank finalises PMI. Later ncore_comm_init_from_env calls of the process
 * get their ids from rank 0 at that address (ncore's store, launch_tcp.c),
 * proving the secret, which only the job's processes got through their
 * PMI connections; the store listens only while an exchange runs. */
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

/* The PMI connection: one request at a time, so one lock. */
static pthread_mutex_t pmi_lock = PTHREAD_MUTEX_INITIALIZER;
static char kvsname[256];  /* the job's key-value space */
/* After the first exchange: rank 0's store (host, port, the secret its
 * ranks prove) and, at rank 0, its bound socket. */
static int pmi_done;
static char store_host[256], store_port[16];
static core_launch_secret_t store_secret;
static int store_fd = -1;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends request and reads one answer line (without its newline) into
 * reply; deadline < 0: none. */
static ncore_status_t pmi_call(int fd, const char *request, char *reply,
                               size_t cap, int64_t deadline) {
  size_t len = strlen(request), sent = 0;
  while (sent < len) {
    /* A closed connection is an error to report, not a SIGPIPE. */
    ssize_t n = send(fd, request + sent, len - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(fd, request + sent, len - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return core_error(NCORE_ERR_REMOTE, "PMI_FD %d: writing \"%.*s\": %s",
                        fd, (int)strcspn(request, " \n"), request,
                        strerror(errno));
    sent += (size_t)n;
  }
  size_t used = 0;
  for (;;) {
    int wait = -1;
    if (deadline >= 0) {
      int64_t left = deadline - now_ms();
      if (left <= 0)
        return core_error(NCORE_ERR_TIMEOUT, "PMI_FD %d: no answer to \"%.*s\" "
                          "in time", fd, (int)strcspn(request, " \n"), request);
      wait = (int)left;
    }
    struct pollfd p = {fd, POLLIN, 0};
    int ready = poll(&p, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    /* One byte at a time: the answer ends at its newline, and whatever
     * follows belongs to the next request's reader. */
    char c;
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return core_error(NCORE_ERR_REMOTE, "PMI_FD %d: the process manager "
                        "closed the connection", fd);
    if (c == '\n') break;
    if (used + 1 < cap) reply[used++] = c;
  }
  reply[used] = '\0';
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

/* cmd=init and the key-value space's name. */
static ncore_status_t pmi_open(int fd, int64_t deadline) {
  char reply[512];
  ncore_status_t s = pmi_checked(fd, "cmd=init pmi_version=1 pmi_subversion=1\n",
                                 reply, sizeof reply, deadline);
  if (s == NCORE_OK)
    s = pmi_checked(fd, "cmd=get_my_kvsname\n", reply, sizeof reply, deadline);
  if (s == NCORE_OK && pmi_field(reply, "kvsname", kvsname, sizeof kvsname) != 0)
    s = core_error(NCORE_ERR_REMOTE, "PMI: no kvsname in \"%s\"", reply);
  if (s == NCORE_OK)
    core_log(CORE_LOG_INFO, "PMI-1 on PMI_FD %d: key-value space %s", fd, kvsname);
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
                                const char *key, int64_t deadline,
                                ncore_unique_id_t *id) {
  ncore_status_t s = pmi_open(fd, deadline);
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
  if (s == NCORE_OK)
    s = pmi_call(fd, "cmd=barrier_in\n", reply, sizeof reply, deadline);
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
  /* Finalise, whatever happened: the job must not be stopped for it. */
  if (pmi_call(fd, "cmd=finalize\n", reply, sizeof reply, deadline) != NCORE_OK &&
      s == NCORE_OK)
    s = core_error_current();
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
  if (!pmi_done)
    s = pmi_share(fd, launch, key, deadline, id);
  else if (store_host[0] == '\0')
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
