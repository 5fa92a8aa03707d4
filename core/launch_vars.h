/* core — the variables ncore's launcher (ncore-run, python -m ncore.run)
 * gives each rank, as one description shared by the library
 * (ncore_comm_init_from_env), the launcher (tools/launcher) and the test
 * harness (tests/harness), which all include this header:
 *   NCORE_RANK        this rank, in [0, NCORE_NRANKS)
 *   NCORE_NRANKS      the number of ranks
 *   NCORE_LOCAL_RANK  the rank on this machine
 *   NCORE_UNIQUE_ID   the 128-byte ncore_unique_id_t as 256 lowercase hex
 *                     characters (either case is read)
 *   NCORE_JOB_SECRET  the job's secret: 64 lowercase hex characters of 32
 *                     random bytes, new for every launch, which every rank
 *                     proves to the store of later ids (core/launch_secret.h;
 *                     any launcher may set it, or NCORE_JOB_SECRET_FILE)
 * and, for several NCCL ranks per GPU (--oversubscribe), NCORE_OVERSUBSCRIBE=1
 * with NCCL_HOSTID and NCCL_SOCKET_IFNAME (core_launch_isolate_host).
 * Header-only (static inline): the launcher and the harness are separate
 * programs that must not depend on the library's hidden symbols. */
#ifndef NCORE_CORE_LAUNCH_VARS_H
#define NCORE_CORE_LAUNCH_VARS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <ncore.h>

/* Length of NCORE_UNIQUE_ID's value: two hex characters per byte. */
#define CORE_LAUNCH_ID_HEX_CHARS (2 * NCORE_UNIQUE_ID_BYTES)

/* Value of one hex digit, or -1 when c is none. */
static inline int core_launch_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes hex (exactly 256 hex characters) into *out; 0, or -1 leaving *out
 * untouched when hex is NULL or malformed. */
static inline int core_launch_id_decode(const char *hex, ncore_unique_id_t *out) {
  if (!hex || !out || strlen(hex) != CORE_LAUNCH_ID_HEX_CHARS) return -1;
  ncore_unique_id_t id;
  for (size_t i = 0; i < NCORE_UNIQUE_ID_BYTES; i++) {
    int hi = core_launch_hex_digit(hex[2 * i]);
    int lo = core_launch_hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    id.internal[i] = (char)(hi << 4 | lo);
  }
  *out = id;
  return 0;
}

/* Encodes *id as 256 lowercase hex characters plus a NUL into out. */
static inline void core_launch_id_encode(
    const ncore_unique_id_t *id, char out[CORE_LAUNCH_ID_HEX_CHARS + 1]) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < NCORE_UNIQUE_ID_BYTES; i++) {
    unsigned char b = (unsigned char)id->internal[i];
    out[2 * i] = digits[b >> 4];
    out[2 * i + 1] = digits[b & 15];
  }
  out[CORE_LAUNCH_ID_HEX_CHARS] = '\0';
}

/* Length of the NCORE_JOB_SECRET ncore-run makes: 32 random bytes in hex. */
#define CORE_LAUNCH_SECRET_HEX_CHARS 64

/* Writes a new job secret (32 bytes from getrandom, as 64 lowercase hex
 * characters and a NUL) into out; 0, or -1 with errno when the kernel
 * gives no random bytes. */
static inline int core_launch_secret_generate(
    char out[CORE_LAUNCH_SECRET_HEX_CHARS + 1]) {
  static const char digits[] = "0123456789abcdef";
  unsigned char bytes[CORE_LAUNCH_SECRET_HEX_CHARS / 2];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    got += (size_t)n;
  }
  for (size_t i = 0; i < sizeof bytes; i++) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  out[CORE_LAUNCH_SECRET_HEX_CHARS] = '\0';
  memset(bytes, 0, sizeof bytes);
  return 0;
}

/* Parses text as an int in [0, 2^30]; 0, or -1 when it is not one. */
static inline int core_launch_parse_count(const char *text, int *out) {
  if (!text || !*text) return -1;
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1 << 30) return -1;
  *out = (int)value;
  return 0;
}

/* NCORE_OVERSUBSCRIBE: 1 when set to a non-empty value other than "0". */
static inline int core_launch_oversubscribe(void) {
  const char *v = getenv("NCORE_OVERSUBSCRIBE");
  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* Makes this process look like its own host to NCCL, so that several NCCL
 * ranks can share one GPU (oversubscription): NCCL refuses two ranks on one
 * GPU only because they share a host identity, which it takes from
 * NCCL_HOSTID when set. Each rank gets NCCL_HOSTID=ncore-<job>-rank<rank>
 * and NCCL_SOCKET_IFNAME=lo (the ranks then connect through NCCL's socket
 * transport on loopback, as ranks on different nodes would: correct, slow,
 * and with no load/store-accessible peers). Variables already set are kept.
 * Call in the rank's process before NCCL is loaded (between fork and exec).
 * job: any text unique to this launch (e.g. the launcher's pid). */
static inline void core_launch_isolate_host(const char *job, int rank) {
  char id[160];
  snprintf(id, sizeof id, "ncore-%s-rank%d", job, rank);
  setenv("NCORE_OVERSUBSCRIBE", "1", 1);
  setenv("NCCL_HOSTID", id, 0);
  setenv("NCCL_SOCKET_IFNAME", "lo", 0);
}

#endif
