/* tools/ncore_launch_env.h — header-only helpers for programs started by
 * tools/ncore-run, which puts in each rank's environment:
 *   NCORE_RANK        this rank, in [0, NCORE_NRANKS)
 *   NCORE_NRANKS      the number of ranks
 *   NCORE_LOCAL_RANK  the rank on this machine (equal to NCORE_RANK: one machine)
 *   NCORE_UNIQUE_ID   the 128-byte ncore_unique_id_t as 256 lowercase hex chars
 * and, with --oversubscribe (NCORE_OVERSUBSCRIBE=1), NCORE_OVERSUBSCRIBE=1,
 * NCCL_HOSTID and NCCL_SOCKET_IFNAME (ncore_launch_env_isolate_host).
 * The launcher made the id itself (ncore_get_unique_id with the backend AUTO
 * resolves to), so no rank has to create and distribute one.
 * Every function returns 0 on success and -1 when the variable is missing or
 * malformed, leaving *out untouched. */
#ifndef NCORE_LAUNCH_ENV_H
#define NCORE_LAUNCH_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncore.h>

/* Length of NCORE_UNIQUE_ID's value: two hex characters per byte. */
#define NCORE_LAUNCH_ENV_ID_HEX_CHARS (2 * NCORE_UNIQUE_ID_BYTES)

/* Value of one hex digit, or -1 when c is none. */
static inline int ncore_launch_env_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes hex (exactly 256 hex characters, either case) into *out. */
static inline int ncore_launch_env_decode(const char *hex,
                                          ncore_unique_id_t *out) {
  if (!hex || !out || strlen(hex) != NCORE_LAUNCH_ENV_ID_HEX_CHARS) return -1;
  ncore_unique_id_t id;
  for (size_t i = 0; i < NCORE_UNIQUE_ID_BYTES; i++) {
    int hi = ncore_launch_env_hex_digit(hex[2 * i]);
    int lo = ncore_launch_env_hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    id.internal[i] = (char)(hi << 4 | lo);
  }
  *out = id;
  return 0;
}

/* Encodes *id as 256 lowercase hex characters plus a NUL into out. */
static inline void ncore_launch_env_encode(
    const ncore_unique_id_t *id, char out[NCORE_LAUNCH_ENV_ID_HEX_CHARS + 1]) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < NCORE_UNIQUE_ID_BYTES; i++) {
    unsigned char b = (unsigned char)id->internal[i];
    out[2 * i] = digits[b >> 4];
    out[2 * i + 1] = digits[b & 15];
  }
  out[NCORE_LAUNCH_ENV_ID_HEX_CHARS] = '\0';
}

/* Parses the environment variable name as a non-negative int. */
static inline int ncore_launch_env_int(const char *name, int *out) {
  const char *text = getenv(name);
  if (!text || !*text || !out) return -1;
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1 << 30) return -1;
  *out = (int)value;
  return 0;
}

/* NCORE_RANK. */
static inline int ncore_env_rank(int *out) {
  return ncore_launch_env_int("NCORE_RANK", out);
}

/* NCORE_NRANKS (at least 1). */
static inline int ncore_env_nranks(int *out) {
  int n;
  if (ncore_launch_env_int("NCORE_NRANKS", &n) != 0 || n < 1) return -1;
  *out = n;
  return 0;
}

/* NCORE_LOCAL_RANK, falling back to NCORE_RANK. */
static inline int ncore_env_local_rank(int *out) {
  if (ncore_launch_env_int("NCORE_LOCAL_RANK", out) == 0) return 0;
  return ncore_env_rank(out);
}

/* NCORE_UNIQUE_ID, decoded. */
static inline int ncore_env_unique_id(ncore_unique_id_t *out) {
  return ncore_launch_env_decode(getenv("NCORE_UNIQUE_ID"), out);
}

/* NCORE_OVERSUBSCRIBE: 1 when set to a non-empty value other than "0" (the
 * launchers' --oversubscribe option sets it for the ranks). */
static inline int ncore_launch_env_oversubscribe(void) {
  const char *v = getenv("NCORE_OVERSUBSCRIBE");
  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* Makes this process look like its own host to NCCL, so that several NCCL
 * ranks can share one GPU (oversubscription): NCCL refuses two ranks on one
 * GPU only because they share a host identity, which it takes from
 * NCCL_HOSTID when set. Each rank gets NCCL_HOSTID=<job>-<rank> and
 * NCCL_SOCKET_IFNAME=lo (the ranks then connect through NCCL's socket
 * transport on loopback, as ranks on different nodes would: correct, slow,
 * and with no load/store-accessible peers). Variables the user already set
 * are kept. Call in the rank's process before NCCL is loaded (between fork
 * and exec). job: any text unique to this launch (e.g. the launcher's pid). */
static inline void ncore_launch_env_isolate_host(const char *job, int rank) {
  char id[160];
  snprintf(id, sizeof id, "ncore-%s-rank%d", job, rank);
  setenv("NCCL_HOSTID", id, 0);
  setenv("NCCL_SOCKET_IFNAME", "lo", 0);
}

/* All of a launched rank's environment at once. */
typedef struct ncore_launch_env {
  int rank;
  int nranks;
  int local_rank;
  ncore_unique_id_t id;
} ncore_launch_env_t;

/* Fills *out from the environment; -1 if anything is missing, malformed, or
 * the rank is not below the number of ranks. */
static inline int ncore_launch_env_read(ncore_launch_env_t *out) {
  ncore_launch_env_t env;
  if (!out || ncore_env_rank(&env.rank) != 0 ||
      ncore_env_nranks(&env.nranks) != 0 || env.rank >= env.nranks ||
      ncore_env_local_rank(&env.local_rank) != 0 ||
      ncore_env_unique_id(&env.id) != 0)
    return -1;
  *out = env;
  return 0;
}

#endif /* NCORE_LAUNCH_ENV_H */
