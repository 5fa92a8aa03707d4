/* core — a client of torch's TCPStore (torch/csrc/distributed/c10d), the
 * key-value store torchrun's agent keeps at MASTER_ADDR:MASTER_PORT when it
 * sets TORCHELASTIC_USE_AGENT_STORE=True, and torch's rank 0 keeps there
 * when init_process_group ran before ncore: rank 0 sets
 * "ncore.uid.<job label>.<n>" to the id sealed with the job's secret
 * (launch_secret.h: a nonce, the id under a key stream of the secret and
 * the nonce, and a MAC over the key's name and both), the others wait for
 * the key, get it and check it. torch's store authenticates nobody, so
 * the seal is what keeps the id from anyone who can reach the port, and a
 * value that is not the job's (a stranger's, another job's) is no id: a
 * rank reads the key again until rank 0's value is there. A request is
 * a query-type byte, then strings and byte vectors as a uint64 length and
 * the bytes (little-endian). Two dialects exist:
 *   torch < 2.0:  SET 0, GET 2, WAIT 5, GETNUMKEYS 6
 *   torch >= 2.0: first VALIDATE 0 with the magic 0x3C85F7CE, then SET 1,
 *                 GET 3, WAIT 6 (GETNUMKEYS 7)
 * The old dialect is tried first with GETNUMKEYS, which an old store
 * answers at once and a new one never answers (it ignores or drops a
 * client that did not validate); asking a new store's VALIDATE of an old
 * one would be read as a SET with a garbage length. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "launch.h"
#include "launch_socket.h"
#include "launch_tcp_wire.h"
#include "log.h"
#include "random_bytes.h"

typedef struct dialect {
  const char *name;
  int validate;  /* send VALIDATE first */
  uint8_t set, get, wait;
} dialect_t;

static const dialect_t torch_1 = {"torch < 2.0", 0, 0, 2, 5};
static const dialect_t torch_2 = {"torch >= 2.0", 1, 1, 3, 6};
#define TORCH_1_GETNUMKEYS 6
#define TORCH_2_GETNUMKEYS 7
#define TORCH_VALIDATE 0
#define TORCH_VALIDATE_MAGIC 0x3C85F7CEu
#define TORCH_PROBE_MS 1000
#define NONCE_BYTES 32
#define REREAD_MS 100

/* What rank 0 sets: a nonce, the sealed id, the MAC. */
typedef struct __attribute__((packed)) sealed_id {
  unsigned char nonce[NONCE_BYTES];
  unsigned char id[NCORE_UNIQUE_ID_BYTES];
  unsigned char mac[CORE_SHA256_BYTES];
} sealed_id_t;

/* Appends a length-prefixed string or vector to buf at *used. */
static void put_bytes(char *buf, size_t *used, const void *data, uint64_t len) {
  memcpy(buf + *used, &len, sizeof len);
  memcpy(buf + *used + sizeof len, data, len);
  *used += sizeof len + len;
}

/* Connects and settles the store's dialect: *fd and *dialect. */
static ncore_status_t open_store(const char *host, const char *port,
                                 int64_t deadline, int *fd,
                                 const dialect_t **dialect) {
  const char *who = "torchrun's agent store";
  ncore_status_t s = core_socket_connect(host, port, deadline, who, fd);
  if (s != NCORE_OK) return s;
  uint8_t probe = TORCH_1_GETNUMKEYS;
  int64_t count = 0;
  int64_t probe_deadline = core_socket_now_ms() + TORCH_PROBE_MS;
  if (deadline >= 0 && deadline < probe_deadline) probe_deadline = deadline;
  s = core_socket_write(*fd, &probe, 1, probe_deadline, who);
  if (s == NCORE_OK)
    s = core_socket_read(*fd, &count, sizeof count, probe_deadline, who);
  /* ncore's own store greets every connection unasked; its greeting is
   * no key count, and it is no torch store (it greets late when its rank 0
   * is slow, after the caller took it for silent). */
  if (s == NCORE_OK && core_store_greeting_prefix_valid(&count, sizeof count)) {
    close(*fd);
    return core_error(NCORE_ERR_REMOTE, "%s:%s greeted as ncore's store: it is "
                      "no torch TCPStore", host, port);
  }
  if (s == NCORE_OK) {
    *dialect = &torch_1;
    return NCORE_OK;
  }
  close(*fd);
  s = core_socket_connect(host, port, deadline, who, fd);
  if (s != NCORE_OK) return s;
  char hello[5] = {TORCH_VALIDATE};
  uint32_t magic = TORCH_VALIDATE_MAGIC;
  memcpy(hello + 1, &magic, sizeof magic);
  s = core_socket_write(*fd, hello, sizeof hello, deadline, who);
  if (s != NCORE_OK) {
    close(*fd);
    return s;
  }
  *dialect = &torch_2;
  return NCORE_OK;
}

int core_launch_torch_store_answers(const char *host, const char *port,
                                    int64_t deadline) {
  int fd = -1;
  const dialect_t *dialect = NULL;
  if (core_socket_connect_once(host, port, "a torch TCPStore", &fd) <= 0) return 0;
  close(fd);
  if (open_store(host, port, deadline, &fd, &dialect) != NCORE_OK) return 0;
  int answers = dialect == &torch_1;
  if (!answers) {
    /* The new dialect took VALIDATE without a word; GETNUMKEYS proves it. */
    uint8_t query = TORCH_2_GETNUMKEYS;
    int64_t count = 0;
    answers = core_socket_write(fd, &query, 1, deadline, "a torch TCPStore") == NCORE_OK &&
              core_socket_read(fd, &count, sizeof count, deadline,
                               "a torch TCPStore") == NCORE_OK;
  }
  close(fd);
  return answers;
}

/* The MAC of a sealed id under the job's key, bound to the key's name. */
static void seal_mac(const core_launch_secret_t *secret, const char *key,
                     const sealed_id_t *sealed, unsigned char out[CORE_SHA256_BYTES]) {
  core_hmac_sha256_t mac;
  core_launch_secret_mac_begin(secret, "ncore torch store v1", &mac);
  core_hmac_sha256_update(&mac, key, strlen(key) + 1);
  core_hmac_sha256_update(&mac, sealed, offsetof(sealed_id_t, mac));
  core_hmac_sha256_final(&mac, out);
}

/* Rank 0: SET key = the id, sealed. */
static ncore_status_t set_id(int fd, const dialect_t *d,
                             const core_launch_secret_t *secret, const char *key,
                             const ncore_unique_id_t *id, int64_t deadline) {
  sealed_id_t sealed;
  ncore_status_t s = core_random_bytes(sealed.nonce, sizeof sealed.nonce);
  if (s != NCORE_OK) return s;
  memcpy(sealed.id, id->internal, sizeof sealed.id);
  core_launch_secret_seal(secret, sealed.nonce, sizeof sealed.nonce, sealed.id,
                          sizeof sealed.id);
  seal_mac(secret, key, &sealed, sealed.mac);
  char buf[1 + 8 + 64 + 8 + sizeof sealed];
  size_t used = 1;
  buf[0] = (char)d->set;
  put_bytes(buf, &used, key, strlen(key));
  put_bytes(buf, &used, &sealed, sizeof sealed);
  return core_socket_write(fd, buf, used, deadline, "setting the id in torchrun's store");
}

/* The id in a value, when it is sealed with this job's secret; 0, or -1. */
static int unseal(const core_launch_secret_t *secret, const char *key,
                  sealed_id_t *sealed, ncore_unique_id_t *id) {
  unsigned char want[CORE_SHA256_BYTES];
  seal_mac(secret, key, sealed, want);
  if (!core_equal_in_constant_time(want, sealed->mac, sizeof want)) return -1;
  core_launch_secret_seal(secret, sealed->nonce, sizeof sealed->nonce, sealed->id,
                          sizeof sealed->id);
  memcpy(id->internal, sealed->id, sizeof id->internal);
  return 0;
}

/* GET key into value (cap bytes); its length in *len (what did not fit
 * is read and dropped). */
static ncore_status_t get_value(int fd, const dialect_t *d, const char *key,
                                void *value, size_t cap, uint64_t *len,
                                int64_t deadline) {
  char buf[1 + 8 + 64];
  size_t used = 1;
  buf[0] = (char)d->get;
  put_bytes(buf, &used, key, strlen(key));
  ncore_status_t s = core_socket_write(fd, buf, used, deadline, "torchrun's store");
  if (s == NCORE_OK) s = core_socket_read(fd, len, sizeof *len, deadline, "torchrun's store");
  for (uint64_t at = 0; s == NCORE_OK && at < *len;) {
    char scratch[256];
    uint64_t take = *len - at < sizeof scratch ? *len - at : sizeof scratch;
    s = core_socket_read(fd, scratch, (size_t)take, deadline, "torchrun's store");
    if (s == NCORE_OK && at < cap)
      memcpy((char *)value + at, scratch, (size_t)(cap - at < take ? cap - at : take));
    at += take;
  }
  return s;
}

/* The others: WAIT for key, then GET it until the value is the job's. */
static ncore_status_t get_id(int fd, const dialect_t *d,
                             const core_launch_secret_t *secret, const char *key,
                             ncore_unique_id_t *id, int64_t deadline) {
  char buf[1 + 8 + 8 + 64];
  size_t used = 1;
  uint64_t one = 1;
  buf[0] = (char)d->wait;
  memcpy(buf + used, &one, sizeof one);
  used += sizeof one;
  put_bytes(buf, &used, key, strlen(key));
  ncore_status_t s = core_socket_write(fd, buf, used, deadline, "torchrun's store");
  uint8_t stop = 1;
  if (s == NCORE_OK)
    s = core_socket_read(fd, &stop, 1, deadline, "rank 0's id in torchrun's store");
  if (s == NCORE_ERR_TIMEOUT)
    return core_error(s, "rank 0 did not set %s in torchrun's store at "
                      "MASTER_ADDR:MASTER_PORT in time", key);
  if (s != NCORE_OK) return s;
  if (stop != 0)
    return core_error(NCORE_ERR_REMOTE, "torchrun's store stopped the wait for %s",
                      key);
  core_wait_note_t note;
  core_wait_note_start(&note, "ncore_comm_init_from_env");
  for (;;) {
    sealed_id_t sealed;
    uint64_t len = 0;
    s = get_value(fd, d, key, &sealed, sizeof sealed, &len, deadline);
    if (s != NCORE_OK) return s;
    if (len == sizeof sealed && unseal(secret, key, &sealed, id) == 0) return NCORE_OK;
    int64_t now = core_socket_now_ms();
    if (deadline >= 0 && now >= deadline)
      return core_error(NCORE_ERR_TIMEOUT, "torchrun's store at MASTER_ADDR:"
                        "MASTER_PORT holds %llu bytes under %s that are not sealed "
                        "with this job's secret (a stranger's or another job's), "
                        "and rank 0's id did not replace them in time",
                        (unsigned long long)len, key);
    core_wait_note_check(&note, deadline, "rank 0's sealed id under %s in "
                         "torchrun's store (the value there is not this job's)", key);
    struct timespec pause = {0, REREAD_MS * 1000000L};
    nanosleep(&pause, NULL);
  }
}

ncore_status_t core_launch_torch_store_share(const core_launch_t *launch,
                                             const core_launch_secret_t *secret,
                                             const char *host, const char *port,
                                             uint64_t call, int64_t timeout_ms,
                                             ncore_unique_id_t *id) {
  int64_t deadline = timeout_ms < 0 ? -1 : core_socket_now_ms() + timeout_ms;
  char key[64];
  snprintf(key, sizeof key, "ncore.uid.%s.%llu", secret->label,
           (unsigned long long)call);
  int fd = -1;
  const dialect_t *dialect = NULL;
  ncore_status_t s = open_store(host, port, deadline, &fd, &dialect);
  if (s != NCORE_OK) return s;
  core_log(CORE_LOG_INFO, "torch's store at %s:%s speaks the %s dialect",
           host, port, dialect->name);
  if (launch->rank == 0)
    s = set_id(fd, dialect, secret, key, id, deadline);
  else
    s = get_id(fd, dialect, secret, key, id, deadline);
  close(fd);
  return s;
}
