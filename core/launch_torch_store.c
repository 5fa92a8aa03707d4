/* core — a client of torch's TCPStore (torch/csrc/distributed/c10d), the
 * key-value store torchrun's agent keeps at MASTER_ADDR:MASTER_PORT when it
 * sets TORCHELASTIC_USE_AGENT_STORE=True: rank 0 sets "ncore.uid.<n>" to
 * the id's 128 bytes, the others wait for the key and get it. A request is
 * a query-type byte, then strings and byte vectors as a uint64 length and
 * the bytes (little-endian). Two dialects exist:
 *   torch < 2.0:  SET 0, GET 2, WAIT 5, GETNUMKEYS 6
 *   torch >= 2.0: first VALIDATE 0 with the magic 0x3C85F7CE, then SET 1,
 *                 GET 3, WAIT 6 (GETNUMKEYS 7)
 * The old dialect is tried first with GETNUMKEYS, which an old store
 * answers at once and a new one never answers (it ignores or drops a
 * client that did not validate); asking a new store's VALIDATE of an old
 * one would be read as a SET with a garbage length. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "launch.h"
#include "launch_socket.h"
#include "log.h"

typedef struct dialect {
  const char *name;
  int validate;  /* send VALIDATE first */
  uint8_t set, get, wait;
} dialect_t;

static const dialect_t torch_1 = {"torch < 2.0", 0, 0, 2, 5};
static const dialect_t torch_2 = {"torch >= 2.0", 1, 1, 3, 6};
#define TORCH_1_GETNUMKEYS 6
#define TORCH_VALIDATE 0
#define TORCH_VALIDATE_MAGIC 0x3C85F7CEu
#define TORCH_PROBE_MS 1000

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

/* Rank 0: SET key = id. */
static ncore_status_t set_id(int fd, const dialect_t *d, const char *key,
                             const ncore_unique_id_t *id, int64_t deadline) {
  char buf[1 + 8 + 64 + 8 + NCORE_UNIQUE_ID_BYTES];
  size_t used = 1;
  buf[0] = (char)d->set;
  put_bytes(buf, &used, key, strlen(key));
  put_bytes(buf, &used, id->internal, sizeof id->internal);
  return core_socket_write(fd, buf, used, deadline, "setting the id in torchrun's store");
}

/* The others: WAIT for key, then GET it. */
static ncore_status_t get_id(int fd, const dialect_t *d, const char *key,
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
  used = 1;
  buf[0] = (char)d->get;
  put_bytes(buf, &used, key, strlen(key));
  uint64_t len = 0;
  s = core_socket_write(fd, buf, used, deadline, "torchrun's store");
  if (s == NCORE_OK) s = core_socket_read(fd, &len, sizeof len, deadline, "torchrun's store");
  if (s != NCORE_OK) return s;
  if (stop != 0 || len != sizeof id->internal)
    return core_error(NCORE_ERR_REMOTE, "torchrun's store holds no unique id "
                      "under %s (%llu bytes)", key, (unsigned long long)len);
  return core_socket_read(fd, id->internal, sizeof id->internal, deadline,
                          "torchrun's store");
}

ncore_status_t core_launch_torch_store_share(const core_launch_t *launch,
                                             const char *host, const char *port,
                                             const char *key,
                                             int64_t timeout_ms,
                                             ncore_unique_id_t *id) {
  int64_t deadline = timeout_ms < 0 ? -1 : core_socket_now_ms() + timeout_ms;
  int fd = -1;
  const dialect_t *dialect = NULL;
  ncore_status_t s = open_store(host, port, deadline, &fd, &dialect);
  if (s != NCORE_OK) return s;
  core_log(CORE_LOG_INFO, "torchrun's agent store at %s:%s speaks the %s dialect",
           host, port, dialect->name);
  if (launch->rank == 0)
    s = set_id(fd, dialect, key, id, deadline);
  else
    s = get_id(fd, dialect, key, id, deadline);
  close(fd);
  return s;
}
