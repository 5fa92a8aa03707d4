/* Conformance runner (C): the batch file and the per-case unique id. */
#include "batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The uid file holds the id as 256 hex characters, the form every
 * language's runner writes (Python's bytes.hex(), Rust's to_hex). */
#define UID_HEX_CHARS (2 * NCORE_UNIQUE_ID_BYTES)

static void uid_encode(const ncore_unique_id_t *id, char *hex) {
  for (size_t i = 0; i < NCORE_UNIQUE_ID_BYTES; i++)
    sprintf(hex + 2 * i, "%02x", (unsigned char)id->internal[i]);
}

static int uid_decode(const char *hex, ncore_unique_id_t *id) {
  if (strlen(hex) != UID_HEX_CHARS) return -1;
  for (size_t i = 0; i < NCORE_UNIQUE_ID_BYTES; i++) {
    unsigned byte;
    if (sscanf(hex + 2 * i, "%2x", &byte) != 1) return -1;
    id->internal[i] = (char)byte;
  }
  return 0;
}

int batch_load(const char *dir, char ***out) {
  char path[4096];
  snprintf(path, sizeof path, "%s/batch", dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "conformance: cannot open %s\n", path);
    exit(2);
  }
  int n = 0, capacity = 16;
  char **cases = malloc((size_t)capacity * sizeof *cases);
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '\0') continue;
    if (n == capacity) cases = realloc(cases, (size_t)(capacity *= 2) * sizeof *cases);
    size_t size = strlen(dir) + strlen(line) + 2;
    cases[n] = malloc(size);
    snprintf(cases[n++], size, "%s/%s", dir, line);
  }
  fclose(f);
  *out = cases;
  return n;
}

static int publish(const char *case_dir, ncore_unique_id_t *id) {
  ncore_status_t st = ncore_get_unique_id(id, NCORE_BACKEND_AUTO);
  if (st != NCORE_OK) {
    fprintf(stderr, "conformance: ncore_get_unique_id: %s\n", ncore_last_error_message());
    return -1;
  }
  char hex[UID_HEX_CHARS + 1];
  uid_encode(id, hex);
  char tmp[4096], path[4096];
  snprintf(tmp, sizeof tmp, "%s/uid.tmp", case_dir);
  snprintf(path, sizeof path, "%s/uid", case_dir);
  FILE *f = fopen(tmp, "w");
  int ok = f && fprintf(f, "%s\n", hex) > 0;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok || rename(tmp, path) != 0) {
    fprintf(stderr, "conformance: cannot write %s\n", path);
    return -1;
  }
  return 0;
}

static int await(const char *case_dir, ncore_unique_id_t *id) {
  char path[4096];
  snprintf(path, sizeof path, "%s/uid", case_dir);
  struct timespec pause = {0, 2000000};
  for (long waited_ms = 0; waited_ms < BATCH_UID_WAIT_MS; waited_ms += 2) {
    FILE *f = fopen(path, "r");
    if (f) {
      char hex[UID_HEX_CHARS + 8] = "";
      char *got = fgets(hex, sizeof hex, f);
      fclose(f);
      hex[strcspn(hex, "\r\n")] = '\0';
      if (got && uid_decode(hex, id) == 0) return 0;
      fprintf(stderr, "conformance: %s does not hold a unique id\n", path);
      return -1;
    }
    nanosleep(&pause, NULL);
  }
  fprintf(stderr, "conformance: rank 0 published no unique id in %s within %d ms\n", path,
          BATCH_UID_WAIT_MS);
  return -1;
}

int batch_unique_id(const char *case_dir, int rank, ncore_unique_id_t *id) {
  return rank == 0 ? publish(case_dir, id) : await(case_dir, id);
}
